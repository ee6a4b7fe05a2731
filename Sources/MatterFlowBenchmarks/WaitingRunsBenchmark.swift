import Foundation
import MatterFlow
import MatterFlowJSON

/// Many runs waiting at once as data in a ``RunPool``, each on its own structure: a third wait for a hub event (the
/// end of an ePSKc key), a third for an answer, a third for a delay to pass. The benchmark measures the memory the
/// waiting runs take and the time to wake them all, and checks that every run ends as what woke it says.
public struct WaitingRunsBenchmark: Sendable {
    /// What one measurement found.
    public struct Report: Sendable {
        /// How many runs were submitted.
        public var runs: Int
        /// Resident memory added by submitting the runs (all waiting), in bytes.
        public var residentBytes: Int
        /// How long submitting the runs took, in seconds.
        public var submitSeconds: Double
        /// From the first event delivered to the last run ended.
        public var wakeSeconds: Double
        /// Runs that waited, by what for: `event`, `answer`, `delay`.
        public var waited: [String: Int]
        /// Ended runs, by outcome.
        public var outcomes: [RunResult.Outcome: Int]
        /// Runs whose result did not match what woke them (wrong outcome, or another run's event or answer).
        public var mismatched: Int

        /// Runs that were not waiting once all were submitted (ended, or still working): each should be.
        public var notWaiting: Int { runs - waited.values.reduce(0, +) }
        /// Whether every run waited and then ended as what woke it says.
        public var passed: Bool { mismatched == 0 && notWaiting == 0 }

        /// Resident memory per run (``residentBytes`` over ``runs``), in bytes.
        public var bytesPerRun: Double { Double(residentBytes) / Double(max(1, runs)) }

        /// The report as the benchmark prints it, one figure per line.
        public var text: String {
            let succeeded = outcomes[.succeeded, default: 0]
            let failed = outcomes[.failed, default: 0]
            let cancelled = outcomes[.cancelled, default: 0]
            return """
                waiting runs      \(runs), waiting for: \(Kind.allCases.map { "\($0.name) \(waited[$0.name, default: 0])" }.joined(separator: ", ")); \(notWaiting) not waiting
                resident memory   \(residentBytes / 1_048_576) MiB for the waiting runs (\(Int(bytesPerRun.rounded())) bytes per run)
                submit            \(String(format: "%.2f", submitSeconds)) s (\(Int(Double(runs) / max(submitSeconds, 1e-9))) runs/s)
                wake all          \(String(format: "%.2f", wakeSeconds)) s (\(Int(Double(runs) / max(wakeSeconds, 1e-9))) runs/s)
                outcomes          \(succeeded) succeeded, \(failed) failed (expired keys), \(cancelled) cancelled; \(mismatched) mismatched
                """
        }
    }

    /// What a run waits for: run `index` waits for the kind at `index % 3`.
    enum Kind: Int, CaseIterable {
        case event, answer, delay

        /// The kind's name, as ``Report/waited`` counts it.
        var name: String {
            switch self {
            case .event: "event"
            case .answer: "answer"
            case .delay: "delay"
            }
        }

        /// How many of the pool's runs wait for this kind of thing.
        func waiting(in pool: RunPool) -> Int {
            switch self {
            case .event: pool.waitingForEvents
            case .answer: pool.waitingForAnswers
            case .delay: pool.waitingForDelays
            }
        }

