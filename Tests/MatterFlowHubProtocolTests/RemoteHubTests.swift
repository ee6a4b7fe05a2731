import Foundation
#if canImport(Glibc)
    import Glibc
#endif
@testable import MatterFlow
@testable import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// A Swift hub behind the hub protocol, through ``HubServer`` and ``RemoteHub`` over in-memory channels.
@Suite struct RemoteHubTests {
    static let payload = "MT:Y.K9042C00KA0648G00"

    @Test func commissionDeviceRunsEndToEndThroughTheWire() async throws {
        let clock = VirtualClock()
        let simulated = try SimulatedHub(home: HomeDescription.defaultHome, clock: clock)
        let structure = HomeDescription.defaultHome.structure.id
        let wired = try await WiredHub.connect(simulated, clock: clock, structures: [structure])
        #expect(wired.remote.handshake?.structures == [structure])
        let engine = WorkflowEngine()
        let workflow = try engine.load(path: Repository.workflows + "/commission-device.json")
        let result = try await engine.run(
            workflow, inputs: ["onboardingPayload": .string(Self.payload), "deviceName": "Lamp", "roomName": "Kitchen"],
            on: wired.remote.hub, options: RunOptions(structureID: structure, clock: clock))
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        let deviceIDs = result.output?["deviceIDs"]?.arrayValue ?? []
        #expect(deviceIDs.count == 1)
        let home = try await simulated.snapshot(structure: structure)
        #expect(home.activeSession == nil)
        #expect(home.devices.contains { $0.name == "Lamp" && .string($0.id) == deviceIDs.first })
    }

    @Test func hubErrorsKeepTheirCodeCauseAndMessage() async throws {
        let simulated = try SimulatedHub(home: HomeDescription.defaultHome, clock: VirtualClock())
        let structure = HomeDescription.defaultHome.structure.id
        _ = try await simulated.prepareCommissioning(structure: structure)
        let direct = await flowError { _ = try await simulated.prepareCommissioning(structure: structure) }
        let wired = try await WiredHub.connect(simulated)
        let remote = await flowError { _ = try await wired.remote.prepareCommissioning(structure: structure) }
        #expect(remote?.cause == .sessionBusy)
        // The wire carries the error's code, cause and message; who holds the session is in the message.
        var sent = direct
        sent?.sessionHolder = nil
        #expect(remote == sent)

        let unknown = await flowError { _ = try await wired.remote.basicInformation(structure: structure, deviceID: "nope") }
        #expect(unknown?.code == .notFound && unknown?.cause == .deviceNotFound)
    }

