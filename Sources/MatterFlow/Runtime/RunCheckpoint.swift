import MatterFlowJSON

/// Where one workflow level of a run stood as it entered a state, or as a map, repeat or retry in that state moved
/// on: the state, the level's variables and error, and whether it was on its cancel path.
///
/// A run reports a checkpoint for its innermost level each time it enters a state (``RunOptions/checkpoints``); the
/// journal keeps them, so that recovery can continue an interrupted run (or take its cancel path) from where it
/// stopped with ``WorkflowEngine/resume(_:from:on:options:)``.
public struct RunCheckpoint: Sendable, Hashable {
    /// The workflow names from the run's workflow down to this level, as in ``RunEvent/workflowPath``.
    public var workflowPath: [String]
    /// The state being entered.
    public var state: String
    /// The level's inputs, resolved (defaults filled in). Secret values are ``RunOptions/redacted`` unless the run
    /// shows secrets.
    public var inputs: JSONObject
    /// The level's variables. Secret values are ``RunOptions/redacted`` unless the run shows secrets.
    public var variables: JSONObject
    /// What the level's templates read as `${error}`, when it is set.
    public var error: FlowError?
    /// The state the level was cancelled in, once it is on its cancel path.
    public var cancelledIn: String?
    /// Whether the level runs inside an outer level's cancel path (and so is never cancelled again).
    public var shielded: Bool
    /// In a map state about to run an element: which one, and the results of those before it (for a map that runs
    /// elements at once: those running, and the results of those that ended); after the map's first checkpoint, only
    /// the results new since its previous one (see ``folded(onto:)``).
    public var map: MapCheckpoint?
    /// For a level inside an element of a map state that runs elements at once: the element
    /// (``HubCallContext/element``, `readEach[2]`); nil elsewhere. The elements' checkpoints interleave in the
    /// journal, and this tells them apart.
    public var element: String?
    /// In a repeat state about to run its body: which iteration (from 1), so that a resumed repeat continues its
    /// count and `maxIterations` bounds the whole run.
    public var repeatIteration: Int?
    /// In a state whose step is about to be tried again: its attempt and the retries its retriers had allowed, so
    /// that a resumed step continues its count and `maxRetries` bounds the whole run; nil before a retry.
    public var retry: StepRetries?

    /// A checkpoint of the level `workflowPath` entering `state`; the defaults are those of a level off any cancel
    /// path, outside map and repeat states, with no error set.
    public init(
        workflowPath: [String], state: String, inputs: JSONObject, variables: JSONObject, error: FlowError? = nil, cancelledIn: String? = nil,
        shielded: Bool = false, map: MapCheckpoint? = nil, element: String? = nil, repeatIteration: Int? = nil,
        retry: StepRetries? = nil
    ) {
        self.map = map
        self.retry = retry
        self.element = element
        self.repeatIteration = repeatIteration
        self.workflowPath = workflowPath
        self.state = state
        self.inputs = inputs
        self.variables = variables
        self.error = error
        self.cancelledIn = cancelledIn
        self.shielded = shielded
    }

    /// Whether the level was on a cancel path (its own, or an outer level's).
    public var onCancelPath: Bool { cancelledIn != nil || shielded }

    /// This checkpoint with its map state's results whole: a map's checkpoint after its first lists only the results
    /// of the elements that ended since (``MapCheckpoint/earlier``), and `previous` is the same level's checkpoint
    /// before it (folded itself). Itself when it leaves no result out; nil when `previous` is not the same map
    /// state's checkpoint or does not hold the results left out. A caller that keeps a run's checkpoints to resume it
    /// keeps, per level, each checkpoint folded onto the one it replaces.
    public func folded(onto previous: RunCheckpoint) -> RunCheckpoint? {
        guard let map, map.earlier > 0 else { return self }
        guard previous.workflowPath == workflowPath, previous.state == state, previous.element == element,
            let earlier = previous.map, let whole = map.folded(onto: earlier)
        else { return nil }
        var folded = self
        folded.map = whole
        return folded
    }

