import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
import Testing

@Suite("Persisted state: HomeStateStore")
struct HomeStateStoreTests {
    let structure = TestHomes.structureID

    private func openHub(_ directory: String, clock: ManualClock = ManualClock()) throws -> SimulatedHub {
        let store = try HomeStateStore(directory: directory, startingFrom: TestHomes.basic())
        return try SimulatedHub(stateStore: store, clock: clock)
    }

    @Test("a fresh directory starts from the given home and writes nothing until a change")
    func freshDirectory() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let store = try HomeStateStore(directory: directory + "/state", startingFrom: TestHomes.basic())
        #expect(!store.restored)
        #expect(store.home == TestHomes.basic())
        let hub = try SimulatedHub(stateStore: store)
        _ = try await hub.status(structure: structure)
        _ = try await hub.fetchRooms(structure: structure)
        #expect(!FileManager.default.fileExists(atPath: store.path))
        _ = try await hub.prepareCommissioning(structure: structure)
        let saved = try HomeDescription.load(path: store.path)
        #expect(saved.activeSession?.phase == .prepared)
        #expect(saved == (try await hub.snapshot(structure: structure)))
    }

    @Test("a home.json that is a symbolic link is written through, the link kept; one whose file is gone is refused")
    func linkedStateFile() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let kept = directory + "/volume"
        try FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory + "/state/home.json", withDestinationPath: "../volume/home.json")
        // The file the link names is not there yet: not a directory without state (its volume may not be mounted).
        #expect(throws: DiagnosticsError.self) { try HomeStateStore(directory: directory + "/state", startingFrom: TestHomes.basic()) }
        do {
            _ = try HomeStateStore(directory: directory + "/state", startingFrom: TestHomes.basic())
        } catch {
            #expect(error.diagnostics.first?.code == HomeStateStore.unusableDirectoryCode)
            #expect(error.diagnostics.first?.message.contains("is a symbolic link to") == true, "\(error.diagnostics)")
        }
        try TestHomes.basic().jsonText.write(toFile: kept + "/home.json", atomically: true, encoding: .utf8)
        let hub = try openHub(directory + "/state")
        _ = try await hub.prepareCommissioning(structure: structure)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/state/home.json") == "../volume/home.json")
        #expect(try HomeDescription.load(path: kept + "/home.json").activeSession?.phase == .prepared)
    }

    @Test("a device commissioned by one process is there for the next, and identifiers stay unique")
    func roundTrip() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let first = try openHub(directory)
        try await prepareAndRequest(first)
        try await first.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        try await first.configureDevice(structure: structure, name: "Desk Lamp", roomName: "Kitchen")
        let firstIDs = try await first.completeCommissioning(structure: structure)

        let store = try HomeStateStore(directory: directory, startingFrom: TestHomes.basic())
        #expect(store.restored)
        let second = try SimulatedHub(stateStore: store, clock: ManualClock())
        #expect(try await second.snapshot(structure: structure) == (try await first.snapshot(structure: structure)))
        let info = try await second.basicInformation(structure: structure, deviceID: firstIDs[0])
        #expect(info.vendorID == 0xFFF1)
        try await prepareAndRequest(second)
        await expectFailure(.deviceAlreadyCommissioned) {
            try await second.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        }
        try await second.commissionDevice(structure: structure, onboardingPayload: Payloads.lampQR, commissioningID: "c")
        let secondIDs = try await second.completeCommissioning(structure: structure)
        #expect(Set(secondIDs).isDisjoint(with: firstIDs))
        #expect(try HomeDescription.load(path: store.path).devices.count == 3)
    }

    @Test("a session left active by one process blocks the next prepare until it is cancelled")
    func leftoverSessionBlocks() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let first = try openHub(directory)
        try await prepareAndRequest(first)
        try await first.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        // The first process goes away without completing or cancelling.

        let second = try openHub(directory)
        #expect(try await second.status(structure: structure).activeSession)
        await expectFailure(.sessionBusy) { try await second.prepareCommissioning(structure: structure) }
        #expect(try await second.cancelCommissioning(structure: structure))
        #expect(try HomeDescription.load(path: directory + "/home.json").devices == TestHomes.basic().devices)

        let third = try openHub(directory)
        _ = try await third.prepareCommissioning(structure: structure)
    }

    @Test("the file is accurate while a call is in progress, as a killed process would leave it")
    func fileDuringCommissioning() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        var home = TestHomes.basic()
        home.simulation.latencySeconds[.commissionDevice] = 10
        let clock = ManualClock()
        let hub = try SimulatedHub(stateStore: try HomeStateStore(directory: directory, startingFrom: home), clock: clock)
        try await prepareAndRequest(hub)
        let task = Task {
            try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        }
        await clock.waitForSleepers(1)
        let midway = try HomeDescription.load(path: directory + "/home.json")
        #expect(midway.activeSession?.phase == .commissioning)
        #expect(midway.activeSession?.commissioningID == "c")
        clock.advance(by: .seconds(10))
        try await task.value
        #expect(try HomeDescription.load(path: directory + "/home.json").activeSession?.phase == .commissioned)
        // Atomic writes leave no temporary files behind.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["home.json"])
        // The passcode-bearing payload is never stored.
        let text = try String(contentsOfFile: directory + "/home.json", encoding: .utf8)
        #expect(!text.contains(Payloads.specQR))
    }

    @Test("condition changes are persisted too")
    func conditionsPersist() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        try await openHub(directory).setOnline(false, structure: structure)
        let next = try openHub(directory)
        await expectFailure(.hubOffline) { try await next.prepareCommissioning(structure: structure) }
    }

    @Test("a corrupt state file is reported with its path, line and column")
    func corruptFile() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        try "{\"version\": 1,\n \"structure\": 5}\n".write(toFile: directory + "/home.json", atomically: true, encoding: .utf8)
        do {
            _ = try HomeStateStore(directory: directory, startingFrom: TestHomes.basic())
            Issue.record("a corrupt state file was accepted")
        } catch {
            let diagnostic = try #require(error.diagnostics.first)
            #expect(diagnostic.code == DiagnosticCode.wrongType)
            #expect(diagnostic.file == directory + "/home.json")
            #expect(diagnostic.location?.line == 2)
        }
    }

    @Test("a failed save fails the call with hubFailure and changes nothing")
    func saveFailure() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let blocker = directory + "/not-a-directory"
        // Opening checks the directory, so it turns into a file only after the store is open.
        let hub = try SimulatedHub(
            stateStore: try HomeStateStore(directory: blocker, startingFrom: TestHomes.basic()), clock: ManualClock())
        try "x".write(toFile: blocker, atomically: true, encoding: .utf8)
        let error = await expectFailure(.hubFailure) { try await hub.prepareCommissioning(structure: structure) }
        #expect(error?.message.contains(blocker) == true)
        #expect(try await hub.status(structure: structure).activeSession == false)
    }

    @Test("a store on a path that cannot be a state directory is refused when opened")
    func unusableDirectory() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let file = directory + "/file"
        try "x".write(toFile: file, atomically: true, encoding: .utf8)
        for path in [file, file + "/below"] {
            #expect {
                _ = try HomeStateStore(directory: path, startingFrom: TestHomes.basic())
            } throws: { error in
                (error as? DiagnosticsError)?.diagnostics.map(\.code) == [HomeStateStore.unusableDirectoryCode]
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["file"], "nothing left behind")
    }

    @Test("a store for a structure the hub does not have is refused")
    func storeForAnotherStructure() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let store = try HomeStateStore(directory: directory, startingFrom: TestHomes.basic(id: "elsewhere"))
        #expect(throws: FlowError.self) {
            try SimulatedHub(homes: [TestHomes.basic()], clock: ManualClock(), stateStore: store)
        }
    }
}
