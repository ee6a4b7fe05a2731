import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal

/// Journaled runs waiting in a ``RunPool`` when their process dies, recovered into a new pool at restart
/// (`RunJournal.recover(into:)`): the memory the recovered waiting runs take, the time recovery takes to hand them
/// over, and the time to wake them all, checking that each ends as its event says and that its journal ends with
/// recovery's record.
///
/// The process's death is the copy of the journal directory taken while every run waits: what a killed process
/// leaves, since each record is written before the run goes on and the copies hold no lock. The first pool keeps
/// its journals open meanwhile, so the benchmark holds two files per run: mind the limit of open files.
public struct RecoveredRunsBenchmark: Sendable {
    /// What one measurement found.
    public struct Report: Sendable {
        /// How many runs were journaled waiting before the process died.
        public var runs: Int
        /// Runs recovery put into the new pool.
        public var handedOver: Int
        /// Of those, runs waiting for their event there.
        public var waiting: Int
        /// Resident memory added by recovering the runs into the new pool (all waiting), in bytes.
        public var residentBytes: Int
        /// How long recovery took to read the journals and hand the runs over to the new pool, in seconds.
        public var recoverSeconds: Double
        /// From the first event delivered to the last run ended (its journal closed).
        public var wakeSeconds: Double
        /// Runs that ended as their event says, with their journal ending in `recoveryFinished`.
        public var finished: Int

        /// Whether every run was handed over, waited for its event and ended as it says.
        public var passed: Bool { handedOver == runs && waiting == runs && finished == runs }
        /// Resident memory per run (``residentBytes`` over ``runs``), in bytes.
        public var bytesPerRun: Double { Double(residentBytes) / Double(max(1, runs)) }

        /// The report as the benchmark prints it, one figure per line.
        public var text: String {
            """
            recovered runs    \(runs) journaled runs waiting for an event when their process died; \(handedOver) put into a new pool, \(waiting) waiting there
            resident memory   \(residentBytes / 1_048_576) MiB for the recovered waiting runs (\(Int(bytesPerRun.rounded())) bytes per run, its open journal file included)
            recover           \(String(format: "%.2f", recoverSeconds)) s (\(Int(Double(runs) / max(recoverSeconds, 1e-9))) runs/s: each journal read, the hub read, the run handed over)
            wake all          \(String(format: "%.2f", wakeSeconds)) s (\(Int(Double(runs) / max(wakeSeconds, 1e-9))) runs/s, each journal ended and closed)
            finished          \(finished) as their events say, journals ended by recovery
            """
        }
    }

