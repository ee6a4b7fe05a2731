import Foundation
import MatterFlowJSON
import MatterFlowJournal
import Testing

/// A journal record whose frame is intact but whose members do not decode, as the commands show it.
@Suite("malformed journal records")
struct MalformedJournalTests {
    /// A journal whose second record, an intent, has an `attempt` that is not a number.
    static func write(in directory: TemporaryDirectory) throws -> String {
        let start: JSONObject = [
            "seq": 1, "type": "runStarted", "wallTime": 1_796_004_580.25, "runID": "run-0000000bad01", "workflow": "prepare",
            "version": 1, "file": "/nowhere/prepare.json", "contentHash": "00", "structureID": "home", "inputs": [:],
            "secretsShown": false, "pid": 1, "format": 1,
        ]
        let intent: JSONObject = [
            "seq": 2, "type": "intent", "wallTime": 1_796_004_580.5, "key": "run-0000000bad01/1", "workflow": "prepare",
            "state": "prepare", "operation": "prepareCommissioning", "structureID": "home", "attempt": "first",
            "arguments": [:], "effect": "nonIdempotentWrite", "acquiresSession": true, "releasesSession": false,
        ]
        let bytes = Array(JournalFrame.header.utf8) + JournalFrame.encode(start) + JournalFrame.encode(intent)
        let path = directory.file("journal/run-0000000bad01.journal")
        try FileManager.default.createDirectory(atPath: directory.file("journal"), withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("runs lists the run as unreadable, history names the record and member, recover leaves it and exits 1")
    func commands() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try Self.write(in: directory)
        let journal = directory.file("journal")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))

        let runs = await matterflow("runs", "--journal", journal, "--json")
        let listed = try #require(try parseJSON(runs.stdout) as? [[String: Any]])
        #expect(listed.first?["status"] as? String == "unreadable")
        let notes = listed.first?["notes"] as? [String] ?? []
        #expect(notes.contains { $0.contains("record 2 at byte") && $0.contains(#"member "attempt" must be an integer 1 or more"#) }, "\(notes)")

        let history = await matterflow("history", "run-0000000bad01", "--journal", journal)
        #expect(history.code == 0, "\(history.stderr)")
        #expect(history.stdout.contains("#2  +0.250s  intent  "), "the record is still shown as it is: \(history.stdout)")
        #expect(history.stdout.contains(#"(damaged: "#) && history.stdout.contains(#"member "attempt""#), "\(history.stdout)")

        let recover = await matterflow("recover", "--journal", journal, "--state", directory.file("state"))
        #expect(recover.code == 1, "\(recover.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "recover changed a journal it could not read")
    }
}