    /// The checkpoint as the journal stores it.
    public var jsonValue: JSONValue {
        var object: JSONObject = [
            "workflow": .string(workflowPath.joined(separator: "/")), "state": .string(state), "inputs": .object(inputs), "vars": .object(variables),
            "error": error.map(Scope.json) ?? .null, "cancelledIn": cancelledIn.map(JSONValue.string) ?? .null,
            "shielded": .bool(shielded), "map": map?.jsonValue ?? .null,
            "repeat": repeatIteration.map { ["iteration": .int($0)] } ?? .null,
        ]
        if let element { object["element"] = .string(element) }
        if let retry { object["retry"] = retry.jsonValue }
        return .object(object)
    }

    /// Reads a checkpoint stored with ``jsonValue``; nil when the value is not one.
    public init?(json: JSONValue) {
        guard let workflow = json["workflow"]?.stringValue, let state = json["state"]?.stringValue,
            let inputs = json["inputs"]?.objectValue, let variables = json["vars"]?.objectValue
        else { return nil }
        var error: FlowError?
        if let object = json["error"], !object.isNull {
            guard let read = FlowError(checkpointJSON: object) else { return nil }
            error = read
        }
        var map: MapCheckpoint?
        if let progress = json["map"], !progress.isNull {
            guard let read = MapCheckpoint(json: progress) else { return nil }
            map = read
        }
        var iteration: Int?
        if let progress = json["repeat"], !progress.isNull {
            guard let read = progress["iteration"]?.intValue, RepeatIteration.iterationLimit.contains(Double(read)) else { return nil }
            iteration = read
        }
        var retry: StepRetries?
        if let counts = json["retry"], !counts.isNull {
            guard let read = StepRetries(json: counts) else { return nil }
            retry = read
        }
        self.init(
            workflowPath: workflow.split(separator: "/").map(String.init), state: state, inputs: inputs, variables: variables, error: error,
            cancelledIn: json["cancelledIn"]?.stringValue, shielded: json["shielded"]?.boolValue ?? false, map: map,
            element: json["element"]?.stringValue, repeatIteration: iteration, retry: retry)
    }
}

/// Where a resumed run continues (see ``WorkflowEngine/resume(_:from:on:options:)``).
public struct ResumePoint: Sendable {
    /// One checkpoint per level, outermost first: each level entering the state that runs the next one.
    public var levels: [RunCheckpoint]
    /// The innermost state's work had already finished with this result (an outcome the journal recorded, or a
    /// call recovery found applied): the state is not run again, its result is bound and the run moves on.
    public var completedStep: JSONValue?
    /// Take the cancel path at once instead of continuing: every level runs its `onCancel` states, innermost
    /// first, as a cancelled run does.
    public var cancel: Bool
    /// How many hub calls the run had made before it stopped: the continued run's calls are numbered after them
    /// (``HubCallContext/idempotencyKey`` `<runID>/<n>`), so no key is given twice.
    public var callsBefore: Int
    /// The commissioning session the run had opened, which its continued session calls are made in
    /// (``HubCallContext/expectedSessionID``); nil when it opened none.
    public var sessionID: String?
    /// Whether the run still holds ``sessionID``: false when the session ended before the run stopped (its workflow
    /// completed or cancelled it) or lapsed on the hub since. A run that does not hold it releases a session its
    /// hub opens late (a prepare answered after its timeout) before it ends; one that holds it keeps its own.
    /// Unless set, it is whether ``sessionID`` is set.
    public var holdsSession: Bool {
        get { heldSession ?? (sessionID != nil) }
        set { heldSession = newValue }
    }
    private var heldSession: Bool?
    /// When the innermost level is in a map state that runs elements at once: where each element that had started
    /// its body stood. The innermost checkpoint's ``MapCheckpoint/running`` lists the elements running; one listed
    /// there without a point here had entered no state yet, and starts its body afresh.
    public var elements: [ElementPoint] = []
    /// The number of the last call the elements of each map state that runs elements at once had made, by the map
    /// as its elements' names begin (``HubCallContext/element`` without its last `[index]`; the highest `<n>` of their
    /// keys `<runID>/<element>/<n>`): an element started again (its map run again by a retried sub-workflow state)
    /// numbers its calls after it, so no key is given twice.
    public var elementCalls: [String: Int] = [:]
    /// Values the continued run treats as secrets, beyond its secret inputs: secret answers given again, which the
    /// levels' variables hold (redacted wherever the run shows them, as when they were first given).
    public var secretValues: [JSONValue] = []
    /// How long the innermost state had been waiting when the run stopped (over all its earlier lives, by wall
    /// time): an ask state's question, a wait state's event, a delay state's fixed delay. The continued run waits
    /// only what is left of the timeout or delay, so that a run handed from worker to worker still times out. Nil:
    /// the state was not waiting. A delay until a moment ignores it (the moment is the same in every life).
    public var waited: Duration?

