import Foundation
import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// Both ends survive whatever the other sends: no trap, no hang, an error that says what was wrong.
@Suite struct HostileInputTests {
    static let hostileLines = [
        "", "   ", "not json", "[]", "42", "\"text\"", "null", "{}", "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"status\"}",
        String(repeating: "[", count: 100_000), String(repeating: "{\"a\":", count: 50_000),
        "{\"jsonrpc\":\"2.0\",\"id\":1e400,\"method\":\"status\",\"params\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":-5,\"method\":\"status\",\"params\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"status\",\"params\":[1,2]}",
        "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"activateEpskc\",\"params\":{\"structure\":\"maple-street\",\"deviceID\":\"x\",\"requestedDurationSeconds\":99999999999999999999}}",
        "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"joinThreadNetwork\",\"params\":{\"structure\":\"maple-street\",\"deviceID\":\"x\",\"operationalDataset\":\"zz\"}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"$/cancelRequest\",\"params\":{\"id\":\"x\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"event\",\"params\":{\"subscription\":\"s\",\"structure\":\"h\",\"event\":{\"time\":1e300}}}",
        "\u{0}\u{1}\u{7f}", "{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":99999999999999999999999,\"method\":\"status\",\"params\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"createAddDeviceRequest\",\"params\":{\"structure\":\"maple-street\",\"topology\":{\"ecosystemName\":\"E\\ud800\",\"homes\":[]}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"status\",\"params\":{\"structure\":\"maple-street\",\"structure\":\"elm-street\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":10,\"id\":11,\"method\":\"status\",\"params\":{\"structure\":\"maple-street\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"status\",\"params\":{\"structure\":\"maple-street\",\"a\":1,\"a\":2},\"id\":13}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"$/whatever\",\"params\":{\"b\":1,\"b\":2,\"n\":1e400}}",
    ]

    @Test func theServerAnswersEveryHostileLineAndKeepsServing() async throws {
        let simulated = try SimulatedHub(home: HomeDescription.defaultHome, clock: VirtualClock())
        let (clientEnd, serverEnd) = MemoryLineChannel.pair()
        _ = HubServer(hub: simulated, channel: serverEnd, identity: .init(name: "t", version: "1"))
        let peer = ScriptedPeer(channel: clientEnd) { _, _ in }
        peer.sendRaw(#"{"jsonrpc":"2.0","id":100,"method":"initialize","params":{"protocolVersion":1,"client":{"name":"t","version":"1"}}}"#)
        for line in Self.hostileLines { peer.sendRaw(line) }
        peer.sendRaw(#"{"jsonrpc":"2.0","id":101,"method":"status","params":{"structure":"maple-street"}}"#)
        // Requests are answered from tasks of their own, in any order: wait (bounded) until each checked one is.
        let awaited: Set<Int> = [3, 4, 5, 8, 9, 101]
        let deadline = ContinuousClock.now + .seconds(60)
        func answeredIDs() -> Set<Int> {
            Set(peer.received.compactMap { try? JSONDocument.parse($0, file: "t").value["id"]?.intValue })
        }
        while !awaited.isSubset(of: answeredIDs()), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(2))
        }
        let status = try #require(peer.received.first { $0.contains("\"id\":101") })
        #expect(status.contains("\"online\":true"), "\(status)")
        let answers = peer.received.compactMap { try? JSONDocument.parse($0, file: "t").value }
        let errorIDs = answers.filter { $0["error"] != nil }.compactMap { $0["id"]?.intValue }
        // The params that are not an object, the out-of-range duration and the bad dataset are invalid params.
        for id in [3, 4, 5, 8, 9] {
            let answer = try #require(answers.first { $0["id"]?.intValue == id }, "no answer to \(id)")
            #expect(answer["error"]?["data"]?["code"]?.stringValue == "invalidArgument", "\(answer)")
        }
        // A key given twice is refused, named, never served with one of its values; a repeated id is answered with
        // a null id (either could be the one the client waits on).
        let repeated = try #require(answers.first { $0["id"]?.intValue == 9 })
        #expect(repeated["error"]?["message"]?.stringValue?.contains(#"/params/structure: the request gives key "structure" twice"#) == true, "\(repeated)")
        #expect(!answers.contains { [10, 11, 12, 13].contains($0["id"]?.intValue) }, "\(answers)")
        #expect(peer.received.contains { $0.hasPrefix("{\"jsonrpc\":\"2.0\",\"id\":null") && $0.contains("/params/a: the request gives key") }, "\(peer.received)")
        // A notification is never answered, not even to refuse it.
        #expect(!peer.received.contains { $0.contains("\"b\\\" twice") || $0.contains("/params/n") }, "\(peer.received)")
        #expect(peer.received.contains { $0.hasPrefix("{\"jsonrpc\":\"2.0\",\"id\":null") && $0.contains("/id: the request gives key") }, "\(peer.received)")
        #expect(errorIDs.count >= 3)
        // An id beyond 64 bits reads clamped: the answer to it carries a null id, never one the client did not send.
        #expect(!peer.received.contains { $0.contains("\"id\":9223372036854775807") }, "\(peer.received)")
        #expect(peer.received.contains { $0.hasPrefix("{\"jsonrpc\":\"2.0\",\"id\":null") && $0.contains("/id: 99999999999999999999999") }, "\(peer.received)")
    }

    @Test("a hub's answer giving a key twice fails the call and ends the connection, naming the key")
    func theClientRefusesAnAnswerGivingAKeyTwice() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        _ = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message) { return }
            guard let id = message["id"]?.intValue else { return }
            peer.sendRaw(#"{"jsonrpc":"2.0","id":\#(id),"result":{"online":false,"reachable":true,"permissionGranted":true,"activeSession":false,"online":true}}"#)
        }
        let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: nil))
        try await remote.initialize()
        let failure = await flowError { _ = try await remote.status(structure: "home") }
        #expect(failure?.cause == .hubFailure, "\(String(describing: failure))")
        #expect(failure?.message.contains(#"gives key "online" twice in one object, at /result/online"#) == true, "\(String(describing: failure))")
    }

    @Test(arguments: HostileInputTests.hostileLines)
    func theClientFailsTheCallOnAHostileAnswerWithoutTrapping(_ line: String) async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        _ = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message) { return }
            peer.sendRaw(line.replacingOccurrences(of: "\"id\":7", with: "\"id\":2"))
            // A well-formed but useless answer after it, so a hostile line the client rightly ignores cannot hang.
            if let id = message["id"] { peer.send(["jsonrpc": "2.0", "id": id, "result": [:]]) }
        }
        let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: nil))
        try await remote.initialize()
        let failure = await flowError { _ = try await remote.status(structure: "home") }
        #expect(failure?.cause == .hubFailure, "\(line.prefix(60)): \(String(describing: failure))")
    }
}
