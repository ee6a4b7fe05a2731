import Foundation
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT, SIGTERM and SIGHUP all take the cancel path: the session is released and the journal records the run
/// as cancelled before the process exits, by itself, with 128 + the signal's number.
@Suite("signals take the cancel path")
struct SignalTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var number: Int32
        var testDescription: String { name }
    }

    static let cases = [Case(name: "SIGINT", number: SIGINT), Case(name: "SIGTERM", number: SIGTERM), Case(name: "SIGHUP", number: SIGHUP)]

    @Test("a signal while commissioning releases the session, journals the run cancelled and exits 128 + signal", arguments: cases)
    func signalWhileCommissioning(_ signal: Case) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(
            TestHomes.json(extra: #""simulation": { "latencySeconds": { "commissionDevice": 30 } }"#), to: "slow-home.json")
        let state = directory.file("state")
        let journal = directory.file("journal")
        let child = try ChildProcess.launch(
            ["run", Repository.workflow("commission-device"), "--home", home, "--state", state, "--journal", journal,
             "--trace", "jsonl", "--clock", "real"] + commissionInputs())
        defer { child.kill() }

        let commissioning = await child.stderr.waitForLine { line in
            line.contains(#""event":"hubCallStarted""#) && line.contains(#""operation":"commissionDevice""#)
        }
        try #require(commissioning, "commissionDevice never started; stderr so far:\n\(child.stderr.text)")
        #expect(try savedHome(in: state).activeSession != nil)

        child.signal(signal.number)
        try #require(await child.waitForExit(), "matterflow did not exit after \(signal.name)")
        #expect(child.process.terminationReason == .exit, "\(signal.name) killed the process instead of cancelling the run")
        #expect(child.status == 128 + signal.number)

        let result = try #require(try parseJSON(child.stdout.text) as? [String: Any], "stdout: \(child.stdout.text)")
        #expect(result["outcome"] as? String == "cancelled")
        #expect(try savedHome(in: state).activeSession == nil, "the session is still held")
        let runs = try RunJournal(existingDirectory: journal).runs()
        #expect(runs.map(\.status) == [.cancelled])
        let records = try JournalReader.read(path: try #require(runs.first).path).records
        #expect(records.contains {
            $0.type == JournalRecord.Kind.outcome && $0.string("operation") == "cancelCommissioning"
                && $0.payload["succeeded"]?.boolValue == true
        })
    }
}
