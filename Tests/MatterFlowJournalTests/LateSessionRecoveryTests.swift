import Foundation
import Synchronization
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import TestGates
import Testing

/// A resumed run holds the session its journal shows only while the hub still holds it for the run: one whose
/// workflow had ended its session before the process stopped, and whose next prepare the hub then answers late,
/// releases that late session before it ends, as a run that never stopped would.
@Suite("recovery and a session the hub opens late")
struct LateSessionRecoveryTests {
    static let runID = "run-00000000c0de"

    /// Opens a session, cancels it, then opens another with a 1 s timeout, which the hub misses; the run then
    /// succeeds without it, so nothing but the run's own end releases what the hub opened late (recovery releases a
    /// run's leftovers only when it did not succeed).
    static let workflow = #"""
        {"workflow": "reopen", "version": 1, "start": "open", "onCancel": "release", "states": {
          "open": {"type": "action", "operation": "prepareCommissioning", "result": "first", "next": "close",
                   "onError": [{"errors": ["*"], "next": "failed"}]},
          "close": {"type": "action", "operation": "cancelCommissioning", "next": "again",
                    "onError": [{"errors": ["*"], "next": "failed"}]},
          "again": {"type": "action", "operation": "prepareCommissioning", "timeoutSeconds": 1, "result": "second",
                    "next": "opened", "onError": [{"errors": ["*"], "next": "gaveUp"}]},
          "opened": {"type": "succeed", "output": {"sessionID": "${vars.second.sessionID}"}},
          "gaveUp": {"type": "succeed", "output": {"reopened": false}},
          "failed": {"type": "fail", "error": "${error}"},
          "release": {"type": "action", "operation": "cancelCommissioning", "next": "cancelled",
                      "onError": [{"errors": ["*"], "next": "cancelled"}]},
          "cancelled": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "cancelled"}
        }}
        """#

    /// Runs `body` (a run, or its recovery) on a simulated home whose prepare number `late` answers only after its
    /// 1 s timeout, during the grace period that follows, whatever cancelled it: a late session for the run's end.
    static func withLatePrepare<T: Sendable>(
        _ scratch: Scratch, late: Int, _ body: @escaping @Sendable (any Hub, ManualClock) async throws -> T
    ) async throws -> T {
        let clock = ManualClock()
        let simulated = try SimulatedHub(
            stateStore: try HomeStateStore(directory: scratch.file("state"), startingFrom: Homes.basic()), clock: clock)
        let hub = LatePrepareHub(base: simulated, late: late)
        let run = Task { try await body(hub, clock) }
        await hub.arrived.wait()
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
        await clock.waitForSleepers(1)
        hub.released.open()
        return try await run.value
    }

    @Test("a run resumed after its workflow cancelled its session releases the session its next prepare opens late")
    func resumedAfterItsSessionEndedReleasesALateOne() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("reopen.json")
        try Data(Self.workflow.utf8).write(to: URL(fileURLWithPath: path))
        let journal = try RunJournal(directory: scratch.file("journal"))
        let workflow = try WorkflowEngine().load(path: path)
        let first = try await Self.withLatePrepare(scratch, late: 2) { hub, clock in
            await (try journal.start(workflow, on: hub, options: RunOptions(structureID: Homes.structureID, clock: clock, runID: Self.runID))).result
        }
        #expect(first.output?["reopened"] == false, "\(String(describing: first.error))")
        #expect(first.warnings.count == 1, "the run released the late session itself: \(first.warnings)")
        #expect(try HomeStateStore.loadSaved(directory: scratch.file("state"))?.activeSession == nil)

        // The process stopped right after the cancel: the journal shows a session the run opened and ended.
        let journalPath = journal.path(of: Self.runID)
        let records = try JournalReader.read(path: journalPath).records
        let cancelled = try #require(
            records.first { $0.type == JournalEntry.Kind.outcome.rawValue && $0.string("operation") == "cancelCommissioning" })
        try cut(journalPath, after: cancelled.sequence)

        let recovered = try await Self.withLatePrepare(scratch, late: 1) { hub, clock in
            try #require(
                try await RunJournal(directory: scratch.file("journal")).recover(on: hub, options: RecoveryOptions(resume: true, clock: clock))
                    .runs.first)
        }
        #expect(recovered.status == .succeeded, "\(recovered.notes)")
        let home = try #require(try HomeStateStore.loadSaved(directory: scratch.file("state")))
        #expect(home.activeSession == nil, "the late session is released, not kept as if the run still held its first")
        let warnings = try JournalReader.read(path: journalPath).records.filter { $0.type == "warning" }
        #expect(warnings.contains { $0.string("message")?.contains("the run released it (cancelCommissioning) before ending") == true })
    }
}

/// A hub whose `prepareCommissioning` number `late` opens ``arrived``, then waits for ``released`` to open,
/// cancelled or not (the others answer at once); it tells who holds a session as its base does.
final class LatePrepareHub: ForwardingHub, RecoverableHub {
    let base: any Hub
    let arrived = Gate()
    let released = Gate()
    private let late: Int
    private let prepares = Mutex(0)

    init(base: SimulatedHub, late: Int) {
        self.base = base
        self.late = late
    }

    func prepareCommissioning(structure: StructureID) async throws -> String {
        let count = prepares.withLock { count in
            count += 1
            return count
        }
        if count == late {
            arrived.open()
            await released.wait()
        }
        return try await base.prepareCommissioning(structure: structure)
    }

    func activeSession(structure: StructureID) async throws -> HubSessionInfo? {
        try await (base as? any RecoverableHub)?.activeSession(structure: structure)
    }
}
