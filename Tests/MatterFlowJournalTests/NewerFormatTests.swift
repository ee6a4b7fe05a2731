import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import Testing

/// A journal a newer MatterFlow wrote (a newer header, or a `runStarted` of a newer format) is refused as such,
/// with the advice to use that version, never misread nor taken for a damaged file.
@Suite("journals of a newer format")
struct NewerFormatTests {
    static let started: JSONObject = [
        "seq": 1, "type": "runStarted", "runID": "run-n", "workflow": "w", "version": 1, "file": "/w.json", "contentHash": "ab",
        "structureID": "home", "inputs": [:], "secretsShown": false, "pid": 1, "format": 2,
    ]

    @Test("a header naming format 2 is a newer journal; a header that is no journal's is still not a journal")
    func newerHeader() throws {
        let record = JournalFrame.encode(Self.started)
        do {
            _ = try JournalReader.decode(Array("MATTERFLOW-JOURNAL 2\n".utf8) + record, path: "run-n.journal")
            Issue.record("a format-2 journal was read")
        } catch {
            #expect(error.code == .newerFormat)
            #expect(error.message.hasPrefix("run-n.journal is a journal of format 2, newer than this MatterFlow reads (1)"), "\(error.message)")
            #expect(error.message.contains("with that version"))
        }
        for header in ["MATTERFLOW-JOURNAL 1x\n", "MATTERFLOW-JOURNAL \n", "MATTERFLOW-JOURNAL 0\n", "NOT-A-JOURNAL 1\n"] {
            #expect(throws: JournalError.self) { _ = try JournalReader.decode(Array(header.utf8) + record, path: "x") }
            do {
                _ = try JournalReader.decode(Array(header.utf8) + record, path: "x")
            } catch {
                #expect(error.code == .notAJournal, "\(header.debugDescription)")
            }
        }
    }

    @Test("a runStarted record of format 2 makes its journal newer, whatever else its members hold")
    func newerRunStarted() throws {
        var started = Self.started
        started["secretDigests"] = "a shape this version does not know"
        let contents = try JournalReader.decode(Array(JournalFrame.header.utf8) + JournalFrame.encode(started), path: "run-n.journal")
        do {
            _ = try contents.entries()
            Issue.record("a format-2 runStarted was decoded")
        } catch {
            #expect(error.code == .newerFormat)
        }
        let summary = JournalRunSummary(contents, running: false)
        #expect(summary.status == .unreadable)
        #expect(summary.notes.first?.contains("newer than this MatterFlow reads") == true, "\(summary.notes)")
    }
}
