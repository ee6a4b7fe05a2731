import MatterFlow
import MatterFlowFixtures
import MatterFlowHubProtocol
import MatterFlowJSON
import Testing

/// The proof that the hub protocol is complete: every shipped fixture passes with the fixture's simulated world
/// served by ``HubServer`` and the engine talking to it only through ``RemoteHub``.
@Suite struct FixturesOverTheWireTests {
    static let overTheWire = FixtureHubTransport { hub, clock in
        let wired = try await WiredHub.connect(hub, clock: clock)
        return (wired.remote.hub, { await wired.remote.close() })
    }

    @Test func everyShippedFixturePassesWithTheHubBehindTheProtocol() async throws {
        let loader = FixtureLoader()
        let (files, missing) = loader.discover([Repository.fixtures])
        #expect(missing.isEmpty)
        var fixtures: [Fixture] = []
        for file in files {
            fixtures.append(try #require(loader.load(path: file).fixture, "\(file) is invalid"))
        }
        #expect(fixtures.count >= 40, "the library has \(fixtures.count) fixtures")
        let results = await FixtureRunner(transport: Self.overTheWire).run(fixtures)
        #expect(results.count == fixtures.count)
        for result in results where !result.passed {
            let mismatches = result.mismatches.map(\.description).joined(separator: "\n")
            Issue.record("\(result.fixture.name) (\(result.fixture.file)) failed over the wire:\n\(mismatches)")
        }
    }
}
