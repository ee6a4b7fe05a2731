import MatterFlowJSON

/// A hub that commissions Matter devices into a structure: what MatterFlow's workflows drive.
///
/// Implement this to run MatterFlow against your own hub. Methods may throw ``FlowError`` to choose the code
/// and cause a workflow sees; any other error is reported as `internal` / `hubFailure` (a `CancellationError` too,
/// when the call was not cancelled). Implementations should honour task cancellation: the engine cancels a call
/// that exceeds its timeout or belongs to a cancelled run. On a ``VirtualClock`` time stands still while a call
/// runs, so a call that never returns holds its run: a hub whose calls may hang runs on a real clock.
/// The engine never calls two methods for the same run and call context at once: calls for different structures
/// (different runs) may overlap, and so may the calls of one run's elements of a `map` state that declares
/// `concurrency` K above 1. Then at most K calls of the run are in flight at once, each from a different element,
/// each naming its element in ``HubCallContext/element``; one element's calls never overlap, and no call outside
/// the elements overlaps them. Such a map's body never works in the commissioning session (the verifier refuses
/// it), so overlapping calls are reads and writes outside the session. Each call has its own
/// ``HubCallContext/idempotencyKey``, and the keys the engine generates for an operation's idempotency argument
/// name the element (`<runID>/<state>[<index>]`), whether the elements run at once or one after another.
///
/// A call the engine abandons (at its timeout, or because the run was cancelled) is cancelled and given 5 s to
/// end. If it is still running then, the run's next call (a retry, the next state, or the cancel path's release)
/// waits for it up to 30 s more. Only a call that ignores cancellation for all of that can overlap the run's next
/// call; the run then reports a warning saying the contract could not be kept.
public protocol Hub: Sendable {
    /// The hub's status and the structure's commissioning state; the guards are evaluated from it.
    func status(structure: StructureID) async throws -> HubStatus

    /// Verifies permission, hub reachability and that no other session is active, then opens a session.
    /// - Returns: the new session's identifier.
    func prepareCommissioning(structure: StructureID) async throws -> String

    /// Creates the add-device request for the open session. An empty `homes` means "the structure's own name".
    func createAddDeviceRequest(structure: StructureID, topology: Topology) async throws -> AddDeviceRequest

    /// Commissions the device described by an onboarding payload (QR or manual pairing code).
    func commissionDevice(structure: StructureID, onboardingPayload: String, commissioningID: String) async throws

    /// The structure's rooms, offered to the user during commissioning.
    func fetchRooms(structure: StructureID) async throws -> [Room]

    /// Names the commissioned device and, optionally, puts it in a room (by room name).
    func configureDevice(structure: StructureID, name: String, roomName: String?) async throws

    /// Completes commissioning and releases the session.
    /// - Returns: the IDs of every device commissioned (several for a bridge), sorted.
    func completeCommissioning(structure: StructureID) async throws -> [String]

    /// Cancels commissioning, undoing partial work and releasing the session.
    /// - Returns: whether a session was active and has been released (false: nothing to release).
    func cancelCommissioning(structure: StructureID) async throws -> Bool

    /// A device's basic information.
    func basicInformation(structure: StructureID, deviceID: String) async throws -> BasicInformation

    // MARK: - Border routers (each has a default reporting it unsupported: see `Hub+BorderRouter.swift`)

    /// The structure's border routers (device type ``borderRouterDeviceType``) with their supported traits.
    func borderRouters(structure: StructureID) async throws -> [BorderRouterDescription]

    /// One border router, by device ID: `deviceNotFound` for an unknown device, `notBorderRouter` for a device of
    /// another type. The default looks it up in ``borderRouters(structure:)``.
    func borderRouter(structure: StructureID, deviceID: String) async throws -> BorderRouterDescription

    /// A border router's `ThreadNetworkCapabilities`; `notSupported` when it lacks the trait.
    func threadCapabilities(structure: StructureID, deviceID: String) async throws -> ThreadCapabilities

    /// Activates ePSKc mode: absent or 0 seconds means 120, 1...600 are accepted, more is `invalidArgument`.
    func activateEpskc(structure: StructureID, deviceID: String, requestedDurationSeconds: Int?) async throws
        -> EpskcActivation

    /// Deactivates ePSKc mode at once (the deactivation event's reason is `cancelled`).
    func deactivateEpskc(structure: StructureID, deviceID: String) async throws

    /// Joins (or migrates to) the Thread network an Operational Dataset describes.
    func joinThreadNetwork(structure: StructureID, deviceID: String, operationalDataset: [UInt8]) async throws
        -> NetworkOperationResult

    /// Leaves the Thread network and forgets its dataset.
    func leaveThreadNetwork(structure: StructureID, deviceID: String) async throws -> NetworkOperationResult

    /// The structure's Thread network settings.
    func threadNetworkSettings(structure: StructureID) async throws -> ThreadNetworkSettings

    /// Sets the structure's internet-access option (needs permission).
    func setInternetAccess(structure: StructureID, option: InternetAccessOption) async throws -> ThreadNetworkSettings

    /// Delivers the structure's events to `handler` until the subscription is cancelled. Hubs call the handler
    /// from the task that made the event happen, so virtual time sees it (see ``WorkflowClock``).
    func subscribe(structure: StructureID, _ handler: @escaping @Sendable (HubEvent) -> Void) async
        -> any HubEventSubscription

    /// Performs a custom operation, declared in an operation catalog file (docs/operation-catalog.md), by name:
    /// arguments as the catalog declares them (already checked), the result as a JSON object of the declared shape.
    /// The default reports it unsupported (`unimplemented` / `notSupported`); see `Hub+CustomOperations.swift`.
    func perform(operation: String, structure: StructureID, arguments: JSONObject) async throws -> JSONValue

    /// What reads the structure's active session for recovery and the late-session checks: the hub itself when it
    /// is a ``RecoverableHub`` (the default), a ``ForwardingHub``'s base's when the wrapper is not one itself; nil
    /// when the hub cannot say whose a session is.
    var sessionReader: (any RecoverableHub)? { get }
}
