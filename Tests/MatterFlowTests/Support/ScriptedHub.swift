import MatterFlow
import MatterFlowJSON
import Synchronization
import TestGates

/// A hub whose answers tests script per operation and attempt, recording every call.
final class ScriptedHub: Hub {
    enum Answer: Sendable {
        case succeed
        case fail(FlowError)
        /// Never answers until cancelled.
        case hang
        /// Answers successfully once the gate opens, even if the call was cancelled meanwhile.
        case afterGate(Gate)
        /// Answers successfully after sleeping on the clock (throws when cancelled first).
        case sleep(Duration, any WorkflowClock)
        /// Fails after sleeping on the clock.
        case failAfter(Duration, any WorkflowClock, FlowError)
    }

    /// A one-shot gate a test opens to let a held call finish.
    typealias Gate = TestGates.Gate

    private struct State {
        var scripts: [String: [Answer]] = [:]
        var calls: [String] = []
        var status = HubStatus(online: true, reachable: true, permissionGranted: true, activeSession: false)
        var session = CommissioningSession()
        var handlers: [@Sendable (HubEvent) -> Void] = []
        /// Calls answering now.
        var inFlight = 0
        /// Calls that began while another call was still answering.
        var overlapping: [String] = []
        /// The `commissioningID` of every `commissionDevice` call, in order.
        var commissioningIDs: [String] = []
        /// The onboarding payload of every `commissionDevice` call, in order.
        var onboardingPayloads: [String] = []
        /// Answers for `readBasicInformation` by device ID, used before the operation's script.
        var deviceAnswers: [String: Answer] = [:]
        /// The most calls answering at once.
        var maxInFlight = 0
        /// Calls answering now, by the element their context names (`""` for none).
        var inFlightByElement: [String: Int] = [:]
        /// Calls that began while another call of the same run and element was still answering.
        var sameElementOverlaps: [String] = []
        /// The context of every call, in order.
        var contexts: [HubCallContext?] = []
        /// The device of every `readBasicInformation` call, in order.
        var readDevices: [String] = []
        /// The name of the task that served every call (nil: unnamed), in order.
        var servingTasks: [String?] = []
    }

    private let state = Mutex(State())

    /// Answers for successive calls of an operation; once used up, calls succeed.
    func script(_ operation: String, _ answers: [Answer]) {
        state.withLock { $0.scripts[operation] = answers }
    }

    func setStatus(_ status: HubStatus) {
        state.withLock { $0.status = status }
    }

    var calls: [String] { state.withLock { $0.calls } }
    /// The onboarding payload of every `commissionDevice` call, in order.
    var onboardingPayloads: [String] { state.withLock { $0.onboardingPayloads } }
    var session: CommissioningSession { state.withLock { $0.session } }

    func count(_ operation: String) -> Int { calls.filter { $0 == operation }.count }

    /// Calls that began while another call was still answering (the engine promises there are none).
    var overlapping: [String] { state.withLock { $0.overlapping } }

    /// The `commissioningID` of every `commissionDevice` call, in order.
    var commissioningIDs: [String] { state.withLock { $0.commissioningIDs } }

    /// Answers `readBasicInformation` for one device (before the operation's script).
    func script(device: String, _ answer: Answer) {
        state.withLock { $0.deviceAnswers[device] = answer }
    }

    /// The most calls that were answering at once.
    var maxInFlight: Int { state.withLock { $0.maxInFlight } }
    /// Calls that began while another call of the same run and element was answering (the engine promises none).
    var sameElementOverlaps: [String] { state.withLock { $0.sameElementOverlaps } }
    /// The context of every call, in order.
    var contexts: [HubCallContext?] { state.withLock { $0.contexts } }
    /// The name of the task that served every call (nil: unnamed), in order.
    var servingTasks: [String?] { state.withLock { $0.servingTasks } }
    /// The device of every `readBasicInformation` call, in order.
    var readDevices: [String] { state.withLock { $0.readDevices } }

