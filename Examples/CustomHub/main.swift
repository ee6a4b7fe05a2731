// An embedding example: a service with its own hub runs the shipped commission-device workflow on two
// structures at once, watching each run's events.
//
//     swift run custom-hub-example [path/to/Workflows]

import Foundation
import MatterFlow
import MatterFlowJSON

/// A tiny in-memory hub: one commissioning session per structure, enforced by MatterFlow's session state machine.
actor InMemoryHub: Hub {
    private var sessions: [StructureID: CommissioningSession] = [:]
    private var devices: [StructureID: [String: (name: String, room: String?)]] = [:]
    private var issued = 0
    private let rooms = [Room(id: "r1", name: "Kitchen"), Room(id: "r2", name: "Study")]

    func status(structure: StructureID) async throws -> HubStatus {
        HubStatus(online: true, reachable: true, permissionGranted: true, activeSession: sessions[structure]?.isActive ?? false)
    }

    func prepareCommissioning(structure: StructureID) async throws -> String {
        issued += 1
        try sessions[structure, default: CommissioningSession()].prepare(sessionID: "session-\(issued)")
        return "session-\(issued)"
    }

    func createAddDeviceRequest(structure: StructureID, topology: Topology) async throws -> AddDeviceRequest {
        let resolved = Topology(ecosystemName: topology.ecosystemName, homes: topology.homes.isEmpty ? [structure] : topology.homes)
        issued += 1
        // On a repeat of the same request, the session answers with the one it holds.
        return try sessions[structure, default: CommissioningSession()].request(
            AddDeviceRequest(requestID: "request-\(issued)", topology: resolved))
    }

    func commissionDevice(structure: StructureID, onboardingPayload: String, commissioningID: String) async throws {
        try sessions[structure, default: CommissioningSession()].beginCommissioning(commissioningID: commissioningID)
        issued += 1
        let deviceID = "\(structure)-device-\(issued)"
        try sessions[structure, default: CommissioningSession()].finishCommissioning(deviceIDs: [deviceID])
        devices[structure, default: [:]][deviceID] = ("New device", nil)
    }

    func fetchRooms(structure: StructureID) async throws -> [Room] { rooms }

    func configureDevice(structure: StructureID, name: String, roomName: String?) async throws {
        if let roomName, !rooms.contains(where: { $0.name == roomName }) {
            throw FlowError(.roomNotFound, "there is no room named \(roomName)")
        }
        try sessions[structure, default: CommissioningSession()].configure(name: name, roomName: roomName)
        for id in sessions[structure]?.pendingDeviceIDs ?? [] { devices[structure]?[id] = (name, roomName) }
    }

    func completeCommissioning(structure: StructureID) async throws -> [String] {
        try sessions[structure, default: CommissioningSession()].complete()
    }

    func cancelCommissioning(structure: StructureID) async throws -> Bool {
        // A release made for a session that is no longer the active one (the run's expired, and another client
        // prepared anew) releases nothing: recovery and late runs never end another client's session.
        if let expected = HubCallContext.current?.expectedSessionID, expected != sessions[structure]?.sessionID { return false }
        guard let undone = sessions[structure]?.cancel() else { return false }
        for id in undone { devices[structure]?[id] = nil }
        return true
    }

    func basicInformation(structure: StructureID, deviceID: String) async throws -> BasicInformation {
        guard devices[structure]?[deviceID] != nil else { throw FlowError(.deviceNotFound, "no device \(deviceID)") }
        return BasicInformation(vendorName: "Example", vendorID: 0xFFF1, productID: 0x8000, productName: "Lamp", softwareVersion: 1)
    }
}

let workflowsDirectory = CommandLine.arguments.dropFirst().first
    ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Workflows").path
let engine = WorkflowEngine()
let workflow: Workflow
do {
    workflow = try engine.load(path: workflowsDirectory + "/commission-device.json")
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}

let hub = InMemoryHub()
var handles: [(String, RunHandle)] = []
for (structure, name) in [("maple-street", "Porch Light"), ("elm-court", "Desk Lamp")] {
    let handle = try engine.start(
        workflow, inputs: ["onboardingPayload": "MT:Y.K9042C00KA0648G00", "deviceName": .string(name), "roomName": "Kitchen"],
        on: hub, options: RunOptions(structureID: structure))
    handles.append((structure, handle))
}

var failed = false
for (structure, handle) in handles {
    var transitions = 0
    for await event in handle.events {
        if case .transition = event.kind { transitions += 1 }
    }
    let result = await handle.result
    print("\(structure): \(result.outcome.rawValue) after \(transitions) transitions; output \(JSONWriter.compact(result.output ?? .null))")
    failed = failed || result.outcome != .succeeded
}
exit(failed ? 1 : 0)
