import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// Runs of a ``RunPool`` journaled with ``RunJournal/submit(_:inputs:to:structureID:runID:answers:observer:)``: the
/// journal holds what a single journaled run's holds, record for record, so recovery treats both alike; a secret
/// answered while the run waits as data is kept as a digest, never as itself.
@Suite("journaled pool runs")
struct PoolJournalTests {
    static let runID = "run-000000000001"
    static let inputs: JSONObject = ["onboardingPayload": .string(Payloads.specQR), "deviceName": "Lamp", "roomName": "Kitchen"]

    /// Each record as its type and members, without the moment it was written.
    static func records(_ path: String, numbered: Bool = true) throws -> [String] {
        try JournalReader.read(path: path).records.map { record in
            var payload = record.payload
            payload["wallTime"] = nil
            if !numbered { payload["seq"] = nil }
            return record.type + " " + JSONWriter.compact(.object(payload))
        }
    }

    @Test("a pool's journaled run writes, record for record, the journal a single journaled run writes")
    func sameJournalAsASingleRun() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))

        let single = try RunJournal(directory: scratch.file("single"))
        let singleClock = VirtualClock()
        let hold = ClockHold(singleClock)
        let alone = try await single.run(
            workflow, inputs: Self.inputs, on: try SimulatedHub(home: Homes.basic(), clock: singleClock),
            options: RunOptions(structureID: Homes.structureID, clock: singleClock, random: SeededRandomSource(seed: 11), runID: Self.runID))
        hold.release()

        let pooled = try RunJournal(directory: scratch.file("pooled"))
        let poolClock = VirtualClock()
        let hub = try SimulatedHub(home: Homes.basic(), clock: poolClock)
        let pool = RunPool(hub: hub, clock: poolClock, random: SeededRandomSource(seed: 11))
        let run = try pooled.submit(workflow, inputs: Self.inputs, to: pool, structureID: Homes.structureID, runID: Self.runID)
        let inPool = try #require(await pool.result(of: run))

        #expect(alone.outcome == .succeeded, "\(String(describing: alone.error))")
        #expect(inPool.outcome == alone.outcome)
        #expect(inPool.output == alone.output)
        let expected = try Self.records(single.path(of: Self.runID))
        let written = try Self.records(pooled.path(of: Self.runID))
        #expect(expected.count > 30)
        #expect(written == expected)
        #expect(!String(decoding: try JournalFile.readAll(pooled.path(of: Self.runID)), as: UTF8.self).contains(Payloads.specQR))
        // The file was closed with the run: a recovery finds nothing to settle.
        let report = await pooled.recover(on: hub)
        #expect(report.runs.allSatisfy { $0.action == .alreadyFinished }, "\(report.runs)")
    }

    @Test("a pool's journaled run whose map runs elements at once records each element's calls as a single run does")
    func elementsAreJournaled() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-bridge"))
        let home = try HomeDescription.load(path: Repository.root + "/Examples/bridge-home.json").withoutSimulatedLatency
        let inputs: JSONObject = ["onboardingPayload": "MT:O6PS0C1K01HWUR1VJ00"]

        let single = try RunJournal(directory: scratch.file("single"))
        let singleClock = VirtualClock()
        let hold = ClockHold(singleClock)
        let alone = try await single.run(
            workflow, inputs: inputs, on: try SimulatedHub(home: home, clock: singleClock),
            options: RunOptions(structureID: home.structure.id, clock: singleClock, random: SeededRandomSource(seed: 13), runID: Self.runID))
        hold.release()

        let pooled = try RunJournal(directory: scratch.file("pooled"))
        let poolClock = VirtualClock()
        let pool = RunPool(hub: try SimulatedHub(home: home, clock: poolClock), clock: poolClock, random: SeededRandomSource(seed: 13))
        let run = try pooled.submit(workflow, inputs: inputs, to: pool, structureID: home.structure.id, runID: Self.runID)
        let inPool = try #require(await pool.result(of: run))

        #expect(alone.outcome == .succeeded, "\(String(describing: alone.error))")
        #expect(inPool.output == alone.output)
        // The elements' records interleave in the order their calls end, which differs from run to run, and so do
        // the map's progress checkpoints (which elements have ended): the same records otherwise, and as many of those.
        let progress = { (record: String) in record.hasPrefix("checkpoint ") && !record.contains(#""map":null"#) }
        let expected = try Self.records(single.path(of: Self.runID), numbered: false)
        let written = try Self.records(pooled.path(of: Self.runID), numbered: false)
        #expect(written.filter { !progress($0) }.sorted() == expected.filter { !progress($0) }.sorted())
        #expect(written.filter(progress).count == expected.filter(progress).count)
        let reads = try JournalReader.read(path: pooled.path(of: Self.runID)).records("intent").compactMap(\.key).filter { $0.contains("[") }
        #expect(Set(reads) == Set((0..<4).map { "\(Self.runID)/readDevices[\($0)]/1" }), "\(reads)")
        #expect(written.last?.hasPrefix("runFinished") == true)
    }

    @Test("a secret answered while a pool's run waits is journaled as a digest; the journal ends with the run")
    func secretAnswerIsDigested() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let workflow = try WorkflowEngine().load(text: #"""
            {"workflow": "door", "version": 1, "start": "door", "states": {
              "door": {"type": "ask", "question": "pin", "prompt": "Code?", "answer": {"text": {"pattern": "[0-9]{6}"}}, "secret": true,
                       "result": "code", "timeoutSeconds": 60, "next": "done", "onTimeout": "noAnswer"},
              "done": {"type": "succeed"},
              "noAnswer": {"type": "fail", "code": "deadlineExceeded", "message": "nobody answered"}
            }}
            """#, file: scratch.file("door.json"), baseDirectory: scratch.path)
        let journal = try RunJournal(directory: scratch.file("journal"))
        let pool = RunPool(hub: try SimulatedHub(home: Homes.basic()), clock: ManualClock(), random: SeededRandomSource(seed: 12))
        let run = try journal.submit(workflow, to: pool, structureID: Homes.structureID, runID: Self.runID)
        #expect(pool.waitingForAnswers == 1)
        try pool.answer(.string("424242"), to: "pin", of: run)
        #expect(try #require(await pool.result(of: run)).outcome == .succeeded)
        let contents = try JournalReader.read(path: journal.path(of: Self.runID))
        let answered = try #require(contents.records("answered").first)
        #expect(answered.payload["value"]?.stringValue == RunOptions.redacted, "\(answered.payload)")
        #expect(answered.string("digest")?.count == 64, "\(answered.payload)")
        #expect(contents.records.last?.type == JournalEntry.Kind.runFinished.rawValue)
        #expect(!String(decoding: try JournalFile.readAll(journal.path(of: Self.runID)), as: UTF8.self).contains("424242"))
    }
}