    private func answer(_ operation: String, device: String? = nil) async throws {
        let context = HubCallContext.current
        let element = (context?.runID ?? "") + "|" + (context?.element ?? "")
        let task = Task.name
        let next = state.withLock { state -> Answer in
            state.calls.append(operation)
            state.servingTasks.append(task)
            state.contexts.append(context)
            if let device { state.readDevices.append(device) }
            if state.inFlight > 0 { state.overlapping.append(operation) }
            if state.inFlightByElement[element, default: 0] > 0 { state.sameElementOverlaps.append(operation) }
            state.inFlight += 1
            state.inFlightByElement[element, default: 0] += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            if let device, let answer = state.deviceAnswers[device] { return answer }
            guard var answers = state.scripts[operation], !answers.isEmpty else { return .succeed }
            let first = answers.removeFirst()
            state.scripts[operation] = answers
            return first
        }
        defer {
            state.withLock { state in
                state.inFlight -= 1
                state.inFlightByElement[element, default: 0] -= 1
            }
        }
        switch next {
        case .succeed: return
        case .fail(let error): throw error
        case .hang:
            try await Task.sleep(for: .seconds(1_000_000))
        case .afterGate(let gate):
            await gate.wait()
        case .sleep(let duration, let clock):
            try await clock.sleep(for: duration)
        case .failAfter(let duration, let clock, let error):
            try await clock.sleep(for: duration)
            throw error
        }
    }

    private func withSession<T>(_ body: (inout CommissioningSession) throws(FlowError) -> T) throws(FlowError) -> T {
        try state.withLock { state throws(FlowError) -> T in try body(&state.session) }
    }

    func status(structure: StructureID) async throws -> HubStatus {
        try await answer("status")
        return state.withLock { state in
            var status = state.status
            status.activeSession = status.activeSession || state.session.isActive
            return status
        }
    }

    func prepareCommissioning(structure: StructureID) async throws -> String {
        try await answer("prepareCommissioning")
        try withSession { session throws(FlowError) in try session.prepare(sessionID: "session-1") }
        return "session-1"
    }

    func createAddDeviceRequest(structure: StructureID, topology: Topology) async throws -> AddDeviceRequest {
        try await answer("createAddDeviceRequest")
        let resolved = Topology(ecosystemName: topology.ecosystemName, homes: topology.homes.isEmpty ? ["Test Home"] : topology.homes)
        return try withSession { session throws(FlowError) in
            try session.request(AddDeviceRequest(requestID: "request-1", topology: resolved))
        }
    }

    func commissionDevice(structure: StructureID, onboardingPayload: String, commissioningID: String) async throws {
        state.withLock {
            $0.commissioningIDs.append(commissioningID)
            $0.onboardingPayloads.append(onboardingPayload)
        }
        try withSession { session throws(FlowError) in try session.beginCommissioning(commissioningID: commissioningID) }
        do {
            try await answer("commissionDevice")
        } catch {
            try? withSession { session throws(FlowError) in try session.failCommissioning() }
            throw error
        }
        try withSession { session throws(FlowError) in try session.finishCommissioning(deviceIDs: ["device-1"]) }
    }

    func fetchRooms(structure: StructureID) async throws -> [Room] {
        try await answer("fetchRooms")
        return [Room(id: "room-1", name: "Kitchen"), Room(id: "room-2", name: "Office")]
    }

    func configureDevice(structure: StructureID, name: String, roomName: String?) async throws {
        try await answer("configureDevice")
        try withSession { session throws(FlowError) in try session.configure(name: name, roomName: roomName) }
    }

    func completeCommissioning(structure: StructureID) async throws -> [String] {
        try await answer("completeCommissioning")
        return try withSession { session throws(FlowError) in try session.complete() }
    }

    func cancelCommissioning(structure: StructureID) async throws -> Bool {
        try await answer("cancelCommissioning")
        return try withSession { session in session.cancel() != nil }
    }

    func subscribe(structure: StructureID, _ handler: @escaping @Sendable (HubEvent) -> Void) async -> any HubEventSubscription {
        state.withLock { $0.handlers.append(handler) }
        return NoEvents()
    }

    /// Delivers an event to every subscriber.
    func emit(_ name: String, value: String, fields: JSONObject) {
        let handlers = state.withLock { $0.handlers }
        for handler in handlers { handler(HubEvent(name: name, structureID: "s", value: value, fields: fields, time: .zero)) }
    }

    var subscriberCount: Int { state.withLock { $0.handlers.count } }

    func basicInformation(structure: StructureID, deviceID: String) async throws -> BasicInformation {
        try await answer("readBasicInformation", device: deviceID)
        return BasicInformation(vendorName: "Test", vendorID: 0xFFF1, productID: 0x8000, productName: "Lamp", softwareVersion: 1)
    }
}
