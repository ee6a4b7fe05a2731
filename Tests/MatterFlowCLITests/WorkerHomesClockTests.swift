import Foundation
import MatterFlow
@testable import MatterFlowCLI
import MatterFlowSimulator
import Testing

/// The simulated homes a worker keeps in a state directory, which workers on one machine share: the leases they
/// persist are in wall time, however far a worker's virtual clock has run ahead, so that a run handed from one
/// worker to another finds its session as the first left it.
@Suite struct WorkerHomesClockTests {
    @Test("a structure's home made by a worker whose virtual clock has run 400 s ahead keeps hub time on the wall clock, with a state directory; without one, the hub follows the worker's clock")
    func sharedHomesKeepWallTime() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        clock.advance(by: .seconds(400))
        let shared = SimulatedHomes(initial: HomeDescription.defaultHome, stateDirectory: directory.path, clock: clock)
        let hub = try #require(try await shared.hub(for: "s1") as? SimulatedHub)
        #expect(abs(await hub.hubTime - Date().timeIntervalSince1970) < 60)
        clock.advance(by: .seconds(400))
        #expect(abs(await hub.hubTime - Date().timeIntervalSince1970) < 60, "the clock's lead is not the shared home's time")
        // A session opened now is stamped with the wall clock, as another worker reads it.
        _ = try await hub.prepareCommissioning(structure: "s1")
        let saved = try String(contentsOfFile: directory.file("s1/home.json"), encoding: .utf8)
        let openedAt = try #require(saved.firstMatch(of: /"openedAt"\s*:\s*([0-9.e+]+)/).flatMap { Double($0.1) }, "\(saved)")
        #expect(abs(openedAt - Date().timeIntervalSince1970) < 60, "\(openedAt)")
        // A home of this process alone follows its clock: virtual time is then the home's own.
        let alone = SimulatedHomes(initial: HomeDescription.defaultHome, stateDirectory: nil, clock: clock)
        let own = try #require(try await alone.hub(for: "s2") as? SimulatedHub)
        clock.advance(by: .seconds(400))
        #expect(abs(await own.hubTime - Date().timeIntervalSince1970 - 400) < 60)
    }

    @Test("each structure's home issues IDs of its own, the same for a structure every time")
    func structuresIssueTheirOwnIDs() async throws {
        let clock = ManualClock()
        func sessionID(_ structure: StructureID) async throws -> String {
            let homes = SimulatedHomes(initial: HomeDescription.defaultHome, stateDirectory: nil, clock: clock)
            return try await homes.hub(for: structure).prepareCommissioning(structure: structure)
        }
        let first = try await sessionID("s1")
        #expect(try await sessionID("s2") != first)
        #expect(try await sessionID("s1") == first, "deterministic per structure")
    }

    @Test("any structure ID has a simulated home inside the state directory: ordinary IDs name their directory, others are written with %XX, long ones cut and hashed")
    func everyStructureHasAHomeInside() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(SimulatedHomes.directoryName(for: "maple-street") == "maple-street")
        #expect(SimulatedHomes.directoryName(for: "café 2") == "café 2")
        #expect(SimulatedHomes.directoryName(for: "../../etc") == "%2E.%2F..%2Fetc")
        #expect(SimulatedHomes.directoryName(for: "a%2Fb") == "a%252Fb", "a % is written too, so no two IDs share a name")
        #expect(SimulatedHomes.directoryName(for: "a/b") != SimulatedHomes.directoryName(for: "a%2Fb"))
        #expect(SimulatedHomes.directoryName(for: "tab\there") == "tab%09here")
        let long = String(repeating: "x", count: 300)
        let longName = SimulatedHomes.directoryName(for: long + "1")
        #expect(longName.utf8.count <= 217 && longName.hasPrefix(String(repeating: "x", count: 200) + "~"), "\(longName)")
        #expect(longName != SimulatedHomes.directoryName(for: long + "2"))
        let slashes = SimulatedHomes.directoryName(for: String(repeating: "/", count: 100))
        #expect(slashes.utf8.count <= 217 && !slashes.contains("/"), "\(slashes)")

        let homes = SimulatedHomes(initial: HomeDescription.defaultHome, stateDirectory: directory.path, clock: ManualClock())
        for structure in ["../../etc", "/", ".", long + "1"] {
            let hub = try await homes.hub(for: structure)
            _ = try await hub.prepareCommissioning(structure: structure)
            let file = directory.file(SimulatedHomes.directoryName(for: structure) + "/home.json")
            let saved = try String(contentsOfFile: file, encoding: .utf8)
            #expect(saved.contains("\"openedAt\""), "\(structure): \(saved)")
        }
        let kept = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(kept.count == 4, "\(kept)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/../../etc/home.json"))
    }
}
