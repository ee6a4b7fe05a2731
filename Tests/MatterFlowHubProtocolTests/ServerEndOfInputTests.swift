import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
import Testing

/// The server's end of a memory channel whose input a test ends by hand while answers can still be sent, as
/// standard input ending under `hub serve` does.
final class EndOfInputChannel: LineChannel {
    let base: MemoryLineChannel
    let sharedClock: (any WorkflowClock)?
    private let receiver = Mutex<(@Sendable (LineEvent) -> Void)?>(nil)

    init(_ base: MemoryLineChannel, clock: (any WorkflowClock)? = nil) {
        self.base = base
        sharedClock = clock
    }

    func start(_ receive: @escaping @Sendable (LineEvent) -> Void) {
        receiver.withLock { $0 = receive }
        base.start(receive)
    }

    func send(_ line: String) throws(LineChannelError) { try base.send(line) }

    func close() { base.close() }

    /// Tells the server its input has ended (no line is being delivered meanwhile).
    func endInput() { receiver.withLock { $0 }?(.closed("end of input")) }
}

/// A hub whose `status` waits until the test releases it (or its call is cancelled).
struct ReleasedStatusHub: ForwardingHub {
    let base: any Hub
    let entered: AsyncStream<Void>.Continuation
    let release: AsyncStream<Void>

    func status(structure: StructureID) async throws -> HubStatus {
        entered.yield()
        for await _ in release { break }
        try Task.checkCancellation()
        return try await base.status(structure: structure)
    }
}

/// What the client end receives, and when the connection has closed.
final class AnswerCollector: Sendable {
    let channel: MemoryLineChannel
    private let lines = Mutex<[String]>([])
    let closed: AsyncStream<Void>

    init(_ channel: MemoryLineChannel) {
        self.channel = channel
        let (closed, ended) = AsyncStream<Void>.makeStream()
        self.closed = closed
        channel.start { [self] event in
            switch event {
            case .line(let line): self.lines.withLock { $0.append(line) }
            case .closed: ended.yield(); ended.finish()
            case .malformed: break
            }
        }
    }

    /// The answer to request `id`, parsed.
    func answer(_ id: Int) -> JSONValue? {
        lines.withLock { $0 }.lazy.compactMap { try? JSONDocument.parse($0, file: "answer").value }
            .first { $0["id"]?.intValue == id }
    }
}

/// `HubServer` when its client's input ends: every request received before is answered, then the connection closes.
@Suite struct ServerEndOfInputTests {
    static let initialize = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#
    static let status = #"{"jsonrpc":"2.0","id":2,"method":"status","params":{"structure":"maple-street"}}"#

    /// A server whose status call is held until `release` yields, once that call has begun and the input ended.
    static func statusHeldAtEndOfInput(
        clock: ManualClock? = nil
    ) async throws -> (server: HubServer, client: AnswerCollector, release: AsyncStream<Void>.Continuation) {
        let simulated = try SimulatedHub(home: HomeDescription.defaultHome, clock: VirtualClock())
        let (entered, enteredContinuation) = AsyncStream<Void>.makeStream()
        let (release, releaseContinuation) = AsyncStream<Void>.makeStream()
        let (clientEnd, serverEnd) = MemoryLineChannel.pair()
        let channel = EndOfInputChannel(serverEnd, clock: clock)
        let server = HubServer(
            hub: ReleasedStatusHub(base: simulated, entered: enteredContinuation, release: release), channel: channel,
            identity: .init(name: "t", version: "1"))
        let client = AnswerCollector(clientEnd)
        try clientEnd.send(Self.initialize)
        try clientEnd.send(Self.status)
        for await _ in entered { break }
        channel.endInput()
        return (server, client, releaseContinuation)
    }

    @Test("a call still running when the input ends is finished and answered before the connection closes", .timeLimit(.minutes(1)))
    func runningCallIsAnswered() async throws {
        let (server, client, release) = try await Self.statusHeldAtEndOfInput()
        release.yield()
        await server.waitUntilClosed()
        for await _ in client.closed { break }
        #expect(client.answer(1)?["result"] != nil)
        let answer = try #require(client.answer(2), "the status request received before the end was not answered")
        #expect(answer["result"]?["online"] == true)
    }

    @Test("a method's drain limit is the default timeout of the standard operation calling it; any other method's, the longest of them")
    func drainLimits() {
        #expect(HubServer.drainLimit(for: "status") == .seconds(10))
        #expect(HubServer.drainLimit(for: "joinThreadNetwork") == .seconds(60))
        #expect(HubServer.drainLimit(for: "commissionDevice") == .seconds(120))
        // Methods no standard operation calls: the protocol's own, and a custom operation's.
        for method in ["activeSession", "subscribe", "firmwareUpdate"] {
            #expect(HubServer.drainLimit(for: method) == .seconds(120), "\(method)")
        }
    }

