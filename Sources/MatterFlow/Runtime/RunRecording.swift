import MatterFlowJSON

/// What a run's driver tells a recorder, such as a write-ahead journal, as it performs the run machine's actions:
/// every report and checkpoint, and around every hub call the call as the hub will see it and how it ended.
///
/// The driver calls it on the task driving the run at the time, one call at a time and in the run's order (an
/// element of a concurrent map state: on the element's, through ``recording(forElement:)``): ``callStarting(_:)``
/// before the hub sees the call (so a record made there is on disk first), ``callEnded(_:value:)`` once the call's
/// race is decided and before the run takes the outcome (its `hubCallFinished` report follows). The run's
/// idempotency keys and the session its calls are made in are the machine's: a recorder reads them from
/// ``PreparedCall/context`` and keeps no count of its own.
public protocol RunRecording: Sendable {
    /// An event the run reports, as its observer gets it.
    func record(_ event: RunEvent)
    /// Where a level stands as it enters a state (secrets redacted unless the run shows them).
    func record(_ checkpoint: RunCheckpoint)
    /// A hub call about to be made. Returns the call's outcome to use instead of making it (the recorder refuses
    /// the call), or nil to make it.
    func callStarting(_ call: PreparedCall) async -> Result<JSONValue, FlowError>?
    /// A hub call's race was decided: `value` is its result when it finished, or when the run was cancelled while
    /// it ran and it still succeeded; nil when it failed, timed out or was cancelled without a result.
    func callEnded(_ call: PreparedCall, value: JSONValue?) async
    /// A call the run stopped waiting for (its timeout passed, or the run was cancelled and its grace period ran
    /// out) still succeeded on the hub, after ``callEnded(_:value:)``: what the hub did, for the record. Called
    /// from the call's own task, at any time, possibly after the run has ended.
    func lateResult(_ call: PreparedCall, value: JSONValue)
    /// The recording of one element of a map state that runs elements at once (`concurrency` above 1), named as
    /// its calls' contexts name it (``HubCallContext/element``). That element's driver tells it, on the element's
    /// task and in the element's order, what it tells the run's recording: the elements' calls and reports
    /// interleave, so a recorder that pairs a call with its `hubCallFinished` report pairs them per element. The
    /// default is this recording itself.
    func recording(forElement element: String) -> any RunRecording
    /// A secret question was accepted an answer, `value`, which the `answered` event reported next shows redacted:
    /// for a recording that keeps a digest of it, so that a resumed run can be given the answer again and check it.
    func secretAnswered(_ question: Question, value: JSONValue)
    /// The run's `runFinished` event, with its output as it may be kept (``RunResult/redactedOutput``): told
    /// instead of ``record(_:)`` for that event when the run's result is at hand. The default records the event.
    func recordEnd(_ event: RunEvent, output: JSONValue?)
}

extension RunRecording {
    /// Returns this recording itself: the element's calls and reports are told to the run's recording.
    public func recording(forElement element: String) -> any RunRecording { self }
    /// Keeps nothing of a secret answer.
    public func secretAnswered(_ question: Question, value: JSONValue) {}
    /// Records the event; the output is not kept.
    public func recordEnd(_ event: RunEvent, output: JSONValue?) { record(event) }
}

extension RunRecording {
    /// Makes `call` told to this recording: ``callStarting(_:)`` first (which may refuse the call, giving the outcome
    /// to use instead), then ``callEnded(_:value:)`` once the call's race is decided. `make` makes the call, handing a
    /// result that arrives after the race to ``lateResult(_:value:)`` through the closure it is given; it returns nil
    /// when another task took the call over (a run's ``CallSegment`` lost in it); this then returns nil and tells no
    /// end, which the task that took the call over tells. `context` is the context the hub sees.
    func recorded(
        _ call: RunCall, context: HubCallContext,
        make: (_ lateResult: @escaping @Sendable (JSONValue) -> Void) async -> RaceOutcome<JSONValue>?
    ) async -> RaceOutcome<JSONValue>? {
        let prepared = PreparedCall(call, context: context)
        let outcome: RaceOutcome<JSONValue>
        if let refused = await refusal(of: prepared) {
            outcome = refused
        } else {
            guard let made = await make({ value in self.lateResult(prepared, value: value) }) else { return nil }
            outcome = made
        }
        await callEnded(prepared, value: outcome.value)
        return outcome
    }

