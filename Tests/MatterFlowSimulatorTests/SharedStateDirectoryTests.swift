import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// Several hubs (as several processes would) on one state directory: every change is made under the directory's
/// lock on the latest saved state, so none is lost and only one client gets the session.
@Suite("shared state directory")
struct SharedStateDirectoryTests {
    static func openHub(_ directory: String) throws -> SimulatedHub {
        try SimulatedHub(
            stateStore: try HomeStateStore(directory: directory, startingFrom: TestHomes.basic()), clock: ManualClock())
    }

    @Test("two hubs that both saw a free structure: exactly one prepare wins, the other gets sessionBusy")
    func stalePrepare() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let first = try Self.openHub(directory)
        let second = try Self.openHub(directory)
        #expect(try await first.status(structure: TestHomes.structureID).activeSession == false)
        #expect(try await second.status(structure: TestHomes.structureID).activeSession == false)
        let session = try await first.prepareCommissioning(structure: TestHomes.structureID)
        let error = try #require(await expectFailure(.sessionBusy) {
            try await second.prepareCommissioning(structure: TestHomes.structureID)
        })
        #expect(error.message.contains(session))
        #expect(try await second.status(structure: TestHomes.structureID).activeSession)
    }

    @Test("changes made through different hubs all reach the file")
    func noLostUpdates() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let hubs = try (0..<3).map { _ in try Self.openHub(directory) }
        let payloads = [Payloads.specQR, Payloads.lampQR, Payloads.otherManual]
        var created: [String] = []
        for (hub, payload) in zip(hubs, payloads) {
            let id = TestHomes.structureID
            _ = try await hub.prepareCommissioning(structure: id)
            _ = try await hub.createAddDeviceRequest(structure: id, topology: Topology(ecosystemName: "Google Home", homes: []))
            try await hub.commissionDevice(structure: id, onboardingPayload: payload, commissioningID: payload)
            created += try await hub.completeCommissioning(structure: id)
        }
        let saved = try #require(try HomeStateStore.loadSaved(directory: directory))
        #expect(Set(saved.devices.map(\.id)) == Set(["device-existing"] + created))
        #expect(Set(created).count == 3, "identifiers stay unique across hubs")
    }

    @Test("many hubs preparing at once: exactly one gets the session")
    func concurrentPrepare() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let hubs = try (0..<8).map { _ in try Self.openHub(directory) }
        let outcomes = await withTaskGroup(of: String.self) { group in
            for hub in hubs {
                group.addTask {
                    do {
                        _ = try await hub.prepareCommissioning(structure: TestHomes.structureID)
                        return "won"
                    } catch {
                        return FlowError.from(error).cause.rawValue
                    }
                }
            }
            var all: [String] = []
            for await outcome in group { all.append(outcome) }
            return all
        }
        #expect(outcomes.filter { $0 == "won" }.count == 1)
        #expect(outcomes.filter { $0 == "sessionBusy" }.count == 7)
    }

    @Test("the lock is the directory's own: nothing but home.json is left, and it is free after every call")
    func lockLeavesNothing() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let store = try HomeStateStore(directory: directory, startingFrom: TestHomes.basic())
        let hub = try SimulatedHub(stateStore: store, clock: ManualClock())
        _ = try await hub.prepareCommissioning(structure: TestHomes.structureID)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["home.json"])
        #expect(try store.withLock { () throws(FlowError) in true })
    }
}
