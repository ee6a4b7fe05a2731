import Foundation
import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJSON
import Synchronization

/// Paths inside the repository, found from this file rather than the working directory.
enum Repository {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path),
                FileManager.default.fileExists(atPath: url.appendingPathComponent("Workflows").path)
            {
                return url.path
            }
            url.deleteLastPathComponent()
        }
        preconditionFailure("no package root above \(#filePath)")
    }()

    static var workflows: String { root + "/Workflows" }
    static var fixtures: String { workflows + "/fixtures" }
    static var examples: String { root + "/Examples" }
}

/// A hub served by ``HubServer`` over an in-memory channel, with a ``RemoteHub`` in front of it.
struct WiredHub {
    let remote: RemoteHub
    let server: HubServer

    static func connect(
        _ hub: any Hub, clock: (any WorkflowClock)? = nil, operations: [String]? = nil, structures: [String] = []
    ) async throws -> WiredHub {
        let (clientEnd, serverEnd) = MemoryLineChannel.pair(sharedClock: clock)
        let server = HubServer(
            hub: hub, channel: serverEnd,
            identity: HubServer.Identity(name: "test-hub", version: "1", operations: operations, structures: structures))
        let remote = RemoteHub(channel: clientEnd, options: RemoteHub.Options(silenceLimit: nil))
        let hold = clock.map(ClockHold.init)
        defer { hold?.release() }
        try await remote.initialize()
        return WiredHub(remote: remote, server: server)
    }
}

/// The far end of a channel, scripted by a test: it records every line it receives and answers with `script`.
final class ScriptedPeer: Sendable {
    let channel: MemoryLineChannel
    private let lines = Mutex<[String]>([])
    private let script: @Sendable (JSONObject, ScriptedPeer) -> Void

    init(channel: MemoryLineChannel, script: @escaping @Sendable (JSONObject, ScriptedPeer) -> Void) {
        self.channel = channel
        self.script = script
        channel.start { [self] event in
            guard case .line(let line) = event else { return }
            lines.withLock { $0.append(line) }
            if let message = try? JSONDocument.parse(line, file: "test").value.objectValue { script(message, self) }
        }
    }

    var received: [String] { lines.withLock { $0 } }

    func send(_ value: JSONValue) { try? channel.send(JSONWriter.compact(value)) }

    func sendRaw(_ line: String) { try? channel.send(line) }

    /// Answers `initialize` listing `operations` (and events when `events`).
    func answerInitialize(_ message: JSONObject, operations: [String] = HubMethod.all, events: Bool = false) -> Bool {
        guard message["method"]?.stringValue == "initialize", let id = message["id"] else { return false }
        send([
            "jsonrpc": "2.0", "id": id,
            "result": [
                "protocolVersion": 1, "hub": ["name": "scripted", "version": "1"],
                "operations": .array(operations.map(JSONValue.string)), "events": .bool(events),
            ],
        ])
        return true
    }
}
