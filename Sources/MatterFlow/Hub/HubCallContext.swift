/// What a hub may know about the call it is serving: which run makes it and the call's idempotency key.
///
/// A journaled run (`MatterFlowJournal`) sets it around every hub call. Hubs read ``HubCallContext/current`` to
/// tag what a call creates with its run (the simulated hub records the run that opened a commissioning session,
/// so recovery can tell that session from another client's), or to recognise a call they have already served.
/// Outside a journaled run it is nil.
public struct HubCallContext: Sendable, Hashable {
    /// The run making the call.
    public var runID: String
    /// Unique per call of the run: `<runID>/<n>` for its n-th hub call.
    public var idempotencyKey: String

    public init(runID: String, idempotencyKey: String) {
        self.runID = runID
        self.idempotencyKey = idempotencyKey
    }

    /// The context of the call being served on this task, if any.
    @TaskLocal public static var current: HubCallContext?
}
