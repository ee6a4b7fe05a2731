import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
import Testing

@Suite("Home descriptions: encoding, round trip and the default home")
struct HomeRoundTripTests {
    /// A home using every part of the format, with a configured session holding a pending device.
    static var fullHome: HomeDescription {
        var home = TestHomes.basic(seed: UInt64.max - 3)
        home.hub = .init(online: false, reachable: true)
        home.permissionGranted = false
        home.devices.append(
            .init(
                id: "device-pending", name: "Porch Light", room: "Kitchen", vendorID: 0xFFF1, productID: 0x8000,
                vendorName: "Test Vendor (0xFFF1)", productName: "Matter Device 0x8000", softwareVersion: 1,
                payloadKey: "vid=0xFFF1,pid=0x8000,discriminator=3840"))
        home.activeSession = CommissioningSessionSnapshot(
            phase: .configured, sessionID: "session-1", topology: Topology(ecosystemName: "Google Home", homes: ["Test Home"]),
            requestID: "request-1", commissioningID: "commissioning-1", deviceIDs: ["device-pending"], deviceName: "Porch Light", roomName: "Kitchen")
        home.issuedIDs = 17
        home.simulation.latencySeconds = [.commissionDevice: 2.5, .prepareCommissioning: 0.25]
        return home
    }

    @Test("encode then decode gives back an equal home, and the text is stable")
    func roundTrip() throws {
        let home = Self.fullHome
        let decoded = try HomeDescription.parse(home.jsonText, file: "round-trip.json")
        #expect(decoded == home)
        #expect(decoded.jsonText == home.jsonText)
    }

    @Test("a hub restores every session phase from a home and reports it back unchanged", arguments: [
        CommissioningSession.Phase.prepared, .requested, .commissioning, .commissioned, .configured,
    ])
    func sessionPhasesRoundTrip(phase: CommissioningSession.Phase) async throws {
        var home = Self.fullHome
        let full = try #require(home.activeSession)
        var snapshot = CommissioningSessionSnapshot(phase: phase, sessionID: full.sessionID)
        if phase != .prepared { snapshot.topology = full.topology; snapshot.requestID = full.requestID }
        if phase == .commissioning || phase == .commissioned || phase == .configured { snapshot.commissioningID = "commissioning-1" }
        if phase == .commissioned || phase == .configured { snapshot.deviceIDs = full.deviceIDs }
        if phase == .configured { snapshot.deviceName = full.deviceName; snapshot.roomName = full.roomName }
        if phase != .commissioned && phase != .configured { home.devices.removeAll { $0.id == "device-pending" } }
        home.activeSession = snapshot

        let decoded = try HomeDescription.parse(home.jsonText, file: "home.json")
        #expect(decoded == home)
        let hub = try SimulatedHub(home: decoded, clock: ManualClock())
        #expect(try await hub.snapshot(structure: home.structure.id) == home)
    }

    @Test("decoding normalises a session: fields its phase does not use are dropped")
    func sessionNormalised() throws {
        let text = """
            {"version": 1, "structure": {"id": "h", "name": "H"},
             "activeSession": {"phase": "prepared", "id": "s", "topology": {"ecosystemName": "G"}}}
            """
        let home = try HomeDescription.parse(text, file: "home.json")
        #expect(home.activeSession == CommissioningSessionSnapshot(phase: .prepared, sessionID: "s"))
    }

    // MARK: - Default home

    /// `Examples/default-home.json`, found from this file's location (never the working directory).
    static var examplePath: String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // MatterFlowSimulatorTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // package root
            .appendingPathComponent("Examples/default-home.json").path
    }

    @Test("the built-in default home is the same as Examples/default-home.json")
    func defaultHomeMatchesExample() throws {
        let fileText = try String(contentsOfFile: Self.examplePath, encoding: .utf8)
        #expect(HomeDescription.defaultHomeJSON + "\n" == fileText)
        #expect(try HomeDescription.load(path: Self.examplePath) == HomeDescription.defaultHome)
        #expect(HomeDescription.defaultHome.jsonText == fileText)
    }

    @Test("the default home is pleasant and ready to commission")
    func defaultHomeContents() async throws {
        let home = HomeDescription.defaultHome
        #expect(home.structure.name == "Maple Street")
        #expect(home.hub.online && home.hub.reachable && home.permissionGranted)
        #expect((3...4).contains(home.rooms.count))
        #expect(home.devices.count == 2)
        #expect(home.activeSession == nil)
        #expect(home.seed == 1)
        let hub = try SimulatedHub(home: home.withoutSimulatedLatency, clock: ManualClock())
        try await prepareAndRequest(hub, home.structure.id)
        try await hub.commissionDevice(structure: home.structure.id, onboardingPayload: Payloads.specQR, commissioningID: "c")
        #expect(try await hub.completeCommissioning(structure: home.structure.id).count == 1)
    }

    @Test("every JSON example in docs/home-format.md is a valid home")
    func documentedExamples() throws {
        let docs = URL(fileURLWithPath: Self.examplePath)
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/home-format.md").path
        let text = try String(contentsOfFile: docs, encoding: .utf8)
        let blocks = text.components(separatedBy: "```json\n").dropFirst().compactMap {
            $0.components(separatedBy: "```").first
        }
        #expect(blocks.count >= 2)
        for (index, block) in blocks.enumerated() {
            #expect(throws: Never.self) { try HomeDescription.parse(block, file: "docs example \(index + 1)") }
        }
    }
}