        /// The workflow of runs of this kind: one waiting state, then the device it names.
        var workflowText: String {
            switch self {
            case .event:
                // `keyUsed` succeeds with the event's `deviceID`, `expired` fails.
                #"""
                {"workflow": "waiting-for-event", "version": 1, "start": "wait", "states": {
                  "wait": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 86400, "result": "ended",
                           "on": {"keyUsed": "done", "expired": "expired"}, "otherwise": "expired", "onTimeout": "expired"},
                  "done": {"type": "succeed", "output": {"device": "${vars.ended.deviceID}"}},
                  "expired": {"type": "fail", "code": "deadlineExceeded", "message": "the key expired"}
                }}
                """#
            case .answer:
                #"""
                {"workflow": "waiting-for-answer", "version": 1, "start": "ask", "states": {
                  "ask": {"type": "ask", "question": "device", "prompt": "Which device?", "answer": {"text": {"maxLength": 40}},
                          "result": "device", "timeoutSeconds": 86400, "next": "done", "onTimeout": "unanswered"},
                  "done": {"type": "succeed", "output": {"device": "${vars.device}"}},
                  "unanswered": {"type": "fail", "code": "deadlineExceeded", "message": "nobody answered"}
                }}
                """#
            case .delay:
                #"""
                {"workflow": "waiting-for-delay", "version": 1, "inputs": {"device": {"type": "string", "required": true}},
                 "start": "settle", "states": {
                  "settle": {"type": "delay", "seconds": 3600, "next": "done"},
                  "done": {"type": "succeed", "output": {"device": "${input.device}"}}
                }}
                """#
            }
        }
    }

    /// How many runs to submit.
    public var runs: Int

    /// A measurement over `runs` runs.
    public init(runs: Int) {
        self.runs = runs
    }

    /// Submits the runs, lets them all wait, then wakes each: an event (every tenth `expired`) or an answer naming
    /// its device, and one step of the pool's clock past every delay.
    public func run() async throws -> Report {
        let engine = WorkflowEngine()
        let workflows = try Kind.allCases.map { kind in try engine.load(text: kind.workflowText, baseDirectory: "/") }
        let clock = ManualClock()
        let pool = RunPool(hub: BenchmarkHub(), clock: clock, random: SeededRandomSource(seed: 1))
        var handles: [RunPool.Run] = []
        handles.reserveCapacity(runs)
        let before = Self.residentBytes()
        let submitStart = ContinuousClock.now
        for index in 0..<runs {
            let kind = Self.kind(index)
            let inputs: JSONObject = kind == .delay ? ["device": .string(Self.device(index))] : [:]
            handles.append(
                try pool.submit(workflows[kind.rawValue], inputs: inputs, structureID: Self.structure(index), runID: "run-\(index)"))
        }
        let submitted = ContinuousClock.now - submitStart
        let after = Self.residentBytes()
        let waited = Dictionary(uniqueKeysWithValues: Kind.allCases.map { ($0.name, $0.waiting(in: pool)) })
        let wakeStart = ContinuousClock.now
        for index in 0..<runs {
            switch Self.kind(index) {
            case .event:
                pool.deliver(
                    HubEvent(
                        name: "epskcModeDeactivated", structureID: Self.structure(index), value: Self.expires(index) ? "expired" : "keyUsed",
                        fields: ["deviceID": .string(Self.device(index))], time: .zero))
            case .answer:
                try pool.answer(.string(Self.device(index)), to: "device", of: handles[index])
            case .delay:
                break
            }
        }
        clock.advance(by: .seconds(3600))
        let woken = ContinuousClock.now - wakeStart
        var outcomes: [RunResult.Outcome: Int] = [:]
        var mismatched = 0
        for (index, handle) in handles.enumerated() {
            guard let result = await pool.result(of: handle) else {
                mismatched += 1
                continue
            }
            outcomes[result.outcome, default: 0] += 1
            let expected: RunResult.Outcome = Self.expires(index) ? .failed : .succeeded
            if result.outcome != expected || (expected == .succeeded && result.output?["device"] != .string(Self.device(index))) { mismatched += 1 }
        }
        return Report(
            runs: runs, residentBytes: max(0, after - before), submitSeconds: submitted.secondsValue, wakeSeconds: woken.secondsValue,
            waited: waited, outcomes: outcomes, mismatched: mismatched)
    }

    static func kind(_ index: Int) -> Kind { Kind.allCases[index % Kind.allCases.count] }

    /// Every tenth run waiting for an event gets `expired`.
    static func expires(_ index: Int) -> Bool { kind(index) == .event && (index / 3) % 10 == 0 }

    static func device(_ index: Int) -> String { "router-\(index)" }

    static func structure(_ index: Int) -> StructureID { "s\(index)" }

    /// The process's resident memory in bytes (``ProcessMemory/residentBytes``; 0 where it cannot be read).
    static func residentBytes() -> Int {
        let bytes = ProcessMemory.residentBytes
        return bytes.isFinite ? Int(bytes) : 0
    }
}