    @Test func anOperationTheHubDidNotListIsNotSupportedAndNeverSent() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        let peer = ScriptedPeer(channel: hubEnd) { message, peer in
            _ = peer.answerInitialize(message, operations: ["status"])
        }
        let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: nil))
        try await remote.initialize()
        let caught = await flowError { _ = try await remote.borderRouters(structure: "home") }
        #expect(caught?.code == .unimplemented && caught?.cause == .notSupported)
        #expect(caught?.message.contains("borderRouters") == true)
        #expect(peer.received.count == 1, "only initialize was sent: \(peer.received)")
        #expect(!(remote.hub is any RecoverableHub), "activeSession was not listed")
    }

    @Test("a hub that never answers the handshake is given up after the handshake's limit, not the calls' silence limit")
    func aSilentHandshakeEndsAtItsOwnLimit() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        let peer = ScriptedPeer(channel: hubEnd) { _, _ in }
        let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: .seconds(600), handshakeLimit: .milliseconds(100)))
        let started = ContinuousClock.now
        let caught = await flowError { _ = try await remote.initialize() }
        #expect(ContinuousClock.now - started < .seconds(60), "the handshake waited for the calls' limit")
        #expect(caught?.cause == .hubUnreachable)
        #expect(caught?.message.contains("the hub sent no answer within") == true, "\(String(describing: caught))")
        #expect(peer.received.count == 1)
        #expect(RemoteHub.Options().handshakeLimit == .seconds(30))
    }

    @Test func aHubThatClosesMidCallIsUnreachableAndTheCallInDoubt() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        _ = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message) { return }
            if message["method"]?.stringValue == "commissionDevice" { peer.channel.close() }
        }
        let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: nil))
        try await remote.initialize()
        let caught = await flowError {
            try await remote.commissionDevice(structure: "home", onboardingPayload: Self.payload, commissioningID: "c1")
        }
        #expect(caught?.code == .unavailable && caught?.cause == .hubUnreachable)
        #expect(caught?.message.contains("commissionDevice") == true)
        #expect(caught?.message.contains("unknown") == true)
        #expect(caught?.message.contains(Self.payload) == false)
        let later = await flowError { _ = try await remote.status(structure: "home") }
        #expect(later?.cause == .hubUnreachable)
    }

    @Test func aMalformedLineFailsTheCallNamingTheLineWithSecretsMasked() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        _ = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message) { return }
            peer.sendRaw(#"{"jsonrpc":"2.0","id":2,"result":{"epskc":"123456789", "payload":"MT:Y.K9042C00KA0648G00" oops"#)
        }
        let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: nil))
        try await remote.initialize()
        let caught = await flowError { _ = try await remote.status(structure: "home") }
        let error = try #require(caught)
        #expect(error.cause == .hubFailure)
        #expect(error.message.contains("line 2 from the hub"), "\(error.message)")
        #expect(error.message.contains("not JSON"))
        #expect(!error.message.contains("123456789") && !error.message.contains("Y.K9042C00KA0648G00"), "\(error.message)")
    }

    @Test("a call made after the hub broke the protocol is not sent, and says so: unreachable, not a hub failure in doubt quoting the old line as its answer")
    func aCallAfterAProtocolBreakIsNotSent() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        let peer = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message) { return }
            guard let id = message["id"] else { return }
            // Two answers to one call: the protocol is broken, and the connection closed.
            peer.send(["jsonrpc": "2.0", "id": id, "result": ["sessionID": "s1"]])
            peer.send(["jsonrpc": "2.0", "id": id, "result": ["sessionID": "s1"]])
        }
        let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: nil))
        try await remote.initialize()
        _ = try? await remote.prepareCommissioning(structure: "home")
        for _ in 0..<1_000_000 where !remote.connectionLost { await Task.yield() }
        #expect(remote.connectionLost, "the second answer closed the connection")
        let sentBefore = peer.received.count
        let later = await flowError { _ = try await remote.fetchRooms(structure: "home") }
        #expect(later?.code == .unavailable && later?.cause == .hubUnreachable, "\(String(describing: later))")
        #expect(later?.message.hasPrefix("fetchRooms was not sent: the connection to the hub was lost before it (") == true, "\(String(describing: later))")
        #expect(peer.received.count == sentBefore, "nothing more reached the hub")
    }

    @Test("the handshake's hub.instance is read when given, and one that is no usable ID fails the handshake naming it")
    func theHubsInstanceID() async throws {
        func handshake(_ hub: JSONValue) async -> (RemoteHub.Handshake?, FlowError?) {
            let (clientEnd, hubEnd) = MemoryLineChannel.pair()
            _ = ScriptedPeer(channel: hubEnd) { message, peer in
                guard let id = message["id"] else { return }
                peer.send([
                    "jsonrpc": "2.0", "id": id,
                    "result": ["protocolVersion": 1, "hub": hub, "operations": ["status"], "events": false],
                ])
            }
            let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: nil))
            do { return (try await remote.initialize(), nil) } catch { return (nil, error) }
        }
        #expect(await handshake(["name": "bridge", "version": "1", "instance": "fabric-7"]).0?.hubInstance == "fabric-7")
        #expect(await handshake(["name": "bridge", "version": "1"]).0?.hubInstance == nil)
        #expect(await handshake(["name": "bridge", "version": "1", "instance": .null]).0?.hubInstance == nil)
        for bad: JSONValue in ["", .string(String(repeating: "x", count: 201)), "two\nlines", 7] {
            let (made, failure) = await handshake(["name": "bridge", "version": "1", "instance": bad])
            #expect(made == nil && failure?.cause == .hubFailure, "\(bad)")
            #expect(failure?.message.contains("\"hub.instance\"") == true, "\(String(describing: failure))")
        }
    }

    @Test("a handshake with events true that does not list subscribe and unsubscribe fails, naming what to list")
    func eventsWithoutTheirMethods() async throws {
        func handshake(operations: [String], events: Bool) async -> FlowError? {
            let (clientEnd, hubEnd) = MemoryLineChannel.pair()
            _ = ScriptedPeer(channel: hubEnd) { message, peer in
                _ = peer.answerInitialize(message, operations: operations, events: events)
            }
            let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: nil))
            do { _ = try await remote.initialize() } catch { return error }
            return nil
        }
        let commissioning = HubMethod.commissioning
        let refused = await handshake(operations: commissioning + ["subscribe"], events: true)
        #expect(refused?.cause == .hubFailure, "\(String(describing: refused))")
        #expect(
            refused?.message == #"the hub's answer to initialize: "events" is true but "operations" does not list unsubscribe; list subscribe and unsubscribe with the events, or answer "events": false"#,
            "\(String(describing: refused))")
        #expect(await handshake(operations: commissioning, events: true)?.message.contains("does not list subscribe and unsubscribe") == true)
        #expect(await handshake(operations: commissioning, events: false) == nil)
        #expect(await handshake(operations: commissioning + HubMethod.events, events: true) == nil)
        // A server given operations without the events' methods offers no events, so its own client can connect.
        let wired = try await WiredHub.connect(try SimulatedHub(home: HomeDescription.defaultHome, clock: VirtualClock()), operations: commissioning)
        #expect(wired.remote.handshake?.events == false)
        await wired.remote.close()
    }

    @Test func aResultOfTheWrongShapeFailsOnlyThatCall() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        _ = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message) { return }
            guard let id = message["id"] else { return }
            if message["method"]?.stringValue == "prepareCommissioning" {
                peer.send(["jsonrpc": "2.0", "id": id, "result": ["sessionID": 7]])
            } else {
                peer.send(["jsonrpc": "2.0", "id": id, "result": ["released": false]])
            }
        }
        let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: nil))
        try await remote.initialize()
        let caught = await flowError { _ = try await remote.prepareCommissioning(structure: "home") }
        #expect(caught?.cause == .hubFailure)
        #expect(caught?.message.contains("\"sessionID\" must be a string") == true, "\(String(describing: caught))")
        #expect(try await remote.cancelCommissioning(structure: "home") == false)
    }

    @Test func cancellingACallSendsCancelRequestForItsID() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        _ = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message) { return }
            // The hub holds commissionDevice until the client cancels it, then answers as the contract says.
            if message["method"]?.stringValue == "$/cancelRequest", let id = message["params"]?["id"] {
                peer.send([
                    "jsonrpc": "2.0", "id": id,
                    "error": [
                        "code": -32000, "message": "cancelled",
                        "data": ["code": "cancelled", "cause": "runCancelled", "message": "the call was cancelled"],
                    ],
                ])
            }
        }
        let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: nil))
        try await remote.initialize()
        let call = Task {
            try await remote.commissionDevice(structure: "home", onboardingPayload: Self.payload, commissioningID: "c1")
        }
        // Cancels as soon as the request is out; the hub answers only the cancel.
        while remote.openCalls == 0 { await Task.yield() }
        call.cancel()
        let outcome = await call.result
        guard case .failure(let error) = outcome, let flow = error as? FlowError else {
            Issue.record("the call did not fail: \(outcome)")
            return
        }
        #expect(flow.cause == .runCancelled)
    }

    @Test func theRecoverableFormAnswersActiveSessionWithTheRunThatOwnsIt() async throws {
        let simulated = try SimulatedHub(home: HomeDescription.defaultHome, clock: VirtualClock())
        let structure = HomeDescription.defaultHome.structure.id
        let wired = try await WiredHub.connect(simulated)
        let recoverable = try #require(wired.remote.hub as? any RecoverableHub)
        #expect(try await recoverable.activeSession(structure: structure) == nil)
        let sessionID = try await HubCallContext.$current.withValue(HubCallContext(runID: "run-7", idempotencyKey: "run-7/1")) {
            try await recoverable.prepareCommissioning(structure: structure)
        }
        let session = try #require(try await recoverable.activeSession(structure: structure))
        #expect(session.sessionID == sessionID && session.owner == "run-7" && session.phase == .prepared)
    }

    @Test func theCallContextCarriesTheElementOfAConcurrentMap() async throws {
        let simulated = try SimulatedHub(home: HomeDescription.defaultHome, clock: VirtualClock())
        let structure = HomeDescription.defaultHome.structure.id
        // The simulated hub fails only the calls of element 2: it can tell only if the element crossed the wire.
        await simulated.addFault(
            FaultRule(.readBasicInformation, element: "readDevices[2]", .fail(FlowError(.hubUnreachable, "element 2 only"))), structure: structure)
        let wired = try await WiredHub.connect(simulated)
        func read(as element: String) async -> FlowError? {
            let context = HubCallContext(runID: "run-7", idempotencyKey: "run-7/\(element)/1", element: element)
            return await HubCallContext.$current.withValue(context) {
                await flowError { _ = try await wired.remote.basicInformation(structure: structure, deviceID: "nope") }
            }
        }
        #expect(await read(as: "readDevices[2]")?.cause == .hubUnreachable)
        #expect(await read(as: "readDevices[1]")?.cause == .deviceNotFound)
        #expect(HubCallContext(runID: "r", idempotencyKey: "r/e[0]/1", element: "e[0]").wireValue["element"] == "e[0]")
    }

    @Test func linesQuotedInErrorsNeverShowSecrets() {
        let line = #"{"epskc":"123456789","onboardingPayload":"MT:Y.K9042C00KA0648G00","manual":"34970112332","dataset":"0e080000000000010000"}"#
        let masked = LineQuote.masked(line, limit: 500)
        for secret in ["123456789", "Y.K9042C00KA0648G00", "34970112332", "0e080000000000010000"] {
            #expect(!masked.contains(secret), "\(masked)")
        }
        #expect(masked.contains("onboardingPayload"))
        // A manual code as printed on a label, in groups: the digits are counted across the separators.
        for grouped in ["1044-604-4879", "1044 604 4879", "6191-5614-0465-5233-29207"] {
            let quoted = LineQuote.masked("garbage: manual code \(grouped) rejected", limit: 500)
            #expect(quoted == "garbage: manual code <redacted> rejected", "\(quoted)")
        }
        #expect(LineQuote.masked("port 12 - 34 ok", limit: 500) == "port 12 - 34 ok", "short numbers stay")
        #expect(LineQuote.masked("payload mt:y.k9042c00ka0648g00 rejected", limit: 500) == "payload <redacted> rejected", "a payload typed in lower case")
        #expect(LineQuote.masked("fmt: stmt: Amt: mT: x", limit: 500) == "fmt: stmt: Amt: mT: x", "no word ending in mt:")
    }

    @Test("a quote cut short never ends inside a word or a string, either of which could be the start of a secret")
    func quotesAreCutBetweenWords() throws {
        let line = #"{"error":"bad","name":"hunter2-not-hex-secret","more":"x"}"#
        let cut = try #require(line.range(of: "hunter2")).lowerBound
        let limit = line.distance(from: line.startIndex, to: cut) + 4
        #expect(LineQuote.masked(line, limit: limit) == #"{"error":"bad","name":…"#)
        #expect(LineQuote.masked(line, limit: 5) == #"{…"#)
        #expect(LineQuote.masked("a-very-long-word-without-any-break", limit: 10) == "…")
        #expect(LineQuote.masked(line, limit: 200) == line, "a line within the limit is quoted whole")
        // A passphrase with spaces and punctuation: the cut falls between its words, but not inside its string.
        let passphrase = #"{"error":"refused","data":{"passphrase":"correct horse, battery: staple"}}"#
        for limit in 30..<(passphrase.count - 3) {
            let quoted = LineQuote.masked(passphrase, limit: limit)
            #expect(!quoted.contains("correct") || quoted.contains("correct horse, battery: staple"), "\(limit): \(quoted)")
        }
        #expect(LineQuote.masked(#"{"a":"x \" y","b":"zz"}"#, limit: 14) == #"{"a":"x \" y",…"#, "an escaped quote does not end a string")
        // A line longer than what the quote reads is cut before its last word, which the reading cut in two.
        let long = String(repeating: "word ", count: 1000) + "secret-beyond"
        let quotedLong = LineQuote.masked(long, limit: 10_000)
        #expect(quotedLong.hasSuffix("word …"), "\(quotedLong.suffix(20))")
        #expect(LineQuote.masked(String(repeating: "w ", count: 2048), limit: 10_000).hasSuffix("w "), "a line of exactly what is read is whole")
    }
}

