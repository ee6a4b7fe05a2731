import MatterFlowJSON
/// An error as workflows see it: a canonical code, a specific cause, a message a person can act on, and the
/// state it came from.
public struct FlowError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The canonical code (the Home APIs' set) that `onError` entries and retriers match.
    public var code: ErrorCode
    /// The specific cause (`sessionBusy`, `hubOffline`, ...), which entries may match more finely than the code.
    public var cause: ErrorCause
    /// What happened and what to do, for a person.
    public var message: String
    /// The state that raised the error (qualified by sub-workflow, `parent/child`), once the engine knows it.
    public var state: String?
    /// Who holds the structure's commissioning session, for a `sessionBusy` whose raiser knew (see
    /// ``sessionBusy(heldBy:)``); the message names it too. Not part of ``jsonValue``: workflows and records see the
    /// message, so an error read back from JSON has none.
    public var sessionHolder: SessionHolder?

    /// An error with this code and cause, as when a hub reports a cause under a code other than its canonical one.
    public init(code: ErrorCode, cause: ErrorCause, message: String, state: String? = nil) {
        self.code = code
        self.cause = cause
        self.message = message
        self.state = state
    }

    /// An error for a known cause, with the cause's canonical code.
    public init(_ cause: ErrorCause, _ message: String) {
        self.init(code: cause.code ?? .unknown, cause: cause, message: message)
    }

    /// `code (cause): message`.
    public var description: String { "\(code.rawValue) (\(cause.rawValue)): \(message)" }

    /// Whether an error-route or retry name matches this error: `*`, its code, or its cause.
    public func matches(_ name: String) -> Bool {
        name == "*" || name == code.rawValue || name == cause.rawValue
    }

    /// Converts any error thrown by a hub into a ``FlowError``.
    public static func from(_ error: any Error) -> FlowError {
        if let flowError = error as? FlowError { return flowError }
        if error is CancellationError {
            return FlowError(.runCancelled, "the operation was cancelled")
        }
        return FlowError(.hubFailure, "the hub failed: \(error)")
    }

    /// Converts an error a hub threw from a call made on the current task: a `CancellationError` while the task was
    /// not cancelled (the hub's own work was cancelled, not the run's call) is a `hubFailure`, not the run's cancel.
    static func fromHubCall(_ error: any Error) -> FlowError {
        guard error is CancellationError, !Task.isCancelled else { return from(error) }
        return FlowError(.hubFailure, "the hub failed: it threw CancellationError though its call was not cancelled")
    }
}

extension FlowError {
    /// The error as run results, journals and stores show it: `{"code", "cause", "message", "state"}` (`state` null
    /// when it arose in no state).
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["code"] = .string(code.rawValue)
        object["cause"] = .string(cause.rawValue)
        object["message"] = .string(message)
        object["state"] = state.map(JSONValue.string) ?? .null
        return .object(object)
    }
}
