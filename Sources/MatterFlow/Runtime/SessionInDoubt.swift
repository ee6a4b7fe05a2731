import MatterFlowJSON

/// A commissioning session a run may have left open on the hub: the run released it, or meant to, and the hub did
/// not confirm the release (the call failed or went unanswered), or the hub opened it after the run had stopped
/// waiting and releasing it failed. Until the hub's session lease ends it, or someone cancels it, the structure
/// refuses another `prepareCommissioning` with `sessionBusy`.
///
/// Each is also one of the result's ``RunResult/warnings``, in the same words: a service that acts on them (cancels
/// the session on the structure, or alerts someone) reads them here rather than matching warning text.
public struct SessionInDoubt: Sendable, Hashable {
    /// The session's ID, when the run knows it; nil when the run could not read the answer that would have named it.
    public var sessionID: String?
    /// What happened and what to do, as the run's warning says it (redacted as the warnings are).
    public var reason: String

    /// A session in doubt with these members.
    public init(sessionID: String?, reason: String) {
        self.sessionID = sessionID
        self.reason = reason
    }

    /// `{"sessionID": string|null, "reason": string}`.
    public var jsonValue: JSONValue {
        ["sessionID": sessionID.map(JSONValue.string) ?? .null, "reason": .string(reason)]
    }
}