/// The ``FlowError`` a call throws, or nil when it does not throw.
func flowError(_ body: () async throws -> Void) async -> FlowError? {
    do {
        try await body()
        return nil
    } catch {
        return FlowError.from(error)
    }
}

/// Virtual time with a hub that is not on the engine's clock: a call waiting for the hub holds time still.
@Suite struct RemoteHubVirtualTimeTests {
    @Test func anOutstandingCallKeepsVirtualTimeFromPassingItsTimeout() async throws {
        let clock = VirtualClock()
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        let peer = ScriptedPeer(channel: hubEnd) { message, peer in
            guard !peer.answerInitialize(message), message["method"]?.stringValue == "status", let id = message["id"] else { return }
            peer.send(["jsonrpc": "2.0", "id": id, "result": ["online": true, "reachable": true, "permissionGranted": true, "activeSession": false]])
        }
        let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: nil))
        try await remote.initialize()
        let engine = WorkflowEngine()
        let workflow = try engine.load(path: Repository.workflows + "/prepare.json")
        let handle = try engine.start(workflow, inputs: [:], on: remote, options: RunOptions(structureID: "home", clock: clock))
        // The hub holds prepareCommissioning; the engine is waiting for it.
        while !peer.received.contains(where: { $0.contains("\"prepareCommissioning\"") }) { await Task.yield() }
        #expect(clock.now == .zero, "no virtual time passes while the hub has the call")
        #expect(clock.activeTasks > 0)
        let prepare = try #require(peer.received.last.flatMap { try? JSONDocument.parse($0, file: "t").value })
        peer.send(["jsonrpc": "2.0", "id": prepare["id"] ?? .null, "result": ["sessionID": "session-9"]])
        let result = await handle.result
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(result.output?["sessionID"]?.stringValue == "session-9")
        #expect(clock.now == .zero)
    }
}

