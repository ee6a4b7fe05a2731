import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import Testing

/// A `commissionDevice` whose state passes no `commissioningID` gets one generated from the run: the journal keeps
/// it, and a resumed run repeats the interrupted attempt under the same ID.
@Suite("generated commissioning IDs across recovery")
struct GeneratedKeyResumeTests {
    /// The shipped workflows, copied, with commission-device no longer passing `${run.id}` as the ID.
    static func workflowsWithoutID(in scratch: Scratch) throws -> String {
        let shipped = Repository.root + "/Workflows"
        for name in try FileManager.default.contentsOfDirectory(atPath: shipped) where name.hasSuffix(".json") {
            try FileManager.default.copyItem(atPath: shipped + "/" + name, toPath: scratch.file(name))
        }
        let path = scratch.file("commission-device.json")
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let edited = text.replacingOccurrences(of: #", "commissioningID": "${run.id}""#, with: "")
        #expect(edited != text, "commission-device.json no longer passes ${run.id}: update this test")
        try edited.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static func commissionIntents(_ records: [JournalRecord]) -> [JournalRecord] {
        records.filter { $0.type == JournalEntry.Kind.intent.rawValue && $0.string("operation") == "commissionDevice" }
    }

    @Test("a run resumed after the commissionDevice intent calls again with the journaled, generated ID")
    func resumedRunReusesTheGeneratedID() async throws {
        let workflows = try Scratch()
        defer { workflows.remove() }
        let workflowPath = try Self.workflowsWithoutID(in: workflows)
        // A complete run first, to find the intent's place in the journal.
        let complete = try await CrashScenario(position: .after, sequence: 1_000_000, workflowPath: workflowPath)
        let records = try JournalReader.read(path: try complete.journal().path(of: complete.runID)).records
        complete.scratch.remove()
        let intent = try #require(Self.commissionIntents(records).first)
        let generated = "\(CrashScenario.runID)/commission/commission"
        #expect(intent.payload["arguments"]?["commissioningID"] == .string(generated))

        let scenario = try await CrashScenario(position: .after, sequence: intent.sequence, workflowPath: workflowPath)
        defer { scenario.scratch.remove() }
        let run = try #require(try await scenario.recover(resume: true, inputs: WorkflowRecoveryTests.payload).runs.first)
        #expect(run.status == .succeeded, "\(run.notes)")
        let intents = Self.commissionIntents(try WorkflowRecoveryTests.records(scenario))
        #expect(intents.count == 2, "the interrupted attempt is made again")
        #expect(intents.map { $0.payload["arguments"]?["commissioningID"] } == [.string(generated), .string(generated)])
    }
}
