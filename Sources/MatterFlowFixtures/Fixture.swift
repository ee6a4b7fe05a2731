import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator

/// A failure-path scenario read from a fixture file: a workflow and its inputs, a simulated home, scripted hub
/// faults, events that happen during the run, and what the run must produce.
///
/// Load one with ``FixtureLoader``; run it with ``FixtureRunner``. The format is documented in `docs/fixtures.md`.
public struct Fixture: Sendable {
    /// The newest fixture format version this module reads.
    public static let currentVersion = 1

    /// The fixture's name (its `"fixture"` member), shown on its result line.
    public var name: String
    /// For people; not used by the runner.
    public var description: String?
    /// The fixture file.
    public var file: String
    /// The workflow the fixture runs, loaded and validated (with its sub-workflows): what coverage is about.
    public var workflow: Workflow
    /// Sub-workflows replaced by stand-ins in this fixture.
    public var mocks: [FixtureMock]
    /// The workflow as it runs: ``workflow`` with the ``mocks`` in place.
    public var runnableWorkflow: Workflow
    /// The workflow file, as resolved from the fixture's directory.
    public var workflowFile: String
    /// The run's inputs, already checked against the workflow's declarations.
    public var inputs: JSONObject
    /// The simulated home the run starts from.
    public var home: HomeDescription
    /// Seeds the run's random source (run ID, retry jitter).
    public var seed: UInt64
    /// Faults the simulated hub injects, in order.
    public var faults: [FaultRule]
    /// What happens during the run, in file order.
    public var events: [FixtureEvent]
    /// How the run's questions are answered, by question name (or ask state name); a question not listed gets no
    /// answer and times out.
    public var answers: [String: FixtureAnswer] = [:]
    /// What calls of custom operations (declared by a catalog file) answer.
    public var customOperations: [CustomOperationRule]
    /// Where each rule of ``faults`` is in the file's `faults` array (custom operations' rules share it); empty
    /// for a fixture built in code, whose rules are reported by their place in ``faults``.
    public var faultPositions: [Int] = []
    /// Where each rule of ``customOperations`` is in the file's `faults` array; empty for a fixture built in code.
    public var customOperationPositions: [Int] = []
    /// What the run must produce.
    public var expectations: FixtureExpectations
    /// The fixture file's text, so that a mismatch can name where its expectation was written; empty for a
    /// fixture built in code.
    public var sourceMap = JSONSourceMap()

    /// A fixture; ``FixtureLoader`` builds these from files.
    public init(
        name: String, description: String? = nil, file: String, workflow: Workflow, mocks: [FixtureMock] = [],
        runnableWorkflow: Workflow? = nil, workflowFile: String, inputs: JSONObject = [:], home: HomeDescription,
        seed: UInt64 = 0, faults: [FaultRule] = [],
        events: [FixtureEvent] = [], customOperations: [CustomOperationRule] = [],
        expectations: FixtureExpectations = FixtureExpectations()
    ) {
        self.name = name
        self.description = description
        self.file = file
        self.workflow = workflow
        self.mocks = mocks
        self.runnableWorkflow = runnableWorkflow ?? workflow
        self.workflowFile = workflowFile
        self.inputs = inputs
        self.home = home
        self.seed = seed
        self.faults = faults
        self.events = events
        self.customOperations = customOperations
        self.expectations = expectations
    }
}

/// Something that happens to the simulated world during a fixture's run: a trigger and an action.
public struct FixtureEvent: Sendable, Hashable {
    /// When the event happens.
    public enum Trigger: Sendable, Hashable, CustomStringConvertible {
        /// At this time on the run's virtual clock (after its start; always positive).
        case at(Duration)
        /// When call number `attempt` (from 1) of an operation ends, whatever its outcome, before the engine sees
        /// the call's answer.
        case after(SimulatedOperation, attempt: Int)
        /// The same for a custom operation (declared by an operation catalog file), by name.
        case afterCustom(String, attempt: Int)
        /// When the run first enters a state (qualified by sub-workflow states, as in `visitedStates`), before the
        /// state does any work.
        case entering(String)

        /// `at 5 s`, `after prepareCommissioning #1`, `entering commission/rememberFailure`.
        public var description: String {
            switch self {
            case .at(let time): "at \(FixtureFormat.seconds(time)) s"
            case .after(let operation, let attempt): "after \(operation.rawValue) #\(attempt)"
            case .afterCustom(let operation, let attempt): "after \(operation) #\(attempt)"
            case .entering(let state): "entering \(state)"
            }
        }
    }

    /// When it happens.
    public var trigger: Trigger
    /// What happens.
    public var action: FixtureAction
    /// The event's JSON pointer in the fixture file (`/events/2`), for reports.
    public var pointer: String

    /// An event.
    public init(trigger: Trigger, action: FixtureAction, pointer: String = "") {
        self.trigger = trigger
        self.action = action
        self.pointer = pointer
    }
}