/// The file-descriptor transport (pipes and sockets) under a hub that breaks the framing.
@Suite struct FileDescriptorChannelTests {
    @Test func aLineOverOneMebibyteIsAProtocolErrorNotAnEndlessBuffer() async throws {
        var descriptors: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0)
        let remote = RemoteHub(channel: FileDescriptorChannel(.socket(descriptors[0])), options: .init(silenceLimit: nil))
        let hubDescriptor = descriptors[1]
        let hubEnd = FileDescriptorChannel(.socket(hubDescriptor))
        hubEnd.start { event in
            guard case .line(let line) = event, line.contains("\"initialize\"") else { return }
            // The hub answers with a line that never ends: 1 MiB of it, and more.
            let chunk = String(repeating: "7", count: 65536)
            let bytes = Array(("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"" + String(repeating: chunk, count: 17)).utf8)
            _ = bytes.withUnsafeBytes { write(hubDescriptor, $0.baseAddress, $0.count) }
        }
        let failure = await flowError { try await remote.initialize() }
        #expect(failure?.cause == .hubFailure, "\(String(describing: failure))")
        #expect(failure?.message.contains("longer than the 1 MiB limit") == true, "\(String(describing: failure))")
        #expect(failure?.message.contains(#"{"jsonrpc":"2.0","id":1,"result":""#) == true, "the line's start is quoted: \(String(describing: failure))")
        #expect(failure?.message.contains("777777777") == false, "masked")
        #expect(remote.connectionLost)
        hubEnd.close()
    }

    @Test(.timeLimit(.minutes(1))) func withWritesAfterEndOfInputTheEndOfInputLeavesTheWritingSideOpenUntilClose() async throws {
        var input: [Int32] = [0, 0]
        var output: [Int32] = [0, 0]
        #expect(pipe(&input) == 0)
        #expect(pipe(&output) == 0)
        let (ended, end) = AsyncStream<Void>.makeStream()
        let channel = FileDescriptorChannel(
            .pipes(read: input[0], write: output[1]), writesAfterEndOfInput: true, onEnd: { end.yield() })
        channel.start { _ in }
        _ = Glibc.close(input[1])
        for await _ in ended { break }
        // Reading has ended: the channel still sends.
        try channel.send("answer")
        channel.close()
        var bytes = [UInt8](repeating: 0, count: 64)
        var received: [UInt8] = []
        while true {
            let count = bytes.withUnsafeMutableBytes { read(output[0], $0.baseAddress, $0.count) }
            if count <= 0 { break }
            received += bytes[0..<count]
        }
        _ = Glibc.close(output[0])
        #expect(String(decoding: received, as: UTF8.self) == "answer\n")
    }

    /// A channel over a socket pair or pipes whose peer reads nothing (until the test reads its end); the peer's
    /// descriptors, its reading end first, to close at the end.
    static func channelToAPeerThatReadsNothing(
        socket: Bool, writeLimit: Duration = FileDescriptorChannel.defaultWriteLimit, writesAfterEndOfInput: Bool = false
    ) -> (FileDescriptorChannel, [Int32]) {
        var descriptors: [Int32] = [0, 0]
        var unused: [Int32] = [0, 0]
        #expect(pipe(&unused) == 0)
        if socket {
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0)
        } else {
            #expect(pipe(&descriptors) == 0)
            descriptors = [descriptors[1], descriptors[0]]
        }
        let kind: FileDescriptorChannel.Kind = socket ? .socket(descriptors[0]) : .pipes(read: unused[0], write: descriptors[0])
        let channel = FileDescriptorChannel(
            kind, writesAfterEndOfInput: writesAfterEndOfInput, endOfInput: { "ended" }, writeLimit: writeLimit, onEnd: {})
        return (channel, [descriptors[1], unused[1]])
    }