    /// Waits for the end of a border router's key, holding no secret, so recovery can resume it.
    static let workflowText = #"""
        {"workflow": "watch-key", "version": 1, "start": "wait", "states": {
          "wait": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 86400, "result": "ended",
                   "on": {"keyUsed": "used"}, "otherwise": "notUsed", "onTimeout": "notUsed"},
          "used": {"type": "succeed", "output": {"router": "${vars.ended.deviceID}"}},
          "notUsed": {"type": "fail", "code": "deadlineExceeded", "message": "the key was not used"}
        }}
        """#

    /// How many runs to journal and recover.
    public var runs: Int

    /// A measurement over `runs` runs.
    public init(runs: Int) {
        self.runs = runs
    }

    /// Journals the runs waiting, copies the journals as a dead process leaves them, recovers the copy into a new pool
    /// and wakes every run with its event. Throws when a file in its temporary directory cannot be written, copied
    /// or read, or a run cannot be journaled.
    public func run() async throws -> Report {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("matterflow-recovered-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The process that dies: every run journaled and waiting for its event.
        let first = try Self.waiting(runs: runs, in: directory, structure: WaitingRunsBenchmark.structure)
        try FileManager.default.copyItem(atPath: directory + "/journal", toPath: directory + "/after")
        withExtendedLifetime(first) {}

        // The restarted process.
        let pool = RunPool(hub: BenchmarkHub(), clock: ManualClock(), random: SeededRandomSource(seed: 2))
        let restarted = try RunJournal(directory: directory + "/after")
        let before = WaitingRunsBenchmark.residentBytes()
        let recoverStart = ContinuousClock.now
        let report = await restarted.recover(into: pool, options: RecoveryOptions(resume: true))
        let recovered = ContinuousClock.now - recoverStart
        let after = WaitingRunsBenchmark.residentBytes()
        var pooled: [Int: RunPool.Run] = [:]
        for run in report.runs {
            if let handle = run.pooled, let index = Self.index(run.runID) { pooled[index] = handle }
        }
        let waiting = pool.waitingForEvents

        let wakeStart = ContinuousClock.now
        for index in 0..<runs {
            pool.deliver(
                HubEvent(
                    name: "epskcModeDeactivated", structureID: WaitingRunsBenchmark.structure(index), value: "keyUsed",
                    fields: ["deviceID": .string(WaitingRunsBenchmark.device(index))], time: .zero))
        }
        var finished = 0
        for (index, handle) in pooled.sorted(by: { $0.key < $1.key }) {
            guard let result = await pool.result(of: handle), result.outcome == .succeeded,
                result.output?["router"] == .string(WaitingRunsBenchmark.device(index))
            else { continue }
            finished += 1
        }
        let woken = ContinuousClock.now - wakeStart
        // Each result was handed out after its journal was ended: check a sample of them.
        for index in stride(from: 0, to: runs, by: max(1, runs / 20)) {
            let records = try restarted.read(runID: Self.runID(index)).records
            if records.last?.type != JournalEntry.Kind.recoveryFinished.rawValue { finished -= 1 }
        }
        return Report(
            runs: runs, handedOver: pooled.count, waiting: waiting, residentBytes: max(0, after - before),
            recoverSeconds: recovered.secondsValue, wakeSeconds: woken.secondsValue, finished: finished)
    }

    /// The process that dies, for crash tests of a real process (`matterflow-bench --hold-waiting-runs N DIR`): N
    /// journaled runs of the watching workflow, all on structure `held`, wait in a pool, journaled to `DIR/journal`
    /// (the workflow is written to `DIR/watch-key.json`); once they all wait it says so on `standardOutput`, then
    /// holds them until the process is killed.
    public static func hold(runs: Int, directory: String, standardOutput: (String) -> Void) async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let pool = try waiting(runs: runs, in: directory) { _ in "held" }
        standardOutput("\(runs) journaled runs waiting in \(directory)/journal\n")
        while true {
            try await Task.sleep(for: .seconds(3600))
            withExtendedLifetime(pool) {}
        }
    }

    /// A pool holding `runs` journaled runs of the watching workflow (written to `DIR/watch-key.json`, journaled to
    /// `DIR/journal`), run `index` on `structure(index)`, every one waiting for its event.
    static func waiting(runs: Int, in directory: String, structure: (Int) -> StructureID) throws -> RunPool {
        let file = directory + "/watch-key.json"
        try Data(workflowText.utf8).write(to: URL(fileURLWithPath: file))
        let workflow = try WorkflowEngine().load(path: file)
        let pool = RunPool(hub: BenchmarkHub(), clock: ManualClock(), random: SeededRandomSource(seed: 1))
        let journal = try RunJournal(directory: directory + "/journal")
        for index in 0..<runs {
            try journal.submit(workflow, to: pool, structureID: structure(index), runID: runID(index))
        }
        guard pool.waitingForEvents == runs else { throw BenchmarkError("only \(pool.waitingForEvents) of \(runs) runs waited") }
        return pool
    }

    static func runID(_ index: Int) -> String { "run-" + String(index, radix: 16).leftPadded(to: 12) }

    static func index(_ runID: String) -> Int? { Int(runID.dropFirst(4), radix: 16) }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(0, length - count)) + self }
}
