import MatterFlowJSON

/// What a ``RunMachine`` asks its driver to do after an input, in order.
///
/// A list of actions holds any number of reports and checkpoints, then at most one piece of work: the run's next
/// input comes from that work (a status check's end, a call's end, a delay's end, a wait's end), from `proceed`,
/// or from a cancel. A list without work (a cancel while a call is in flight) leaves the work in flight as it was.
///
/// Cases with large payloads that a run makes rarely or only when observed (reports, checkpoints, the result, a wait
/// for an event or an answer, an element's launch) are boxed, so that an action stays small for the work a driver
/// moves and copies on every input.
enum RunAction: Sendable {
    /// Report an event to the run's observer; secrets are already redacted unless the run shows them.
    indirect case report(path: [String], RunEvent.Kind)
    /// Record where a level stands as it enters a state (secrets redacted unless the run shows them).
    indirect case checkpoint(RunCheckpoint)
    /// The state just entered has been reported and has done nothing yet: feed ``RunMachine/proceed()``, after
    /// feeding ``RunMachine/cancelRequested()`` when the run was cancelled meanwhile.
    case proceed
    /// Check the hub's status for a guard; feed ``RunMachine/statusChecked(_:)``.
    case checkStatus(GuardCheck)
    /// Call the hub; feed ``RunMachine/callEnded(_:duration:)``.
    case call(RunCall)
    /// Wait before a retry; feed ``RunMachine/delayEnded(elapsed:)``, `elapsed` false when a cancel cut it short
    /// (only when `cancellable`).
    case delay(Duration, cancellable: Bool)
    /// Wait for a hub event; feed ``RunMachine/waitEnded(_:)`` with the event, the timeout, or the cancel that
    /// came first (only when the wait is cancellable).
    indirect case waitForEvent(EventWait)
    /// Wait for the answer to a question; feed ``RunMachine/answerEnded(_:)`` with the answer (checked), the
    /// timeout, or the cancel that came first (only when the question is cancellable).
    indirect case askQuestion(QuestionWait)
    /// A cancel arrived while hub work is in flight: stop it; its end is still to be fed (as cancelled, with the
    /// work's late result if it succeeded while winding down).
    case interruptWork
    /// Start an element of a concurrent map state as a machine of its own; its end is fed to
    /// ``RunMachine/elementEnded(_:)``.
    indirect case startElement(ElementLaunch)
    /// Cancel a running element of a concurrent map state (too many elements failed, or the run was cancelled);
    /// its end is still to be fed.
    case cancelElement(Int)
    /// The map state waits for its running elements: feed the next one's end to ``RunMachine/elementEnded(_:)``.
    case awaitElements
    /// The run reaches its end after a session-opening call ended unanswered: wait for the run's abandoned calls,
    /// release each session the hub opened late for one of them as the settlement says, and feed
    /// ``RunMachine/lateSessionsSettled(_:)``.
    indirect case settleLateSessions(LateSettlement)
    /// The run has ended with this result (its `runFinished` report comes just before).
    indirect case finish(RunResult)

    /// Whether the action is work whose end is the machine's next input (or the run's end).
    var isWork: Bool {
        switch self {
        case .report, .checkpoint, .interruptWork, .startElement, .cancelElement: false
        case .proceed, .checkStatus, .call, .delay, .waitForEvent, .askQuestion, .awaitElements, .settleLateSessions, .finish: true
        }
    }
}

/// What a run's end knows about the sessions its unanswered session-opening calls may have opened late.
struct LateSettlement: Sendable {
    /// The session the run holds: then the hub, with one session per structure, holds no other, and nothing is
    /// released.
    var holding: String?
    /// The session the run's last prepare opened, held or not: a late session equal to it was the run's own, which
    /// its workflow settled.
    var own: String?
    /// The element of a concurrent map state whose machine ends (its calls' contexts name it); nil for a run.
    var element: String?
    /// The release (`cancelCommissioning`) from the run's catalog, so that a service's wrapping of it applies (the
    /// fleet's lease fence and session rows); nil when the catalog has none, and nothing is released.
    var release: PlannedCall?
    /// The last session-opening call that failed with `hubFailure` (the hub answered, but not in a form the run
    /// reads, or broke the protocol), as reports name it: a session the hub holds with this run as its owner, and
    /// no late answer named, was opened by it.
    var unreadOpen: String? = nil
}