    /// The events a channel delivers, as a stream.
    static func events(of channel: FileDescriptorChannel) -> AsyncStream<LineEvent> {
        let (events, sink) = AsyncStream<LineEvent>.makeStream()
        channel.start { event in
            sink.yield(event)
            if case .closed = event { sink.finish() }
        }
        return events
    }

    /// Reads `descriptor` to its end.
    static func readAll(_ descriptor: Int32) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 65536)
        var received: [UInt8] = []
        while true {
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { return received }
            received += bytes[0..<count]
        }
    }

    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func aSendNeverWaitsForAPeerThatReadsNothingWhichEndsTheChannelAfterTheLimit(socket: Bool) async throws {
        let (channel, peer) = Self.channelToAPeerThatReadsNothing(socket: socket, writeLimit: .milliseconds(300))
        defer { peer.forEach { _ = Glibc.close($0) } }
        let events = Self.events(of: channel)
        // Far more than the peer's buffer takes: every send returns at once (a blocked writer would hold its task's
        // thread until the limit, and then fail).
        let line = String(repeating: "x", count: 100_000)
        for _ in 0..<40 { try channel.send(line) }
        var ending: String?
        for await event in events {
            if case .closed(let reason) = event { ending = reason }
        }
        #expect(ending == "a line could not be sent: the hub has taken none of its input for 0.3 s")
        #expect(throws: LineChannelError("the hub has taken none of its input for 0.3 s"), "nothing more is sent") {
            try channel.send("more")
        }
        await channel.waitUntilSent()
        channel.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func sendsBeyondTheQueueLimitFailAtOnce() async throws {
        let (channel, peer) = Self.channelToAPeerThatReadsNothing(socket: true)
        channel.start { _ in }
        let line = String(repeating: "y", count: LineChannelLimits.maximumLineBytes)
        var refusal: LineChannelError?
        for _ in 0..<(FileDescriptorChannel.queueLimit / line.utf8.count + 2) {
            do throws(LineChannelError) {
                try channel.send(line)
            } catch {
                refusal = error
                break
            }
        }
        #expect(refusal?.message.hasPrefix("the hub has not taken the ") == true, "\(String(describing: refusal))")
        #expect(refusal?.message.hasSuffix("(at most 8388608 may wait)") == true, "\(String(describing: refusal))")
        // The peer goes away: the queue fails at once instead of after the 30 s limit.
        peer.forEach { _ = Glibc.close($0) }
        await channel.waitUntilSent()
        channel.close()
    }

    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func closeAfterSendingLetsTheLinesAlreadySentReachAPeerThatReadsLate(socket: Bool) async throws {
        let (channel, peer) = Self.channelToAPeerThatReadsNothing(socket: socket, writesAfterEndOfInput: true)
        channel.start { _ in }
        let lines = (0..<30).map { "\($0):" + String(repeating: "z", count: 20_000) }
        for line in lines { try channel.send(line) }
        // The peer has read nothing yet: most lines are queued when the channel is closed.
        channel.closeAfterSending()
        _ = Glibc.close(peer[1])
        let peerEnd = peer[0]
        let received = await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8], Never>) in
            Thread { continuation.resume(returning: Self.readAll(peerEnd)) }.start()
        }
        await channel.waitUntilSent()
        _ = Glibc.close(peerEnd)
        #expect(String(decoding: received, as: UTF8.self) == lines.map { $0 + "\n" }.joined(), "every line, in order, then the end")
    }

    @Test(.timeLimit(.minutes(1)), arguments: [false, true])
    func closeDropsWhatAPeerThatReadsNothingHasNotTakenAndEndsAtOnce(socket: Bool) async throws {
        let (channel, peer) = Self.channelToAPeerThatReadsNothing(socket: socket)
        defer { peer.forEach { _ = Glibc.close($0) } }
        channel.start { _ in }
        let line = String(repeating: "x", count: 100_000)
        for _ in 0..<20 { try channel.send(line) }
        let before = ContinuousClock.now
        channel.close()
        await channel.waitUntilSent()
        // The queue gives up within a slice of its wait, not at the 30 s write limit.
        #expect(ContinuousClock.now - before < .seconds(10))
        #expect(throws: LineChannelError("the connection is closed")) { try channel.send("more") }
    }

    @Test(.timeLimit(.minutes(1)))
    func closeAfterSendingGivesAPeerThatReadsSlowlyTheWriteLimitFromTheCloseNotMore() async throws {
        let (channel, peer) = Self.channelToAPeerThatReadsNothing(socket: false, writeLimit: .seconds(2))
        let events = Self.events(of: channel)
        // The peer takes a page every 20 ms: each write goes on, but the whole queue would take about 10 s.
        let reader = peer[0]
        let (readerEnded, end) = AsyncStream<Void>.makeStream()
        Thread {
            var page = [UInt8](repeating: 0, count: 4096)
            while page.withUnsafeMutableBytes({ read(reader, $0.baseAddress, $0.count) }) > 0 { usleep(20_000) }
            end.finish()
        }.start()
        let line = String(repeating: "x", count: 100_000)
        for _ in 0..<20 { try channel.send(line) }
        channel.closeAfterSending()
        var ending: String?
        for await event in events {
            if case .closed(let reason) = event { ending = reason }
        }
        #expect(ending == "a line could not be sent: the hub did not take its last lines within 2 s of the close", "\(String(describing: ending))")
        await channel.waitUntilSent()
        // The channel's end of the pipe is closed: the reader sees its end before its descriptor is closed.
        for await _ in readerEnded {}
        peer.forEach { _ = Glibc.close($0) }
    }
}