    @Test("a call that outlives its drain limit after the input ended is answered with runCancelled", .timeLimit(.minutes(1)))
    func hungCallIsCancelledAtItsLimit() async throws {
        let clock = ManualClock()
        let (server, client, _) = try await Self.statusHeldAtEndOfInput(clock: clock)
        // Not cancelled when the input ended: at its drain limit.
        #expect(clock.nextDeadline == HubServer.drainLimit(for: "status"))
        clock.advance(by: HubServer.drainLimit(for: "status"))
        await server.waitUntilClosed()
        for await _ in client.closed { break }
        let answer = try #require(client.answer(2), "the hung status request was not answered")
        #expect(answer["error"]?["data"]?["cause"] == "runCancelled")
    }
}

/// A hub whose `status` and `fetchRooms` each wait until the test releases that call.
struct TwoHeldCallsHub: ForwardingHub {
    let base: any Hub
    let entered: AsyncStream<String>.Continuation
    let statusRelease: AsyncStream<Void>
    let roomsRelease: AsyncStream<Void>

    func status(structure: StructureID) async throws -> HubStatus {
        entered.yield("status")
        for await _ in statusRelease { break }
        return try await base.status(structure: structure)
    }

    func fetchRooms(structure: StructureID) async throws -> [Room] {
        entered.yield("fetchRooms")
        for await _ in roomsRelease { break }
        return try await base.fetchRooms(structure: structure)
    }
}

/// A client that leaves with two calls open: both run to their end and are answered in turn, and the connection
/// closes only after the last.
@Suite struct DepartedClientTests {
    @Test(.timeLimit(.minutes(1)))
    func bothCallsOfAClientThatLeftRunToTheirEndBeforeTheConnectionCloses() async throws {
        let simulated = try SimulatedHub(home: HomeDescription.defaultHome, clock: VirtualClock())
        let (entered, enteredContinuation) = AsyncStream<String>.makeStream()
        let (statusRelease, releaseStatus) = AsyncStream<Void>.makeStream()
        let (roomsRelease, releaseRooms) = AsyncStream<Void>.makeStream()
        let (clientEnd, serverEnd) = MemoryLineChannel.pair()
        let channel = EndOfInputChannel(serverEnd)
        let server = HubServer(
            hub: TwoHeldCallsHub(base: simulated, entered: enteredContinuation, statusRelease: statusRelease, roomsRelease: roomsRelease),
            channel: channel, identity: .init(name: "t", version: "1"))
        let client = AnswerCollector(clientEnd)
        try clientEnd.send(ServerEndOfInputTests.initialize)
        try clientEnd.send(ServerEndOfInputTests.status)
        try clientEnd.send(#"{"jsonrpc":"2.0","id":3,"method":"fetchRooms","params":{"structure":"maple-street"}}"#)
        var started: Set<String> = []
        for await call in entered {
            started.insert(call)
            if started.count == 2 { break }
        }
        channel.endInput()
        releaseStatus.yield()
        while client.answer(2) == nil { await Task.yield() }
        #expect(client.answer(3) == nil, "the second call is still running")
        releaseRooms.yield()
        await server.waitUntilClosed()
        for await _ in client.closed { break }
        #expect(client.answer(2)?["result"]?["online"] == true)
        let rooms = try #require(client.answer(3)?["result"]?["rooms"]?.arrayValue, "the second call was not answered")
        #expect(!rooms.isEmpty)
    }
}

/// A hub whose rooms make an answer longer than the protocol's line.
struct OverlongRoomsHub: ForwardingHub {
    let base: any Hub

    func fetchRooms(structure: StructureID) async throws -> [Room] {
        [Room(id: "r", name: String(repeating: "n", count: LineChannelLimits.maximumLineBytes))]
    }
}

@Suite struct ServerAnswerLimitTests {
    @Test(.timeLimit(.minutes(1))) func anAnswerTooLongForTheProtocolIsAnsweredWithAnErrorAndTheConnectionGoesOn() async throws {
        let simulated = try SimulatedHub(home: HomeDescription.defaultHome, clock: VirtualClock())
        let (clientEnd, serverEnd) = MemoryLineChannel.pair()
        let server = HubServer(hub: OverlongRoomsHub(base: simulated), channel: serverEnd, identity: .init(name: "t", version: "1"))
        let client = AnswerCollector(clientEnd)
        try clientEnd.send(ServerEndOfInputTests.initialize)
        try clientEnd.send(#"{"jsonrpc":"2.0","id":2,"method":"fetchRooms","params":{"structure":"maple-street"}}"#)
        try clientEnd.send(#"{"jsonrpc":"2.0","id":3,"method":"status","params":{"structure":"maple-street"}}"#)
        while client.answer(2) == nil || client.answer(3) == nil { await Task.yield() }
        let refused = try #require(client.answer(2)?["error"], "the overlong answer was not replaced by an error")
        #expect(refused["data"]?["cause"] == "hubFailure")
        #expect(refused["message"]?.stringValue?.contains("more than the hub protocol's 1 MiB line") == true, "\(refused)")
        #expect(client.answer(3)?["result"]?["online"] == true, "the connection serves the next call")
        clientEnd.close()
        await server.waitUntilClosed()
    }
}
