import Foundation
import MatterFlow
import MatterFlowJSON

/// Many runs waiting at once as data in a ``RunPool``: each run of a one-wait workflow, on its own structure, waits
/// for the end of an ePSKc key; the benchmark measures the memory the waiting runs take and the time to wake them
/// all, and checks that every run ends as its event says.
public struct WaitingRunsBenchmark: Sendable {
    /// What one measurement found.
    public struct Report: Sendable {
        public var runs: Int
        /// Resident memory added by submitting the runs (all waiting), in bytes.
        public var residentBytes: Int
        public var submitSeconds: Double
        /// From the first event delivered to the last run ended.
        public var wakeSeconds: Double
        /// Ended runs, by outcome.
        public var outcomes: [RunResult.Outcome: Int]
        /// Runs whose result did not match their event (wrong outcome, or another run's event).
        public var mismatched: Int

        public var bytesPerRun: Double { Double(residentBytes) / Double(max(1, runs)) }

        public var text: String {
            let succeeded = outcomes[.succeeded, default: 0]
            let failed = outcomes[.failed, default: 0]
            let cancelled = outcomes[.cancelled, default: 0]
            return """
                waiting runs      \(runs)
                resident memory   \(residentBytes / 1_048_576) MiB for the waiting runs (\(Int(bytesPerRun.rounded())) bytes per run)
                submit            \(String(format: "%.2f", submitSeconds)) s (\(Int(Double(runs) / max(submitSeconds, 1e-9))) runs/s)
                wake all          \(String(format: "%.2f", wakeSeconds)) s (\(Int(Double(runs) / max(wakeSeconds, 1e-9))) runs/s)
                outcomes          \(succeeded) succeeded (keyUsed), \(failed) failed (expired), \(cancelled) cancelled; \(mismatched) mismatched
                """
        }
    }

    /// The workflow each run follows: one wait state; `keyUsed` succeeds with the event's `deviceID`, `expired` fails.
    static let workflowText = #"""
        {"workflow": "waiting-run", "version": 1, "start": "wait", "states": {
          "wait": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 86400, "result": "ended",
                   "on": {"keyUsed": "done", "expired": "expired"}, "otherwise": "expired", "onTimeout": "expired"},
          "done": {"type": "succeed", "output": {"device": "${vars.ended.deviceID}"}},
          "expired": {"type": "fail", "code": "deadlineExceeded", "message": "the key expired"}
        }}
        """#

    public var runs: Int

    public init(runs: Int) {
        self.runs = runs
    }

    /// Submits the runs, lets them all wait, then wakes each with its event (every tenth `expired`).
    public func run() async throws -> Report {
        let workflow = try WorkflowEngine().load(text: Self.workflowText, baseDirectory: "/")
        let pool = RunPool(hub: BenchmarkHub(), random: SeededRandomSource(seed: 1))
        var handles: [RunPool.Run] = []
        handles.reserveCapacity(runs)
        let before = Self.residentBytes()
        let submitStart = ContinuousClock.now
        for index in 0..<runs {
            handles.append(try pool.submit(workflow, structureID: Self.structure(index), runID: "run-\(index)"))
        }
        let submitted = ContinuousClock.now - submitStart
        let after = Self.residentBytes()
        let wakeStart = ContinuousClock.now
        for index in 0..<runs {
            pool.deliver(
                HubEvent(
                    name: "epskcModeDeactivated", structureID: Self.structure(index), value: index % 10 == 0 ? "expired" : "keyUsed",
                    fields: ["deviceID": .string("router-\(index)")], time: .zero))
        }
        let woken = ContinuousClock.now - wakeStart
        var outcomes: [RunResult.Outcome: Int] = [:]
        var mismatched = 0
        for (index, handle) in handles.enumerated() {
            guard let result = await pool.result(of: handle) else {
                mismatched += 1
                continue
            }
            outcomes[result.outcome, default: 0] += 1
            let expected: RunResult.Outcome = index % 10 == 0 ? .failed : .succeeded
            if result.outcome != expected || (expected == .succeeded && result.output?["device"] != .string("router-\(index)")) { mismatched += 1 }
        }
        return Report(
            runs: runs, residentBytes: max(0, after - before), submitSeconds: Self.seconds(submitted), wakeSeconds: Self.seconds(woken),
            outcomes: outcomes, mismatched: mismatched)
    }

    static func structure(_ index: Int) -> StructureID { "s\(index)" }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// The process's resident memory, from `/proc/self/statm` (0 where it cannot be read).
    static func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return 0 }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