/// Border routers through a hub that lists only part of them.
@Suite struct RemoteBorderRouterTests {
    @Test func aHubListingOnlyBorderRoutersStillAnswersOneBorderRouter() async throws {
        let home = try HomeDescription.load(path: Repository.examples + "/border-router-home.json")
        let simulated = try SimulatedHub(home: home, clock: VirtualClock())
        let structure = home.structure.id
        let operations = HubMethod.all.filter { $0 != "borderRouter" }
        let wired = try await WiredHub.connect(simulated, operations: operations)
        let routers = try await simulated.borderRouters(structure: structure)
        let first = try #require(routers.first)
        #expect(try await wired.remote.borderRouter(structure: structure, deviceID: first.deviceID) == first)
        let missing = await flowError { _ = try await wired.remote.borderRouter(structure: structure, deviceID: "nope") }
        #expect(missing?.cause == .deviceNotFound)
        let workflow = try WorkflowEngine().load(path: Repository.workflows + "/border-router-info.json")
        #expect(HubSupportCheck.findings(workflow, handshake: try #require(wired.remote.handshake)).isEmpty)
    }
}

/// The real-time bounds of the client leave the run's own timeout, cancel and wait for a cancelled call to act first.
@Suite struct RemoteHubBoundsTests {
    @Test("a run's call is cut off for silence only after its own timeout, the engine's wait and time to cancel")
    func aRunsCallOutlastsItsTimeoutBeforeTheSilenceLimit() {
        let (clientEnd, _) = MemoryLineChannel.pair()
        let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: .seconds(120)))
        #expect(remote.silenceLimit(for: nil) == .seconds(120), "a call outside a run")
        let short = HubCallContext(runID: "r", idempotencyKey: "r/1", timeout: .seconds(30))
        #expect(remote.silenceLimit(for: short) == .seconds(120))
        // commissionDevice's default timeout equals the silence limit: the connection must outlive the cancel.
        let commission = HubCallContext(runID: "r", idempotencyKey: "r/2", timeout: .seconds(120))
        #expect(remote.silenceLimit(for: commission) == .seconds(180))
        let long = HubCallContext(runID: "r", idempotencyKey: "r/3", timeout: .seconds(200))
        #expect(remote.silenceLimit(for: long) == .seconds(260))
        let unlimited = RemoteHub(channel: MemoryLineChannel.pair().0, options: .init(silenceLimit: nil))
        #expect(unlimited.silenceLimit(for: long) == nil)
    }

    @Test("a cancelled call waits for the hub longer than the engine waits for it, so the engine sees a late answer")
    func theCancelGraceOutlastsTheEnginesWait() {
        #expect(RemoteHub.Options().cancelGrace > StepRace.gracePeriod + AbandonedCalls.limit)
        #expect(RemoteHub.runWindow > StepRace.gracePeriod + AbandonedCalls.limit)
    }

    @Test("a run sets its call's timeout in the context its hub sees")
    func theRunsCallCarriesItsTimeout() async throws {
        let home = HomeDescription.defaultHome
        let seen = LockedList()
        let hub = MisbehavingPrepare(inner: try SimulatedHub(home: home, clock: SystemClock())) { inner, structure in
            seen.append("\(HubCallContext.current?.timeout.map { "\($0)" } ?? "none")")
            return try await inner.prepareCommissioning(structure: structure)
        }
        let workflow = try WorkflowEngine().load(
            text: #"{"workflow": "t", "version": 1, "start": "prepare", "onCancel": "release", "states": {"prepare": {"type": "action", "operation": "prepareCommissioning", "timeoutSeconds": 42, "next": "release"}, "release": {"type": "action", "operation": "cancelCommissioning", "next": "done"}, "done": {"type": "succeed"}}}"#,
            baseDirectory: "/")
        let result = try await WorkflowEngine().run(workflow, on: hub, options: RunOptions(structureID: home.structure.id))
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(seen.value == ["42.0 seconds"])
    }
}

