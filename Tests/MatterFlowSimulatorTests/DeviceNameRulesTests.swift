import MatterFlow
import MatterFlowSimulator
import Testing

/// What a device's name and room may be, as a real Matter device and hub take them: a name of at most 32 bytes of
/// UTF-8 (a NodeLabel) without control characters, and a room found by its text however its code points spell it.
@Suite("device names and rooms in the simulated home")
struct DeviceNameRulesTests {
    let structure = TestHomes.structureID

    func commissioned(rooms: [Room]? = nil) async throws -> SimulatedHub {
        var home = TestHomes.basic()
        if let rooms { home.rooms = rooms }
        let (hub, _) = try TestHomes.hub(home)
        _ = try await hub.prepareCommissioning(structure: structure)
        _ = try await hub.createAddDeviceRequest(structure: structure, topology: Topology(ecosystemName: "Google Home", homes: []))
        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c-1")
        return hub
    }

    func refusal(_ hub: SimulatedHub, name: String, room: String? = nil) async -> FlowError? {
        do {
            try await hub.configureDevice(structure: structure, name: name, roomName: room)
            return nil
        } catch let error as FlowError {
            return error
        } catch {
            Issue.record("not a FlowError: \(error)")
            return nil
        }
    }

    @Test("a name of 32 bytes of UTF-8 is taken, one of 33 refused, however few characters it has")
    func thirtyTwoBytes() async throws {
        let hub = try await commissioned()
        let tooLong = await refusal(hub, name: "寝室のシーリングライト")
        #expect(tooLong?.cause == .invalidArgumentValue)
        #expect(tooLong?.message.contains("takes 33 bytes") == true, "\(String(describing: tooLong))")
        #expect(await refusal(hub, name: "リビングの照明 💡 Lampe") == nil, "15 characters, 32 bytes")
        let id = try #require(try await hub.completeCommissioning(structure: structure).first)
        #expect(try await hub.snapshot(structure: structure).device(id: id)?.name == "リビングの照明 💡 Lampe")
    }

    @Test("a name holding a control character (a CR left by a CRLF file, a tab, an escape) is refused")
    func controlCharacters() async throws {
        let hub = try await commissioned()
        for name in ["Lampe\r", "Lam\tpe", "Lampe\u{1B}[31m", "Lampe\u{85}"] {
            let refused = await refusal(hub, name: name)
            #expect(refused?.cause == .invalidArgumentValue && refused?.message.contains("control character") == true, "\(name.debugDescription)")
        }
    }

    @Test("a room typed with other code points for the same text is found, and kept as the home spells it")
    func roomInOtherCodePoints() async throws {
        let hub = try await commissioned(rooms: [Room(id: "room-kueche", name: "K\u{FC}che")])
        #expect(await refusal(hub, name: "Lampe", room: "Ku\u{308}che") == nil)
        let id = try #require(try await hub.completeCommissioning(structure: structure).first)
        let room = try #require(try await hub.snapshot(structure: structure).device(id: id)?.room)
        #expect(Array(room.unicodeScalars) == Array("K\u{FC}che".unicodeScalars), "stored as typed: \(Array(room.unicodeScalars))")
    }

    @Test("a room no room is named lists the first ten of a building's rooms, not all three hundred")
    func longRoomList() async throws {
        let rooms = (1...300).map { Room(id: "room-\($0)", name: "Apartment \($0) living room") }
        let hub = try await commissioned(rooms: rooms)
        let refused = await refusal(hub, name: "Lamp", room: "Garage")
        #expect(refused?.cause == .roomNotFound)
        #expect(refused?.message.hasSuffix("Apartment 10 living room, and 290 more)") == true, "\(String(describing: refused?.message))")
        #expect(refused?.message.contains("Apartment 11 living room") == false)
    }
}
