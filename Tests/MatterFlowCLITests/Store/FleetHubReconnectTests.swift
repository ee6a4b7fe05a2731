import Foundation
import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowSimulator
@testable import MatterFlowStore
import Synchronization
import Testing

/// A worker whose hub is reached over a connection (`worker --hub`) outlives the connection's loss.
extension PostgresStoreTests {
    @Test("a run whose hub connection is lost mid-call goes back for takeover and is settled over a new connection, not failed")
    func lostHubConnectionIsSettledAfterReconnecting() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try Self.secretsDirectory(in: directory)
        let runID = "run-00000c0ee001"
        let submitted = await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--run-id", runID] + commissionInputs())
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo)
        let home = try ServedHome()
        let reconnecting = ReconnectingHub(first: try await home.connect()) { try await home.connect() }
        let options = WorkerOptions(workerID: "w1", leaseSeconds: 1, secrets: SecretInbox(directory: secrets))
        let first = TestWorker(store: store, options: options, hubs: { _ in try await reconnecting.hub() })
        // commissionDevice, the run's third call, never ends on the manual clock: the connection goes during it.
        #expect(try await FleetAnswerTests.waitForRecord("intent", of: runID, conninfo: conninfo, count: 3))
        home.drop(0)
        #expect(await first.waitForLine(containing: "whose hub connection was lost"), "\(first.lines)")
        _ = try await first.summary
        var rescuing = options
        rescuing.workerID = "w2"
        let second = TestWorker(store: store, options: rescuing, hubs: { _ in try await reconnecting.hub() })
        _ = try await second.finish(after: [runID], conninfo: conninfo)
        let run = try #require(try store.runs().first { $0.runID == runID })
        #expect(run.status == "cancelled", "\(run.notes) \(second.lines)")
        #expect(run.recovered)
        // The record set says why the run stopped: its hub, not its worker's process.
        #expect(run.error?["message"]?.stringValue?.contains("(its hub's connection was lost: ") == true, "\(String(describing: run.error))")
        #expect(await reconnecting.connections == 2)
        #expect(try await home.hub.activeSession(structure: HomeDescription.defaultHome.structure.id) == nil, "the session was released")
        #expect(try store.sessions().isEmpty)
    }
}

/// The built-in home served in-process; each connection to it a channel pair, the server ends kept so a test can
/// drop one.
final class ServedHome: Sendable {
    let hub: SimulatedHub
    private let servers = Mutex<[MemoryLineChannel]>([])

    init() throws {
        hub = try SimulatedHub(home: HomeDescription.defaultHome, clock: ManualClock())
    }

    /// How many connections were made to it.
    var connectionCount: Int { servers.withLock { $0.count } }

    func connect() async throws -> RemoteHub {
        let (client, server) = MemoryLineChannel.pair()
        _ = HubServer(hub: hub, channel: server, identity: .init(name: "served", version: "1"))
        servers.withLock { $0.append(server) }
        let remote = RemoteHub(channel: client)
        try await remote.initialize()
        return remote
    }

    /// Drops the connection made `index`-th (from 0), as a hub that restarts does.
    func drop(_ index: Int) { servers.withLock { $0[index] }.close() }
}

/// A client's hub connection made again once lost: one new connection however many runs ask at once.
@Suite struct ReconnectingHubTests {
    @Test func manyRunsAskingAfterTheConnectionIsLostShareOneNewConnection() async throws {
        let home = try ServedHome()
        let reconnecting = ReconnectingHub(first: try await home.connect()) {
            // Making a connection takes a while, in which the other runs ask too.
            for _ in 0..<100 { await Task.yield() }
            return try await home.connect()
        }
        let structure = HomeDescription.defaultHome.structure.id
        #expect(try await reconnecting.hub().status(structure: structure).online)
        home.drop(0)
        try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { try await reconnecting.hub().status(structure: structure).online } }
            for try await online in group { #expect(online) }
        }
        #expect(await reconnecting.connections == 2)
        #expect(home.connectionCount == 2, "one connection replaced the lost one")
    }

    @Test(.timeLimit(.minutes(1)))
    func aConnectionMadeWhileTheClientClosesIsClosedTooAndNoneIsMadeAfter() async throws {
        let home = try ServedHome()
        let (release, released) = AsyncStream<Void>.makeStream()
        let entered = Mutex(false)
        let made = Mutex<RemoteHub?>(nil)
        let reconnecting = ReconnectingHub(first: try await home.connect()) {
            entered.withLock { $0 = true }
            for await _ in release { break }
            let remote = try await home.connect()
            made.withLock { $0 = remote }
            return remote
        }
        home.drop(0)
        let asking = Task { try await reconnecting.hub() }
        while !entered.withLock({ $0 }) { await Task.yield() }
        // The close cancels the making (here, before it connects): no hub is left running for nobody.
        await reconnecting.close()
        released.yield()
        await #expect(throws: FlowError.self, "the run asking is told the client stops") { try await asking.value }
        if let connection = made.withLock({ $0 }) {
            #expect(connection.connectionLost, "a connection made all the same was closed")
        }
        await #expect(throws: FlowError.self) { try await reconnecting.hub() }
        #expect(home.connectionCount <= 2, "none made after the close")
    }
}