/// A guard's status check to make.
struct GuardCheck: Sendable, Hashable {
    /// The state whose guard it is (as a report about an abandoned check names it).
    var state: String
    /// False on a cancel path, which no cancel interrupts.
    var cancellable: Bool
}

/// A hub call, fully prepared: the operation, its evaluated arguments (the idempotency key filled in), its timeout
/// and the context the hub sees while serving it.
///
/// A class: the machine's phase and the driver's next action each hold it while the call runs, and a reference is
/// what they copy.
final class RunCall: Sendable {
    /// The operation as the plan resolved it (its session effects included).
    let operation: PlannedCall
    let arguments: JSONObject
    let timeout: Duration
    /// The run's ID, a key numbering the run's calls, and the session the run opened when the operation works
    /// in one. A driver inside an outer layer that sets its own ``HubCallContext`` keeps that one instead.
    let context: HubCallContext
    /// The state making the call (reports about an abandoned call name it).
    let state: String
    /// The level making the call, and the attempt's number (for a ``RunRecording``).
    let path: [String]
    let attempt: Int
    /// The arguments as reports and the recording show them (secret ones redacted unless the run shows secrets);
    /// empty when the run has neither (``RunMachine/Configuration/reportsEvents``).
    let shownArguments: JSONObject
    /// False on a cancel path, which no cancel interrupts.
    let cancellable: Bool
    /// The custom guard whose check the call is; nil for a state's own call.
    let guardName: String?
    /// The run's secrets, which the call's result is redacted of for the recording; nil when the run shows secrets.
    let redaction: SecretValues?
    /// Why the call fails before the hub sees it (an onboarding payload argument that is not a valid code); nil when
    /// it is made.
    let refusal: FlowError?
    /// What the run warns about in the arguments of the state's first attempt (``OperationDescriptor/argumentWarnings``,
    /// and what a valid onboarding payload holds that this version does not define); empty on later attempts.
    let warnings: [String]

    init(
        operation: PlannedCall, arguments: JSONObject, timeout: Duration, context: HubCallContext, state: String,
        path: [String], attempt: Int, shownArguments: JSONObject, cancellable: Bool, guardName: String? = nil,
        redaction: SecretValues? = nil, refusal: FlowError? = nil, warnings: [String] = []
    ) {
        self.guardName = guardName
        self.redaction = redaction
        self.refusal = refusal
        self.warnings = warnings
        self.operation = operation
        self.arguments = arguments
        self.timeout = timeout
        self.context = context
        self.state = state
        self.path = path
        self.attempt = attempt
        self.shownArguments = shownArguments
        self.cancellable = cancellable
    }
}

/// A wait state's wait: which event ends it, and when it times out.
struct EventWait: Sendable {
    let event: String
    /// Fields the event must carry, with these values.
    let fields: [(name: String, value: JSONValue)]
    let timeout: Duration
    /// False on a cancel path, which no cancel interrupts.
    let cancellable: Bool

    /// Whether a hub event ends the wait.
    func matches(_ candidate: HubEvent) -> Bool {
        candidate.name == event
            && fields.allSatisfy { name, value in candidate.fields[name].map { Scope.equal($0, value) } ?? false }
    }
}

/// How a wait for an event ended, as fed to ``RunMachine/waitEnded(_:)``.
enum WaitEnd: Sendable {
    case event(HubEvent)
    case timedOut
    /// A cancel ended the wait (only a cancellable one).
    case cancelled
}

/// The actions of one input, in order: its notes (reports, checkpoints, an interruption), then the work whose end is
/// the machine's next input, if any (see ``RunAction``).
///
/// The work is kept apart from the notes, so that a run nobody observes or records, whose inputs each produce one
/// piece of work and no note, hands its driver that work without allocating a list.
struct RunActions: Sendable, RandomAccessCollection {
    /// Reports, checkpoints and interruptions, in order.
    private(set) var notes: [RunAction] = []
    /// The piece of work the actions end with.
    private(set) var work: RunAction?

    /// Adds an action; a piece of work ends the list (the machine hands over at most one per input).
    mutating func append(_ action: RunAction) {
        if action.isWork {
            work = action
        } else {
            notes.append(action)
        }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { notes.count + (work == nil ? 0 : 1) }

    subscript(position: Int) -> RunAction {
        if position < notes.count { return notes[position] }
        guard position == notes.count, let work else { preconditionFailure("action \(position) is out of range") }
        return work
    }
}
