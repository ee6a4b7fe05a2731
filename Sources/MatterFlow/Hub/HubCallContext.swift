/// What a hub may know about the call it is serving: which run makes it, for which element of a concurrent map
/// state, and the call's idempotency key.
///
/// Every run sets it around each of its operation calls (not around the guards' status checks): the engine with
/// keys `<runID>/<n>` numbering the run's calls (a run continued from a journal goes on after the calls it had
/// made), unless an outer layer has already set one. Inside an element of a map state that runs elements at once
/// (`concurrency` above 1), the context names the element (``element``) and its keys number that element's calls
/// (`<runID>/<element>/<n>`): the element is the unit whose calls never overlap. Hubs read ``HubCallContext/current`` to tag what a call
/// creates with its run (the simulated hub records the run that opened a commissioning session, so recovery can
/// tell that session from another client's), or to recognise a call they have already served. Outside a run's
/// calls it is nil.
///
/// A call made inside a commissioning session the run opened (``OperationDescriptor/usesSession``) also carries
/// that session's ID (``expectedSessionID``): the one the run's last `prepareCommissioning` returned, at any
/// sub-workflow level. A hub that can should serve such a call only in that session: when the structure's
/// active session is another one (the run's session ended and another client opened a new one), it should
/// refuse the call with `failedPrecondition` / `noActiveSession`, and `cancelCommissioning` should release
/// nothing and return false. The simulated hub does so.
public struct HubCallContext: Sendable, Hashable {
    /// The run making the call.
    public var runID: String
    /// Unique per call of the run: `<runID>/<n>` for its n-th hub call.
    public var idempotencyKey: String
    /// The commissioning session the call is made in, for calls that need one (request, commission, configure,
    /// complete, cancel) once the run has opened a session; nil otherwise.
    public var expectedSessionID: String?
    /// The element of a concurrent map state making the call: the map state's qualified name and the element's
    /// index (`readEach[2]`; `outer/inner[2][0]` for element 0 of a concurrent map `inner` run by element 2 of a
    /// one-at-a-time map `outer`: a concurrent map's body runs no concurrent map; `poll/readEach#2[0]` in the second
    /// iteration of a repeat state `poll` around the map); nil for the run's other calls. Calls with
    /// different elements may overlap; calls with the same run and element never do.
    public var element: String?
    /// How long the run waits for the call before it cancels it (the state's `timeoutSeconds`, on the run's
    /// clock); nil when not known. A hub client that bounds a call by real time keeps its bound above this, so
    /// the run's own timeout, its cancel and the run's wait for the call to end all come first.
    public var timeout: Duration?

    /// The context of a call of run `runID` with `idempotencyKey`; the rest is nil unless given.
    public init(
        runID: String, idempotencyKey: String, expectedSessionID: String? = nil, element: String? = nil,
        timeout: Duration? = nil
    ) {
        self.runID = runID
        self.idempotencyKey = idempotencyKey
        self.expectedSessionID = expectedSessionID
        self.element = element
        self.timeout = timeout
    }

    /// The context of the call being served on this task, if any.
    @TaskLocal public static var current: HubCallContext?

    /// The key of a run's release of a session the hub opened for it late (after the run stopped waiting for the
    /// call that opened it): `<runID>/late-release/<sessionID>`. The run journals no intent for that release.
    public static func lateReleaseKey(runID: String, sessionID: String) -> String {
        "\(runID)/late-release/\(sessionID)"
    }

    /// Whether this is the context of a run's release of a session the hub opened for it late
    /// (``lateReleaseKey(runID:sessionID:)``).
    public var releasesLateSession: Bool {
        expectedSessionID.map { idempotencyKey == Self.lateReleaseKey(runID: runID, sessionID: $0) } ?? false
    }
}
