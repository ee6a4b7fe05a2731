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
        #expect(history.stdout.hasPrefix("records from 2026-11-30 02:09:40 UTC (+seconds since then)\n"), "\(history.stdout)")
        #expect(history.stdout.contains(#"(damaged: "#) && history.stdout.contains(#"member "attempt""#), "\(history.stdout)")

        let recover = await matterflow("recover", "--journal", journal, "--state", directory.file("state"))
        #expect(recover.code == 1, "\(recover.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "recover changed a journal it could not read")
    }

    @Test("history marks a record lost to damage where it was, and tells the damage on stderr too")
    func aLostRecordIsMarkedInPlace() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let records: [JSONObject] = (1...3).map { seq in
            seq == 1
                ? ["seq": 1, "type": "runStarted", "wallTime": 1_796_004_580.25, "runID": "run-0000000bad02", "workflow": "prepare",
                   "version": 1, "file": "/nowhere/prepare.json", "contentHash": "00", "structureID": "home", "inputs": [:],
                   "secretsShown": false, "pid": 1, "format": 1]
                : ["seq": .int(seq), "type": "stateEntered", "wallTime": 1_796_004_581.0, "state": .string("s\(seq)")]
        }
        var bytes = Array(JournalFrame.header.utf8)
        var middle = 0..<0
        for (index, record) in records.enumerated() {
            let frame = JournalFrame.encode(record)
            if index == 1 { middle = bytes.count..<(bytes.count + frame.count) }
            bytes += frame
        }
        // A byte of the second record's payload flipped: its checksum no longer holds.
        let intact = bytes
        bytes[middle.upperBound - 4] ^= 0x20
        try FileManager.default.createDirectory(atPath: directory.file("journal"), withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: directory.file("journal/run-0000000bad02.journal")))

        let history = await matterflow("history", "run-0000000bad02", "--journal", directory.file("journal"))
        let lines = history.stdout.split(separator: "\n").map(String.init)
        let first = try #require(lines.firstIndex { $0.hasPrefix("#1 ") }, "\(history.stdout)")
        #expect(lines[first + 1] == "#2  (missing: damaged, see below)", "\(history.stdout)")
        #expect(lines[first + 2].hasPrefix("#3 "), "\(history.stdout)")
        #expect(history.stderr.contains("warning: the journal of run-0000000bad02 is damaged: "), "\(history.stderr)")

        // The first record lost is marked too.
        var firstLost = intact
        firstLost[Array(JournalFrame.header.utf8).count + 20] ^= 0x20
        try Data(firstLost).write(to: URL(fileURLWithPath: directory.file("journal/run-0000000bad02.journal")))
        let headless = await matterflow("history", "run-0000000bad02", "--journal", directory.file("journal"))
        #expect(headless.stdout.split(separator: "\n").dropFirst().first == "#1  (missing: damaged, see below)", "\(headless.stdout)")
    }

    @Test("history dates a record written a minute or more after the one before: a recovery an hour later reads as such")
    func pausesAreDated() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let start: JSONObject = [
            "seq": 1, "type": "runStarted", "wallTime": 1_796_004_580.25, "runID": "run-0000000000a1", "workflow": "prepare",
            "version": 1, "file": "/nowhere/prepare.json", "contentHash": "00", "structureID": "home", "inputs": [:],
            "secretsShown": false, "pid": 1, "format": 1,
        ]
        let entered: JSONObject = [
            "seq": 2, "type": "stateEntered", "wallTime": 1_796_004_639.25, "clockTime": 0, "workflow": "prepare", "state": "prepare",
            "stateType": "action",
        ]
        let recovery: JSONObject = [
            "seq": 3, "type": "recoveryStarted", "wallTime": 1_796_008_180.5, "mode": "cancel", "pid": 2, "lastSequence": 2,
            "interruptedIn": "prepare",
        ]
        let path = directory.file("journal/run-0000000000a1.journal")
        try FileManager.default.createDirectory(atPath: directory.file("journal"), withIntermediateDirectories: true)
        let bytes = Array(JournalFrame.header.utf8) + JournalFrame.encode(start) + JournalFrame.encode(entered) + JournalFrame.encode(recovery)
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let history = await matterflow("history", "run-0000000000a1", "--journal", directory.file("journal"))
        let lines = history.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "records from 2026-11-30 02:09:40 UTC (+seconds since then)", "\(history.stdout)")
        #expect(lines.contains { $0.hasPrefix("#2  +59.000s  stateEntered  ") }, "59 s after the one before: not dated")
        #expect(lines.contains { $0.hasPrefix("#3  +3600.250s (2026-11-30 03:09:40 UTC)  recoveryStarted  ") }, "\(history.stdout)")
    }
}
