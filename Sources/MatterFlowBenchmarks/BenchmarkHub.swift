import MatterFlow
import Synchronization

/// A hub that answers at once from memory, so a benchmark measures the engine, not a hub.
final class BenchmarkHub: Hub {
    private let sessions = Mutex<[StructureID: CommissioningSession]>([:])
    private let counter = Atomic<Int>(0)

    private func withSession<T>(_ structure: StructureID, _ body: (inout CommissioningSession) throws(FlowError) -> T) throws(FlowError) -> T {
        try sessions.withLock { sessions throws(FlowError) -> T in
            try body(&sessions[structure, default: CommissioningSession()])
        }
    }

    func status(structure: StructureID) async throws -> HubStatus {
        let active = sessions.withLock { $0[structure]?.isActive ?? false }
        return HubStatus(online: true, reachable: true, permissionGranted: true, activeSession: active)
    }

    func prepareCommissioning(structure: StructureID) async throws -> String {
        try withSession(structure) { session throws(FlowError) in try session.prepare(sessionID: "session") }
        return "session"
    }

    func createAddDeviceRequest(structure: StructureID, topology: Topology) async throws -> AddDeviceRequest {
        return try withSession(structure) { session throws(FlowError) in
            try session.request(AddDeviceRequest(requestID: "request", topology: topology))
        }
    }

    func commissionDevice(structure: StructureID, onboardingPayload: String, commissioningID: String) async throws {
        let id = "device-\(counter.add(1, ordering: .relaxed).newValue)"
        try withSession(structure) { session throws(FlowError) in
            try session.beginCommissioning(commissioningID: commissioningID)
            try session.finishCommissioning(deviceIDs: [id])
        }
    }

    func fetchRooms(structure: StructureID) async throws -> [Room] {
        [Room(id: "kitchen", name: "Kitchen")]
    }

    func configureDevice(structure: StructureID, name: String, roomName: String?) async throws {
        try withSession(structure) { session throws(FlowError) in try session.configure(name: name, roomName: roomName) }
    }

    func completeCommissioning(structure: StructureID) async throws -> [String] {
        try withSession(structure) { session throws(FlowError) in try session.complete() }
    }

    func cancelCommissioning(structure: StructureID) async throws -> Bool {
        sessions.withLock { $0[structure]?.cancel() != nil }
    }

    func basicInformation(structure: StructureID, deviceID: String) async throws -> BasicInformation {
        BasicInformation(vendorName: "Bench", vendorID: 0xFFF1, productID: 0x8000, productName: "Lamp", softwareVersion: 1)
    }
}
