import MatterFlow
import MatterFlowHubProtocol
import MatterFlowSimulator
import Synchronization
import Testing

/// A client's hub connection made again once lost: one new connection however many runs ask at once.
@Suite struct ReconnectingHubTests {
    /// The built-in home served in-process, each connection a channel pair whose server end the test can drop.
    final class ServedHome: Sendable {
        let hub: SimulatedHub
        let servers = Mutex<[MemoryLineChannel]>([])

        init() throws { hub = try SimulatedHub(home: HomeDescription.defaultHome, clock: ManualClock()) }

        func connect() async throws -> RemoteHub {
            let (client, server) = MemoryLineChannel.pair()
            _ = HubServer(hub: hub, channel: server, identity: .init(name: "served", version: "1"))
            servers.withLock { $0.append(server) }
            let remote = RemoteHub(channel: client)
            try await remote.initialize()
            return remote
        }
    }

    @Test func manyRunsAskingAfterTheConnectionIsLostShareOneNewConnection() async throws {
        let home = try ServedHome()
        let reconnecting = ReconnectingHub(first: try await home.connect()) {
            // Making a connection takes a while, in which the other runs ask too.
            for _ in 0..<100 { await Task.yield() }
            return try await home.connect()
        }
        let structure = HomeDescription.defaultHome.structure.id
        #expect(try await reconnecting.hub().status(structure: structure).online)
        home.servers.withLock { $0[0] }.close()
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { try await reconnecting.hub().status(structure: structure).online } }
            for try await online in group { #expect(online) }
        }
        #expect(await reconnecting.connections == 2)
        #expect(home.servers.withLock { $0.count } == 2, "one connection replaced the lost one")
    }
}
