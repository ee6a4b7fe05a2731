import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
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

    /// `workflow` run twice with the same seed, each on a fresh simulated hub of `home` and a virtual clock of its
    /// own: alone by a journaled engine, and in a pool, journaled. Both results, the paths of both journals, and the
    /// pool's journal directory and hub.
    static func runAloneAndPooled(
        _ workflow: Workflow, inputs: JSONObject, home: HomeDescription, seed: UInt64, in scratch: Scratch
    ) async throws -> (alone: RunResult, pooled: RunResult, aloneJournal: String, pooledJournal: String, journal: RunJournal, hub: SimulatedHub) {
        let single = try RunJournal(directory: scratch.file("single"))
        // Both directories get the same secret digest key, so their journals can be the same byte for byte.
        _ = try SecretDigestKey.loadOrCreate(inDirectory: single.directory, random: SeededRandomSource(seed: seed))
        let singleClock = VirtualClock()
        let hold = ClockHold(singleClock)
        let alone = try await single.run(
            workflow, inputs: inputs, on: try SimulatedHub(home: home, clock: singleClock),
            options: RunOptions(structureID: home.structure.id, clock: singleClock, random: SeededRandomSource(seed: seed), runID: runID))
        hold.release()

        let journal = try RunJournal(directory: scratch.file("pooled"))
        _ = try SecretDigestKey.loadOrCreate(inDirectory: journal.directory, random: SeededRandomSource(seed: seed))
        let poolClock = VirtualClock()
        let hub = try SimulatedHub(home: home, clock: poolClock)
        let pool = RunPool(hub: hub, clock: poolClock, random: SeededRandomSource(seed: seed))
        let run = try journal.submit(workflow, inputs: inputs, to: pool, structureID: home.structure.id, runID: runID)
        let pooled = try #require(await pool.result(of: run))
        return (alone, pooled, single.path(of: runID), journal.path(of: runID), journal, hub)
    }

    @Test("a pool's journaled run writes, record for record, the journal a single journaled run writes")
    func sameJournalAsASingleRun() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        let (alone, inPool, aloneJournal, pooledJournal, journal, hub) = try await Self.runAloneAndPooled(
            workflow, inputs: Self.inputs, home: Homes.basic(), seed: 11, in: scratch)

        #expect(alone.outcome == .succeeded, "\(String(describing: alone.error))")
        #expect(inPool.outcome == alone.outcome)
        #expect(inPool.output == alone.output)
        let expected = try Self.records(aloneJournal)
        let written = try Self.records(pooledJournal)
        #expect(expected.count > 30)
        #expect(written == expected)
        #expect(!String(decoding: try JournalFile.readAll(pooledJournal), as: UTF8.self).contains(Payloads.specQR))
        // The file was closed with the run: a recovery finds it finished, nothing to settle.
        let report = await journal.recover(on: hub)
        #expect(report.runs.map(\.action) == [.alreadyFinished], "\(report.runs)")
    }

    @Test("a pool's journaled run whose map runs elements at once records each element's calls as a single run does")
    func elementsAreJournaled() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-bridge"))
        let home = try HomeDescription.load(path: Repository.root + "/Examples/bridge-home.json").withoutSimulatedLatency
        let (alone, inPool, aloneJournal, pooledJournal, _, _) = try await Self.runAloneAndPooled(
            workflow, inputs: ["onboardingPayload": "MT:O6PS0C1K01HWUR1VJ00"], home: home, seed: 13, in: scratch)

        #expect(alone.outcome == .succeeded, "\(String(describing: alone.error))")
        #expect(inPool.output == alone.output)
        // The elements' records interleave in the order their calls end, which differs from run to run, and so do
        // the map's progress checkpoints (which elements have ended): the same records otherwise, and as many of those.
        let progress = { (record: String) in record.hasPrefix("checkpoint ") && !record.contains(#""map":null"#) }
        let expected = try Self.records(aloneJournal, numbered: false)
        let written = try Self.records(pooledJournal, numbered: false)
        #expect(written.filter { !progress($0) }.sorted() == expected.filter { !progress($0) }.sorted())
        #expect(written.filter(progress).count == expected.filter(progress).count)
        let reads = try JournalReader.read(path: pooledJournal).records("intent").compactMap(\.key).filter { $0.contains("[") }
        #expect(Set(reads) == Set((0..<4).map { "\(Self.runID)/readDevices[\($0)]/1" }), "\(reads)")
        #expect(written.last?.hasPrefix("runFinished") == true)
    }

    /// A sink that keeps records until the intent of `failingOperation`, which it refuses.
    final class RefusingSink: JournalSink {
        let failingOperation: String
        private let kept = Mutex<[EncodedJournalRecord]>([])
        init(failingOperation: String) { self.failingOperation = failingOperation }
        var name: String { "refusing sink" }
        func append(_ record: EncodedJournalRecord, sync: Bool) throws(JournalError) {
            if record.type == "intent", String(decoding: record.payload, as: UTF8.self).contains(#""operation":"\#(failingOperation)""#) {
                throw JournalError(.journalUnwritable, "the disk is full")
            }
            kept.withLock { $0.append(record) }
        }
        func flush() async throws(JournalError) {}
        func records() throws(JournalError) -> [JournalRecord] { [] }
        func close() {}
        var types: [String] { kept.withLock { $0.map(\.type) } }
    }

    @Test("a pool's run whose journal stops taking records is cancelled as a single run is, calling the hub no more")
    func aFailingJournalCancelsThePooledRun() async throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        let resolved = try workflow.resolveRunInputs(Self.inputs)

        let singleClock = VirtualClock()
        let singleHub = try SimulatedHub(home: Homes.basic(), clock: singleClock)
        let singleSink = RefusingSink(failingOperation: "commissionDevice")
        let hold = ClockHold(singleClock)
        let handle = RunJournal.start(
            workflow, resolved: resolved, on: singleHub,
            options: RunOptions(structureID: Homes.structureID, clock: singleClock, random: SeededRandomSource(seed: 14), runID: Self.runID),
            engine: WorkflowEngine(), writer: JournalWriter(sink: singleSink, nextSequence: 1, hook: nil),
            secretDigests: try SecretDigests.forRun(workflow: workflow, inputs: resolved.values, random: SeededRandomSource(seed: 14)) { nil })
        hold.release()
        let alone = await handle.result

        let poolClock = VirtualClock()
        let poolHub = try SimulatedHub(home: Homes.basic(), clock: poolClock)
        let pool = RunPool(hub: poolHub, clock: poolClock, random: SeededRandomSource(seed: 14))
        let sink = RefusingSink(failingOperation: "commissionDevice")
        let run = RunJournal.submit(
            workflow, resolved: resolved, to: pool, structureID: Homes.structureID, runID: Self.runID,
            answers: [:], observer: nil, writer: JournalWriter(sink: sink, nextSequence: 1, hook: nil),
            secretDigests: try SecretDigests.forRun(workflow: workflow, inputs: resolved.values, random: SeededRandomSource(seed: 14)) { nil })
        let inPool = try #require(await pool.result(of: run))

        #expect(inPool.outcome == .cancelled, "\(String(describing: inPool.error))")
        #expect(inPool.outcome == alone.outcome)
        #expect(inPool.visitedStates == alone.visitedStates)
        // The hub never saw the call whose intent could not be written, nor any after it.
        let calls = await poolHub.calls(structure: Homes.structureID).map { "\($0.operation)" }
        #expect(!calls.contains("commissionDevice"), "\(calls)")
        #expect(calls == (await singleHub.calls(structure: Homes.structureID).map { "\($0.operation)" }))
        #expect(sink.types == singleSink.types, "\(sink.types)")
        #expect(!sink.types.contains("runFinished"))
    }

    /// A call whose intent the journal file could not write (the disk filled as it was written: the record is torn)
    /// is not made; the cancel path's release still is. So for completeCommissioning too, which releases the session
    /// but also commits the devices: made without its intent, it would stand with no record of it.
    @Test("in a pool, a call whose intent the journal file could not write is not made; the release still is",
          arguments: ["commissionDevice", "completeCommissioning"])
    func tornIntentIsNotCalledInAPool(_ operation: String) async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        let intent = try await RecoveryTests.sequence(of: JournalEntry.Kind.intent.rawValue, operation)
        let journal = try RunJournal(directory: scratch.path)
        let clock = VirtualClock()
        let hub = try SimulatedHub(home: Homes.basic(), clock: clock)
        let pool = RunPool(hub: hub, clock: clock, random: SeededRandomSource(seed: 15))
        let writer = try JournalWriter(
            creating: journal.path(of: Self.runID),
            hook: { boundary in boundary.position == .before && boundary.sequence == intent ? .tear : .proceed })
        let run = RunJournal.submit(
            workflow, resolved: try workflow.resolveRunInputs(Self.inputs), to: pool, structureID: Homes.structureID,
            runID: Self.runID, answers: [:], observer: nil, writer: writer,
            secretDigests: try SecretDigests.forRun(workflow: workflow, inputs: Self.inputs, random: SeededRandomSource(seed: 15)) { nil })
        let result = try #require(await pool.result(of: run))
        #expect(result.outcome == .cancelled, "\(String(describing: result.error))")
        let calls = await hub.calls(structure: Homes.structureID).map { "\($0.operation)" }
        #expect(!calls.contains(operation), "\(calls)")
        #expect(calls.last == "cancelCommissioning", "the release still goes through: \(calls)")
        let home = try await hub.snapshot(structure: Homes.structureID)
        #expect(home.activeSession == nil)
        #expect(home.devices.count == Homes.basic().devices.count, "no device was committed without a record")
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
