import Foundation
import Testing

/// What a worker checks before it reaches for its store: a wrong option is said as what it is.
@Suite struct WorkerStartChecksTests {
    @Test("--secrets naming a file is said to be no directory (exit 2), in the worker's log format, not as a digest key it cannot read")
    func secretsFileIsNoDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("not a directory\n", to: "secrets")
        for format in ["text", "json"] {
            let run = await matterflow(["worker", "--store", "host=/nonexistent dbname=x", "--secrets", file, "--log-format", format])
            #expect(run.code == 2, "\(run.stderr)")
            #expect(run.stderr.contains("--secrets \(file) is no directory; give the directory given to `matterflow submit --secrets`"), "\(run.stderr)")
            #expect(!run.stderr.contains("cannot read the secret digest key"), "\(run.stderr)")
            if format == "json" { #expect(run.stderr.hasPrefix("{"), "\(run.stderr)") }
        }
    }

    @Test("--home is checked before the store is reached, and its findings are lines of the worker's log format: a warning goes on, an error stops it (exit 2)")
    func homeFindingsInTheLogFormat() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let warned = try HomeWarningsTests.broadcastHome(in: directory)
        let broken = try directory.write(#"{"version": 1, "structure": {"id": "s"}}"#, to: "broken.json")
        for format in ["text", "json"] {
            let run = await matterflow(["worker", "--store", "host=/nonexistent dbname=x", "--home", warned, "--log-format", format, "--worker-id", "w1"])
            #expect(run.code == 2, "\(run.stderr)")
            let lines = run.stderrLines
            let warning = try #require(lines.first { $0.contains("warning[broadcastPANID]") }, "\(run.stderr)")
            let storeError = try #require(lines.firstIndex { $0.contains("error[") && !$0.contains("broadcastPANID") }, "\(run.stderr)")
            #expect(lines.firstIndex(of: warning)! < storeError, "the home is said before the store: \(run.stderr)")
            let stopped = await matterflow(["worker", "--store", "host=/nonexistent dbname=x", "--home", broken, "--log-format", format, "--worker-id", "w1"])
            #expect(stopped.code == 2, "\(stopped.stderr)")
            #expect(stopped.stderrLines.count == 1, "only the home's error, the store never reached: \(stopped.stderr)")
            #expect(stopped.stderr.contains("\(broken):"), "\(stopped.stderr)")
            #expect(stopped.stderr.contains("error[missingKey]"), "\(stopped.stderr)")
            guard format == "json" else {
                #expect(warning.hasPrefix("\(warned):"), "\(warning)")
                continue
            }
            for line in [warning] + stopped.stderrLines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
                #expect(object["worker"] as? String == "w1", "\(line)")
            }
            let object = try JSONSerialization.jsonObject(with: Data(warning.utf8)) as? [String: Any]
            #expect(object?["level"] as? String == "warning", "\(warning)")
            let stop = try JSONSerialization.jsonObject(with: Data(stopped.stderrLines[0].utf8)) as? [String: Any]
            #expect(stop?["level"] as? String == "error", "\(stopped.stderr)")
        }
    }
}
