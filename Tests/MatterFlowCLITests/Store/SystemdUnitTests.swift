import Foundation
import Testing

@testable import MatterFlowCLI

/// The systemd unit in Examples/systemd starts a worker the way `matterflow worker` takes its options, and gives
/// its drain the time it needs before systemd kills it.
@Suite struct SystemdUnitTests {
    static let unit = Repository.root + "/Examples/systemd/matterflow-worker@.service"

    /// The unit's `Key=value` settings, continuation lines joined (a key set twice keeps its last value).
    static func settings() throws -> [String: String] {
        let text = try String(contentsOfFile: unit, encoding: .utf8).replacingOccurrences(of: "\\\n", with: " ")
        var settings: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("[") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            settings[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return settings
    }

    @Test("ExecStart's options are the worker's, their values in range; TimeoutStopSec covers twice the drain")
    func theUnitStartsAWorker() throws {
        let settings = try Self.settings()
        let words = try #require(settings["ExecStart"]).split(separator: " ").map(String.init)
        #expect(words.prefix(2) == ["/usr/local/bin/matterflow", "worker"], "\(words)")
        // systemd gives ${VAR} as one word, %H and %i as the host and the instance.
        let given = words.dropFirst(2).map {
            $0.replacingOccurrences(of: "${MATTERFLOW_STORE}", with: "host=db dbname=matterflow")
                .replacingOccurrences(of: "${MATTERFLOW_HUB}", with: "unix:/run/hub.sock")
                .replacingOccurrences(of: "%H", with: "host").replacingOccurrences(of: "%i", with: "1")
        }
        let parsed = try WorkerCommand.spec.parse(Array(given))
        #expect(parsed.positionals.isEmpty)
        #expect(parsed.value("store") == "host=db dbname=matterflow" && parsed.value("hub") == "unix:/run/hub.sock")
        #expect(parsed.flag("resume"), "the docs tell workers to resume a dead worker's runs, not cancel them")
        let drain = try parsed.wholeNumber("drain", default: 30, range: 1...3600, command: "worker")
        _ = try parsed.wholeNumber("wait-for-store", default: 0, range: 0...86_400, command: "worker")
        let timeout = try #require(settings["TimeoutStopSec"].flatMap { Int($0) })
        #expect(timeout > 2 * drain, "a run holding a secret takes the drain twice: systemd would kill it mid-withdrawal")
        #expect(settings["KillSignal"] == "SIGTERM")
        #expect(settings["RestartPreventExitStatus"] == "64", "a usage error is not worth a restart")
    }
}