/// A hub's Thread network summary is held to the ranges the protocol documents.
@Suite struct HubNetworkValueTests {
    static func read(_ network: JSONValue) -> Result<ThreadNetworkSummary?, FlowError> {
        Result { () throws(FlowError) in
            try HubWire.network(try WireReader(network, subject: "the hub's result for borderRouters", cause: .hubFailure))
        }
    }

    @Test("a channel outside 11...26 or an extended PAN ID that is not 16 lowercase hex digits is the hub's failure")
    func outOfRangeNetworksAreRefused() throws {
        let good: JSONObject = ["networkName": "OpenThread", "panID": 0x5938, "extendedPANID": "39758ec8144b07fb", "channel": 15]
        #expect(try Self.read(.object(good)).get()?.channel == 15)
        for (key, value, wanted) in [
            ("channel", JSONValue.int(99), "an integer in 11...26"), ("channel", .int(10), "an integer in 11...26"),
            ("extendedPANID", "39758EC8144B07FB", "16 lowercase hex digits"), ("extendedPANID", "39758ec8", "16 lowercase hex digits"),
        ] {
            var network = good
            network[key] = value
            guard case .failure(let error) = Self.read(.object(network)) else {
                Issue.record("\(key) \(value) was taken")
                continue
            }
            #expect(error.cause == .hubFailure)
            #expect(error.message.contains("member \"\(key)\" must be \(wanted)"), "\(error.message)")
        }
    }
}

/// A hub's answer to activateEpskc: a key of 9 digits granted for at most 600 s, or a status that says the router
/// refused; the key is never quoted.
@Suite struct HubActivationValueTests {
    static func read(_ activation: JSONObject) -> Result<EpskcActivation, FlowError> {
        Result { () throws(FlowError) in
            try HubWire.activation(try WireReader(.object(activation), subject: "the hub's result for activateEpskc", cause: .hubFailure))
        }
    }

    @Test("success with a 9-digit key and 1...600 s is taken; another status is the router's refusal, not a key")
    func statusesAndKeys() throws {
        let good: JSONObject = ["status": "success", "epskc": "307318421", "validDurationSeconds": 120]
        #expect(try Self.read(good).get().epskc == "307318421")
        var refused = good
        refused["status"] = "busy"
        refused["epskc"] = ""
        guard case .failure(let refusal) = Self.read(refused) else { Issue.record("a refusal was taken for a key"); return }
        #expect(refusal.cause == .epskcNotActivated)
        #expect(refusal.code == .failedPrecondition)
        #expect(refusal.message.contains(#"status "busy""#))
        for (key, value) in [("epskc", JSONValue.string("12345")), ("epskc", "12345678a"), ("validDurationSeconds", 900), ("validDurationSeconds", 0)] {
            var answer = good
            answer[key] = value
            guard case .failure(let error) = Self.read(answer) else {
                Issue.record("\(key) \(value) was taken")
                continue
            }
            #expect(error.cause == .hubFailure, "\(key)")
            #expect(!error.message.contains("12345"), "the key is never quoted: \(error.message)")
        }
    }
}

/// A channel whose sends of a chosen method's request wait for a signal, over an in-memory pair: what the peer
/// receives, in order, shows what was written first.
final class HeldSendChannel: LineChannel {
    let inner: MemoryLineChannel
    let heldMethod: String
    let entered = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)

    init(_ inner: MemoryLineChannel, holding method: String) {
        self.inner = inner
        heldMethod = method
    }

    func start(_ receive: @escaping @Sendable (LineEvent) -> Void) { inner.start(receive) }

    func send(_ line: String) throws(LineChannelError) {
        if line.contains("\"method\":\"\(heldMethod)\"") {
            entered.signal()
            release.wait()
        }
        try inner.send(line)
    }

    func close() { inner.close() }
}

