import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
import Testing

/// A service holding journaled runs in a ``RunPool`` dies while they wait; on restart, recovery puts them back into a
/// pool (`recover(into:)`), where they wait as data again and wake as their events and answers say, and their
/// journals end as a recovery's do.
@Suite("recovery into a pool")
struct PoolRecoveryTests {
    static let shareID = "run-00000000a001"
    static let commissionID = "run-00000000a002"
    static let watchID = "run-00000000a003"
    /// Waits for the end of a border router's ePSKc key, holding no secret: a run that recovery can resume.
    static let watching = #"""
        {"workflow": "watch-key", "version": 1, "start": "wait", "onCancel": "stopped", "states": {
          "wait": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 600, "result": "ended",
                   "on": {"keyUsed": "used"}, "otherwise": "notUsed", "onTimeout": "notUsed"},
          "used": {"type": "succeed", "output": {"router": "${vars.ended.deviceID}"}},
          "notUsed": {"type": "fail", "code": "deadlineExceeded", "message": "the key was not used"},
          "stopped": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "stopped watching"}
        }}
        """#
    static let payload: JSONObject = ["onboardingPayload": .string(Payloads.specQR)]

    /// Waits for runs' events, by run ID and event name (a question's with its name: `questionAsked:room`), without
    /// polling: the pool's observer opens each latch.
    final class EventLatch: Sendable {
        private struct State {
            var seen: Set<String> = []
            var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]
        }
        private let state = Mutex(State())

        func observe(_ event: RunEvent) {
            var key = event.runID + ":" + event.name
            if case .questionAsked(_, let question) = event.kind { key += ":" + question.name }
            observe(key: key)
        }

        private func observe(key: String) {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.seen.insert(key)
                return state.waiters.removeValue(forKey: key) ?? []
            }
            for waiter in waiters { waiter.resume() }
        }

        /// Returns once the run has reported the event (at once if it already has); a run that never does fails
        /// the test after 60 s instead of hanging it.
        func wait(_ runID: String, _ name: String) async {
            let key = runID + ":" + name
            let seen = await withTaskGroup(of: Bool.self) { group in
                group.addTask {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let seen = self.state.withLock { state -> Bool in
                            if state.seen.contains(key) { return true }
                            state.waiters[key, default: []].append(continuation)
                            return false
                        }
                        if seen { continuation.resume() }
                    }
                    return true
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(60))
                    return false
                }
                let first = await group.next() ?? false
                if !first { self.observe(key: key) }
                group.cancelAll()
                return first
            }
            #expect(seen, "run \(runID) never reported \(name)")
        }
    }

    /// The service before it dies: an ePSKc share waiting for its key's end, a run watching for that end too, and an
    /// interactive commissioning holding its session while it waits for the room. The copy of its journal and home taken then is what a
    /// killed process leaves: every record it appended, and no lock.
    struct Crash {
        let scratch: Scratch
        let home: HomeDescription
        let router: String
        var structure: StructureID { home.structure.id }
        var journalDirectory: String { scratch.file("journal-after") }
        var stateDirectory: String { scratch.file("state-after") }

        init() async throws {
            scratch = try Scratch()
            home = try HomeDescription.load(path: Repository.root + "/Examples/border-router-home.json").withoutSimulatedLatency
            router = try #require(home.thread.borderRouters.first?.deviceID)
            let engine = WorkflowEngine()
            let share = try engine.load(path: Repository.workflow("epskc-share"))
            let commission = try engine.load(path: Repository.workflow("commission-device-interactive"))
            try Data(PoolRecoveryTests.watching.utf8).write(to: URL(fileURLWithPath: scratch.file("watch-key.json")))
            let watch = try engine.load(path: scratch.file("watch-key.json"))
            let latch = EventLatch()
            let hub = try SimulatedHub(
                stateStore: try HomeStateStore(directory: scratch.file("state"), startingFrom: home), clock: ManualClock())
            let pool = RunPool(hub: hub, clock: ManualClock(), random: SeededRandomSource(seed: 21), observer: latch.observe)
            let journal = try RunJournal(directory: scratch.file("journal"))
            try journal.submit(share, inputs: ["durationSeconds": 300], to: pool, structureID: home.structure.id, runID: PoolRecoveryTests.shareID)
            try journal.submit(commission, inputs: PoolRecoveryTests.payload, to: pool, structureID: home.structure.id, runID: PoolRecoveryTests.commissionID)
            try journal.submit(watch, to: pool, structureID: home.structure.id, runID: PoolRecoveryTests.watchID)
            await latch.wait(PoolRecoveryTests.shareID, "waitStarted")
            await latch.wait(PoolRecoveryTests.watchID, "waitStarted")
            await latch.wait(PoolRecoveryTests.commissionID, "questionAsked:room")
            #expect(pool.waitingForEvents == 2)
            #expect(pool.waitingForAnswers == 1)
            // The process dies here: the pool, its hub and its open journals are never touched again.
            try FileManager.default.copyItem(atPath: scratch.file("journal"), toPath: scratch.file("journal-after"))
            try FileManager.default.copyItem(atPath: scratch.file("state"), toPath: scratch.file("state-after"))
            #expect(try HomeStateStore.loadSaved(directory: stateDirectory)?.activeSession != nil)
        }

        /// The restarted service's hub, over the home as the dead process left it.
        func restartedHub() throws -> SimulatedHub {
            try SimulatedHub(stateStore: try HomeStateStore(directory: stateDirectory, startingFrom: home), clock: ManualClock())
        }

        /// The restarted service: its hub, a pool over it whose observer opens `latch`, and what `settled` is told.
        func restart(seed: UInt64) throws -> (hub: SimulatedHub, pool: RunPool, latch: EventLatch, settled: Settled) {
            let hub = try restartedHub()
            let latch = EventLatch()
            let pool = RunPool(hub: hub, clock: ManualClock(), random: SeededRandomSource(seed: seed), observer: latch.observe)
            return (hub, pool, latch, Settled())
        }

        func records(_ runID: String) throws -> [JournalRecord] {
            try JournalReader.read(path: try RunJournal(directory: journalDirectory).path(of: runID)).records
        }

        func savedHome() throws -> HomeDescription? { try HomeStateStore.loadSaved(directory: stateDirectory) }
    }

    /// Collects what `settled` is told.
    final class Settled: Sendable {
        private let runs = Mutex<[RunRecovery]>([])
        func add(_ run: RunRecovery) { runs.withLock { $0.append(run) } }
        var all: [RunRecovery] { runs.withLock { $0 } }
    }

    static func pooledRun(_ report: RecoveryReport, _ runID: String) throws -> RunPool.Run {
        let run = try #require(report.runs.first { $0.runID == runID })
        #expect(run.action == .continuing, "\(run.notes)")
        #expect(run.status == .running)
        return try #require(run.pooled)
    }

    @Test("resumed into a new pool, the runs wait there again and finish as their event and answers say")
    func resumedRunsWaitInThePool() async throws {
        let crash = try await Crash()
        defer { crash.scratch.remove() }
        let (hub, pool, latch, settled) = try crash.restart(seed: 22)
        let report = await (try RunJournal(directory: crash.journalDirectory)).recover(
            into: pool, options: RecoveryOptions(resume: true, inputs: Self.payload), settled: settled.add)
        let share = try Self.pooledRun(report, Self.shareID)
        let commission = try Self.pooledRun(report, Self.commissionID)
        let watch = try Self.pooledRun(report, Self.watchID)
        #expect(report.runs.map(\.resumed) == [false, true, true], "\(report.runs.map(\.notes))")
        await latch.wait(Self.watchID, "waitStarted")
        await latch.wait(Self.commissionID, "questionAsked:room")
        #expect(pool.waitingForEvents == 1)
        #expect(pool.waitingForAnswers == 1)
        #expect(pool.pendingQuestion(of: commission)?.name == "room")
        // Recovery returned with the resumed runs waiting as data: their journals are open, nothing ended them.
        for runID in [Self.commissionID, Self.watchID] {
            #expect(try crash.records(runID).contains { $0.type == JournalEntry.Kind.recoveryStarted.rawValue })
            #expect(try !crash.records(runID).contains { $0.type == JournalEntry.Kind.recoveryFinished.rawValue })
        }

        // The share needs its key, which no journal keeps: it cannot be resumed, and takes its cancel path.
        let shared = try #require(await pool.result(of: share))
        #expect(shared.outcome == .cancelled, "\(String(describing: shared.error))")
        #expect(report.runs[0].notes.contains { $0.contains("resume is not safe here") })
        #expect(await hub.calls(structure: crash.structure).map { "\($0.operation)" }.contains("deactivateEpskc"))

        pool.deliver(HubEvent(
            name: "epskcModeDeactivated", structureID: crash.structure, value: "keyUsed", fields: ["deviceID": .string(crash.router)],
            time: .zero))
        try pool.answer(.string("Hall"), to: "room", of: commission)
        await latch.wait(Self.commissionID, "questionAsked:name")
        try pool.answer(.string("Reading lamp"), to: "name", of: commission)

        let watched = try #require(await pool.result(of: watch))
        #expect(watched.outcome == .succeeded, "\(String(describing: watched.error))")
        #expect(watched.output?["router"] == .string(crash.router))
        let commissioned = try #require(await pool.result(of: commission))
        #expect(commissioned.outcome == .succeeded, "\(String(describing: commissioned.error)) \(commissioned.warnings)")

        // Each journal ends as a recovery's, before the result is out: the run's terminal record, then recovery's;
        // and its lock is free, so another recovery finds every run finished.
        for runID in [Self.shareID, Self.commissionID, Self.watchID] {
            let records = try crash.records(runID)
            #expect(records.suffix(2).map(\.type) == [JournalEntry.Kind.runFinished.rawValue, JournalEntry.Kind.recoveryFinished.rawValue])
            #expect(records.last { $0.type == JournalEntry.Kind.runFinished.rawValue }?.payload["recovered"]?.boolValue == true)
        }
        let again = await (try RunJournal(directory: crash.journalDirectory)).recover(on: try crash.restartedHub())
        #expect(again.runs.map(\.action) == [.alreadyFinished, .alreadyFinished, .alreadyFinished])
        let told = settled.all.sorted { $0.runID < $1.runID }
        #expect(told.map(\.runID) == [Self.shareID, Self.commissionID, Self.watchID])
        #expect(told.map(\.status) == [.cancelled, .succeeded, .succeeded])
        #expect(told.allSatisfy { $0.action == .recovered })

        let home = try #require(try crash.savedHome())
        #expect(home.activeSession == nil)
        let device = try #require(home.devices.first { $0.name == "Reading lamp" })
        #expect(device.room == "Hall")
        // commissionDevice was made once, before the crash: the resumed run went on from its question.
        let commissions = try crash.records(Self.commissionID).filter {
            $0.type == JournalEntry.Kind.intent.rawValue && $0.string("operation") == "commissionDevice"
        }
        #expect(commissions.count == 1)
    }

    @Test("on their cancel paths in the pool, the runs release the session and withdraw the key before their results are out")
    func cancelPathsRunInThePool() async throws {
        let crash = try await Crash()
        defer { crash.scratch.remove() }
        let (hub, pool, _, settled) = try crash.restart(seed: 23)
        let report = await (try RunJournal(directory: crash.journalDirectory)).recover(into: pool, settled: settled.add)
        let runs = try [Self.shareID, Self.commissionID, Self.watchID].map { try Self.pooledRun(report, $0) }
        for run in runs {
            let result = try #require(await pool.result(of: run))
            #expect(result.outcome == .cancelled, "\(String(describing: result.error))")
            #expect(result.error?.message.contains("recovery took the workflow's cancel path") == true, "\(String(describing: result.error))")
        }
        // By the time the results are out, the journals are closed with recovery's records.
        for runID in [Self.shareID, Self.commissionID, Self.watchID] {
            #expect(try crash.records(runID).last?.type == JournalEntry.Kind.recoveryFinished.rawValue)
        }
        #expect(settled.all.count == 3)
        #expect(settled.all.allSatisfy { $0.action == .recovered && $0.status == .cancelled && !$0.resumed })
        #expect(settled.all.first { $0.runID == Self.commissionID }?.releasedSession == true)
        let home = try #require(try crash.savedHome())
        #expect(home.activeSession == nil)
        #expect(!home.devices.contains { $0.name == "Reading lamp" })
        let calls = await hub.calls(structure: crash.structure).map { "\($0.operation)" }
        #expect(calls.contains("cancelCommissioning"), "\(calls)")
        #expect(calls.contains("deactivateEpskc"), "\(calls)")
        #expect(pool.runCount == 0)
    }

    @Test("a journal that fails while a pooled run continues cancels the run and leaves it to a later recovery, not stuck")
    func failingJournalLeavesTheRunToALaterRecovery() async throws {
        let crash = try await Crash()
        defer { crash.scratch.remove() }
        let (hub, pool, latch, settled) = try crash.restart(seed: 24)
        // Only the commissioning is recovered here; the first intent it writes, configureDevice's once both
        // questions are answered, is torn, as by a full disk.
        for runID in [Self.shareID, Self.watchID] {
            try FileManager.default.removeItem(atPath: try RunJournal(directory: crash.journalDirectory).path(of: runID))
        }
        let options = RecoveryOptions(
            resume: true, inputs: Self.payload,
            testHook: { boundary in boundary.position == .before && boundary.type == JournalEntry.Kind.intent.rawValue ? .tear : .proceed })
        let report = await (try RunJournal(directory: crash.journalDirectory)).recover(into: pool, options: options, settled: settled.add)
        let commission = try Self.pooledRun(report, Self.commissionID)
        await latch.wait(Self.commissionID, "questionAsked:room")
        try pool.answer(.string("Hall"), to: "room", of: commission)
        await latch.wait(Self.commissionID, "questionAsked:name")
        try pool.answer(.string("Reading lamp"), to: "name", of: commission)
        let result = try #require(await pool.result(of: commission))
        #expect(result.outcome == .cancelled, "\(String(describing: result.error))")
        #expect(result.warnings.contains { $0.contains("recovery could not finish") }, "\(result.warnings)")
        // The call whose intent was torn was not made; the cancel path's release was.
        let calls = await hub.calls(structure: crash.structure).map { "\($0.operation)" }
        #expect(!calls.contains("configureDevice"), "\(calls)")
        #expect(calls.last == "cancelCommissioning", "\(calls)")
        let told = try #require(settled.all.first { $0.runID == Self.commissionID })
        #expect(told.action == .deferred)
        #expect(told.status == .needsAttention)
        // The journal's lock is free, so the next recovery settles the run.
        let later = await (try RunJournal(directory: crash.journalDirectory)).recover(on: try crash.restartedHub())
        let settledLater = try #require(later.runs.first { $0.runID == Self.commissionID })
        #expect(settledLater.action == .recovered, "\(settledLater.notes)")
        #expect(settledLater.status == .cancelled)
        #expect(try crash.savedHome()?.activeSession == nil)
    }
}