    /// ``recorded(_:context:make:)`` for a call no other task takes over (a ``RunPool``'s): it always ends here.
    func recorded(
        _ call: RunCall, context: HubCallContext,
        make: (_ lateResult: @escaping @Sendable (JSONValue) -> Void) async -> RaceOutcome<JSONValue>
    ) async -> RaceOutcome<JSONValue> {
        let prepared = PreparedCall(call, context: context)
        let outcome: RaceOutcome<JSONValue> =
            if let refused = await refusal(of: prepared) { refused } else { await make { value in self.lateResult(prepared, value: value) } }
        await callEnded(prepared, value: outcome.value)
        return outcome
    }

    /// The outcome ``callStarting(_:)`` gives instead of the call, if it refuses it.
    private func refusal(of prepared: PreparedCall) async -> RaceOutcome<JSONValue>? {
        switch await callStarting(prepared) {
        case .success(let value)?: .finished(value)
        case .failure(let error)?: .failed(error)
        case nil: nil
        }
    }
}

extension RaceOutcome {
    /// The value a recording is told a call ended with (``RunRecording/callEnded(_:value:)``): its result when it
    /// finished, or when the run was cancelled while it ran and it still succeeded; else nil.
    var value: Value? {
        switch self {
        case .finished(let result): result
        case .cancelled(let late): late
        case .failed, .timedOut: nil
        }
    }
}

/// A hub call as the run prepared it: where it is made, the operation with every declared fact, the arguments as
/// reports show them, and the context the hub sees.
public struct PreparedCall: Sendable {
    /// The workflow names from the run's workflow down to the level making the call.
    public let workflowPath: [String]
    /// The state making the call.
    public let state: String
    /// The attempt's number, from 1.
    public let attempt: Int
    /// The operation called, with every fact its descriptor declares.
    public let operation: OperationDescriptor
    /// The evaluated arguments, secret ones redacted unless the run shows secrets.
    public let shownArguments: JSONObject
    /// The run's ID, the call's idempotency key and the session the call is made in.
    public let context: HubCallContext
    /// The custom guard the call checks, when it is a guard's read rather than the state's own call.
    public let guardName: String?
    /// The run's secrets, which ``shownResult(_:)`` redacts; nil for a call built outside a run.
    let redaction: SecretValues?

    /// A call built outside a run: ``shownResult(_:)`` redacts only the operation's secret result fields, knowing no
    /// run secrets. `guardName` is nil for a state's own call.
    public init(
        workflowPath: [String], state: String, attempt: Int, operation: OperationDescriptor, shownArguments: JSONObject,
        context: HubCallContext, guardName: String? = nil
    ) {
        self.init(
            workflowPath: workflowPath, state: state, attempt: attempt, operation: operation, shownArguments: shownArguments,
            context: context, guardName: guardName, redaction: nil)
    }

    /// A run's call as the hub sees it with `context`.
    init(_ call: RunCall, context: HubCallContext) {
        self.init(
            workflowPath: call.path, state: call.state, attempt: call.attempt, operation: call.operation.operation,
            shownArguments: call.shownArguments, context: context, guardName: call.guardName, redaction: call.redaction)
    }

    init(
        workflowPath: [String], state: String, attempt: Int, operation: OperationDescriptor, shownArguments: JSONObject,
        context: HubCallContext, guardName: String?, redaction: SecretValues?
    ) {
        self.redaction = redaction
        self.guardName = guardName
        self.workflowPath = workflowPath
        self.state = state
        self.attempt = attempt
        self.operation = operation
        self.shownArguments = shownArguments
        self.context = context
    }

    /// A result of this call as a record keeps it when the run does not show secrets: the operation's secret
    /// result fields redacted whole, and every secret value the run holds wherever the result carries it (a hub
    /// that echoes an argument, a custom operation's field not declared secret).
    public func shownResult(_ value: JSONValue) -> JSONValue {
        var shown = value
        if var object = value.objectValue {
            // The result's own secrets are the run's too (the run adds them as it takes the result, after this):
            // another field quoting one is redacted.
            for field in operation.secretResultFields {
                guard let secret = object[field] else { continue }
                redaction?.add(secret)
                object[field] = .string(RunOptions.redacted)
            }
            shown = .object(object)
        }
        return redaction?.redacting(shown) ?? shown
    }
}