@Suite struct CancelOrderTests {
    @Test(.timeLimit(.minutes(1)))
    func aCancelWhileTheRequestIsBeingWrittenFollowsItAndKeepsItsGrace() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        // The hub answers the handshake and ignores everything else, the cancel included.
        let peer = ScriptedPeer(channel: hubEnd) { message, peer in
            _ = peer.answerInitialize(message)
        }
        let channel = HeldSendChannel(clientEnd, holding: "fetchRooms")
        let remote = RemoteHub(channel: channel, options: .init(silenceLimit: .seconds(30), cancelGrace: .milliseconds(200)))
        try await remote.initialize()
        let call = Task { try await remote.fetchRooms(structure: "home") }
        // Cancelled while its line is being written (on a thread of its own: no task waits blocked here).
        Thread {
            channel.entered.wait()
            call.cancel()
            channel.release.signal()
        }.start()
        let started = ContinuousClock.now
        let failure = await flowError { _ = try await call.value }
        #expect(ContinuousClock.now - started < .seconds(20), "the cancelled call waited the silence limit, not its grace")
        #expect(failure?.message.contains("did not answer the cancelled fetchRooms") == true, "\(String(describing: failure))")
        #expect(!remote.connectionLost, "an unanswered cancel gives up the call, not the connection")
        let methods = peer.received.compactMap { line in
            (try? JSONDocument.parse(line, file: "line"))?.value["method"]?.stringValue
        }
        #expect(methods == ["initialize", "fetchRooms", "$/cancelRequest"], "\(methods)")
    }

    @Test(.timeLimit(.minutes(1)))
    func aLineTheHubWillNotTakeLosesTheConnectionForEveryCall() async throws {
        var descriptors: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0)
        let channel = FileDescriptorChannel(
            .socket(descriptors[0]), writesAfterEndOfInput: false, endOfInput: { "ended" }, writeLimit: .milliseconds(300), onEnd: {})
        let remote = RemoteHub(channel: channel, options: .init(silenceLimit: nil))
        // The hub answers the handshake, then reads nothing more.
        let hubDescriptor = descriptors[1]
        defer { _ = Glibc.close(hubDescriptor) }
        Thread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = buffer.withUnsafeMutableBytes { read(hubDescriptor, $0.baseAddress, $0.count) }
            let answer = Array(#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"hub":{"name":"stuck","version":"1"},"operations":["status"],"events":false}}"#.utf8) + [10]
            _ = answer.withUnsafeBytes { write(hubDescriptor, $0.baseAddress, $0.count) }
        }.start()
        try await remote.initialize()
        let big = String(repeating: "s", count: 900_000)
        let failure = await flowError { _ = try await remote.status(structure: big) }
        #expect(failure?.cause == .hubUnreachable, "\(String(describing: failure))")
        #expect(failure?.message.contains("the hub has taken none of its input for 0.3 s") == true, "\(String(describing: failure))")
        #expect(remote.connectionLost, "a client that connects again (a worker) sees the connection is lost")
    }
}

/// What a client does with what it cannot send, and what a conformance run tells of a hub that did not end.
@Suite struct UnsendableTests {
    @Test func aRequestTooLongForTheProtocolFailsAloneAndIsNeverSent() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        let peer = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message, operations: ["status"]) { return }
            guard let id = message["id"] else { return }
            peer.send(["jsonrpc": "2.0", "id": id, "result": ["online": true, "reachable": true, "permissionGranted": true, "activeSession": false]])
        }
        let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: nil))
        try await remote.initialize()
        let failure = await flowError { _ = try await remote.status(structure: String(repeating: "s", count: 1_100_000)) }
        #expect(failure?.cause == .invalidArgumentValue, "\(String(describing: failure))")
        #expect(failure?.message.contains("more than the hub protocol's 1 MiB line; it was not sent") == true)
        #expect(!remote.connectionLost)
        #expect(try await remote.status(structure: "home").online, "the connection serves the next call")
        #expect(peer.received.count == 2, "only initialize and the next status were sent")
    }

    @Test("a hub that answers the handshake wrongly and stays is a failed check, never a hub that closed the connection")
    func aWrongHandshakeIsNotAClose() async throws {
        for _ in 0..<20 {
            var descriptors: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0)
            let hubEnd = FileDescriptorChannel(.socket(descriptors[1]), writesAfterEndOfInput: true)
            hubEnd.start { event in
                guard case .line(let line) = event, let message = try? JSONDocument.parse(line, file: "l").value.objectValue,
                    let id = message["id"]
                else { return }
                try? hubEnd.send(JSONWriter.compact(["jsonrpc": "2.0", "id": id, "result": ["protocolVersion": 2]]))
            }
            let report = await HubConformance(answerLimit: .seconds(5)).report(on: FileDescriptorChannel(.socket(descriptors[0])))
            hubEnd.close()
            #expect(report.endedBeforeHandshake == nil, "\(report.checks.map(\.name))")
            #expect(report.checks.contains { $0.name == HubConformance.handshakeCheck && $0.verdict == .failed })
        }
    }
}