/// What a ``FixtureEvent`` does. Hub conditions change the structure the run commissions into.
public enum FixtureAction: Sendable, Hashable, CustomStringConvertible {
    /// The hub goes online (`true`) or offline (`false`).
    case setHubOnline(Bool)
    /// The hub becomes reachable from here (`true`) or not (`false`).
    case setHubReachable(Bool)
    /// The user grants (`true`) or revokes (`false`) the app's permission for the structure.
    case setPermissionGranted(Bool)
    /// The run is cancelled (as by Ctrl-C): it takes its cancel path.
    case cancelRun
    /// A commissioner tries to connect to a border router with the ePSKc key the run was issued, or a wrong one,
    /// `count` times (the tenth wrong key withdraws the key).
    case commissionerConnects(deviceID: String, key: CommissionerKey, count: Int)
    /// The connected commissioner's petition is accepted.
    case commissionerPetitionAccepted(deviceID: String)
    /// The connected commissioner leaves: the key is spent (`keyUsed`).
    case commissionerLeaves(deviceID: String)
    /// A commissioner connects with the issued key, is accepted and leaves at once: the key is used.
    case commissionerUsesKey(deviceID: String)
    /// Another app activates ePSKc mode on a border router (a call the hub serves outside the run).
    case epskcActivatedElsewhere(deviceID: String, durationSeconds: Int?)
    /// Another app deactivates ePSKc mode on a border router (the key ends with reason `cancelled`).
    case epskcDeactivatedElsewhere(deviceID: String)
    /// The hub's events stop reaching the run (`false`), or reach it again (`true`).
    case setHubEventsDelivered(Bool)
    /// Another app removes the room of this name from the structure.
    case removeRoom(String)

    /// Which key a commissioner uses.
    public enum CommissionerKey: String, Sendable, Hashable {
        /// The key the border router issued in this run (the last `activateEpskc` answer for it).
        case issued
        /// A key that differs from the issued one in its first digit.
        case wrong
    }

    /// The action's name in fixture files (`hubOffline`, `cancelRun`, ...).
    public var name: String {
        switch self {
        case .setHubOnline(let online): online ? "hubOnline" : "hubOffline"
        case .setHubReachable(let reachable): reachable ? "hubReachable" : "hubUnreachable"
        case .setPermissionGranted(let granted): granted ? "permissionGranted" : "permissionRevoked"
        case .cancelRun: "cancelRun"
        case .commissionerConnects: "commissionerConnects"
        case .commissionerPetitionAccepted: "commissionerPetitionAccepted"
        case .commissionerLeaves: "commissionerLeaves"
        case .commissionerUsesKey: "commissionerUsesKey"
        case .epskcActivatedElsewhere: "epskcActivatedElsewhere"
        case .epskcDeactivatedElsewhere: "epskcDeactivatedElsewhere"
        case .setHubEventsDelivered(let delivered): delivered ? "hubEventsDelivered" : "hubEventsLost"
        case .removeRoom: "removeRoom"
        }
    }

    /// `hubOffline`, `commissionerConnects(device-1, wrong key ×10)`.
    public var description: String {
        switch self {
        case .commissionerConnects(let deviceID, let key, let count):
            "\(name)(\(deviceID), \(key.rawValue) key\(count == 1 ? "" : " ×\(count)"))"
        case .commissionerPetitionAccepted(let deviceID), .commissionerLeaves(let deviceID),
            .commissionerUsesKey(let deviceID),
            .epskcActivatedElsewhere(let deviceID, _), .epskcDeactivatedElsewhere(let deviceID):
            "\(name)(\(deviceID))"
        case .removeRoom(let room):
            "\(name)(\(room))"
        case .setHubOnline, .setHubReachable, .setPermissionGranted, .cancelRun, .setHubEventsDelivered:
            name
        }
    }
}

/// Formatting shared by reports.
enum FixtureFormat {
    /// Seconds with at most three decimals: `5`, `0.25`.
    static func seconds(_ duration: Duration) -> String {
        seconds(duration.secondsValue)
    }

    static func seconds(_ value: Double) -> String {
        NumberRange.format((value * 1000).rounded() / 1000)
    }

    /// Attempt numbers of a fault or an event trigger: calls are counted from 1.
    static let attemptRange = NumberRange(integers: 1...1_000_000, unit: "attempt number")

    /// A duration from seconds, to the millisecond.
    static func duration(seconds: Double) -> Duration {
        .seconds(rounding: seconds)
    }

    /// What two strings equal as Unicode text and not byte for byte are.
    static let sameCharacters = "the same characters in other bytes, composed or decomposed"
}

/// How a fixture answers one question of its run.
public enum FixtureAnswer: Sendable, Hashable {
    /// This answer, given in advance (checked when the question is asked, as `--answer` is).
    case answer(JSONValue)
    /// This answer, given in advance, which the question must refuse (`answerRejected`); the question then waits
    /// for another, and times out.
    case rejectedAnswer(JSONValue)
    /// No answer: the question times out.
    case noAnswer
    /// The run is cancelled while the question waits.
    case cancel
}