    ///
    /// A level's checkpoint may lack inputs (secret values the journal never kept): a sub-workflow level gets them
    /// again from its parent's restored scope where the parent's templates can still produce them; a reference to
    /// one that stays missing fails the state with `unresolvedReference`. Without `holdsSession`, the run holds
    /// `sessionID` when one is given.
    public init(
        levels: [RunCheckpoint], completedStep: JSONValue? = nil, cancel: Bool, callsBefore: Int = 0, sessionID: String? = nil,
        holdsSession: Bool? = nil
    ) {
        self.levels = levels
        self.completedStep = completedStep
        self.cancel = cancel
        self.callsBefore = callsBefore
        self.sessionID = sessionID
        heldSession = holdsSession
    }
}

/// Where one running element of a concurrent map state continues (see ``ResumePoint/elements``).
public struct ElementPoint: Sendable {
    /// The element's index in the map's items.
    public var index: Int
    /// One checkpoint per level of the element, its body's level first (each ``RunCheckpoint/element`` names it).
    public var levels: [RunCheckpoint]
    /// The element's innermost state's work had already finished with this result (see
    /// ``ResumePoint/completedStep``).
    public var completedStep: JSONValue?
    /// How many hub calls the element had made: its continued calls are numbered after them
    /// (`<runID>/<element>/<n>`).
    public var callsBefore: Int

    /// Where element `index` continues from, its body's level first; the defaults are those of an element whose
    /// state's work had not finished and that had made no hub call.
    public init(index: Int, levels: [RunCheckpoint], completedStep: JSONValue? = nil, callsBefore: Int = 0) {
        self.index = index
        self.levels = levels
        self.completedStep = completedStep
        self.callsBefore = callsBefore
    }
}

extension ResumePoint {
    /// Checks that every level's checkpoint names a state of the workflow it belongs to, and that each outer level
    /// is in the sub-workflow state that runs the next level.
    func check(against workflow: Workflow) throws(FlowError) {
        guard let first = levels.first else {
            throw FlowError(.invalidArgumentValue, "the resume point has no checkpoint; there is nothing to continue from")
        }
        var current = workflow
        var path = [workflow.name]
        for (index, level) in levels.enumerated() {
            guard level.workflowPath == path else {
                throw FlowError(
                    .invalidArgumentValue,
                    "checkpoint \(index + 1) is for workflow \(level.workflowPath.joined(separator: "/")), but \(first.workflowPath.first ?? "?") runs \(path.joined(separator: "/")) there; the workflow files changed since the run")
            }
            guard let state = current.states[level.state] else {
                throw FlowError(
                    .invalidArgumentValue,
                    "workflow \(current.name) (\(current.file)) has no state \"\(level.state)\" any more; the workflow files changed since the run")
            }
            guard index + 1 < levels.count else { break }
            guard case .workflow(let subworkflow) = state.kind, let child = current.subworkflows[subworkflow.path] else {
                throw FlowError(
                    .invalidArgumentValue,
                    "state \(level.state) of \(current.name) does not run a sub-workflow, yet the run had entered one from it; the workflow files changed since the run")
            }
            current = child
            path.append(child.name)
        }
    }
}

extension FlowError {
    /// Reads an error a checkpoint stored (``jsonValue``): `code`, and `cause`, `message` and `state` when present
    /// (a missing cause reads as `workflowFailed`); nil when the value is not an object with a known code.
    init?(checkpointJSON json: JSONValue) {
        guard let object = json.objectValue, let code = object["code"]?.stringValue.flatMap(ErrorCode.init(rawValue:)) else { return nil }
        self.init(
            code: code, cause: ErrorCause(rawValue: object["cause"]?.stringValue ?? ErrorCause.workflowFailed.rawValue),
            message: object["message"]?.stringValue ?? "", state: object["state"]?.stringValue)
    }
}
