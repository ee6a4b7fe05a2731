import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization

extension BenchmarkSuite {
    /// Interpreter overhead per state transition: a chain of trivial states against a zero-latency hub.
    func transitionOverhead() async throws -> BenchmarkResult {
        let states = 1_000
        let workflow = try WorkflowEngine().load(text: GeneratedWorkflows.chain(states: states), baseDirectory: workflowsDirectory)
        let hub = BenchmarkHub()
        let engine = WorkflowEngine()
        let samples = try await Sampler.sample(warmUp: count(20), repetitions: count(200)) {
            let result = try await engine.run(workflow, on: hub, options: RunOptions(structureID: "s", clock: ManualClock(), runID: "r"))
            precondition(result.outcome == .succeeded, "the chain must succeed")
        }
        let perTransition = samples.map { $0 / Double(states) * 1e6 }
        let median = Sampler.percentile(perTransition, 0.5)
        return BenchmarkResult(
            name: "transition.overhead", unit: "µs/transition", median: median, p99: Sampler.percentile(perTransition, 0.99),
            perSecond: 1e6 / median, target: .init(description: "≤ 1 µs median", met: median <= 1))
    }

    /// Engine overhead per hub call (timeout race included), against a zero-latency hub.
    func actionOverhead() async throws -> BenchmarkResult {
        let states = 200
        let workflow = try WorkflowEngine().load(text: GeneratedWorkflows.actions(states: states), baseDirectory: workflowsDirectory)
        let hub = BenchmarkHub()
        let engine = WorkflowEngine()
        let samples = try await Sampler.sample(warmUp: count(20), repetitions: count(200)) {
            let result = try await engine.run(workflow, on: hub, options: RunOptions(structureID: "s", clock: ManualClock(), runID: "r"))
            precondition(result.outcome == .succeeded, "the chain must succeed")
        }
        let perCall = samples.map { $0 / Double(states) * 1e6 }
        let median = Sampler.percentile(perCall, 0.5)
        return BenchmarkResult(
            name: "action.overhead", unit: "µs/hub call", median: median, p99: Sampler.percentile(perCall, 0.99),
            perSecond: 1e6 / median)
    }

    /// Full commission-device runs per second on a zero-latency hub, on `tasks` concurrent tasks.
    func commissionThroughput(tasks: Int, name: String) async throws -> BenchmarkResult {
        let workflow = try commissionWorkflow()
        let engine = WorkflowEngine()
        let runsPerTask = count(2_000)
        let samples = try await Sampler.sample(warmUp: 1, repetitions: count(10)) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        let hub = BenchmarkHub()
                        for run in 0..<runsPerTask {
                            let result = try await engine.run(
                                workflow, inputs: Self.inputs, on: hub,
                                options: RunOptions(structureID: "s\(task)-\(run % 8)", clock: ManualClock(), runID: "r"))
                            precondition(result.outcome == .succeeded, "commission-device must succeed")
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
        let runs = Double(tasks * runsPerTask)
        let perRun = samples.map { $0 / runs * 1e6 }
        let median = Sampler.percentile(perRun, 0.5)
        let perSecond = 1e6 / median
        let target: BenchmarkResult.Target? =
            tasks == 1 ? .init(description: "≥ 50,000 runs/s on one core", met: perSecond >= 50_000) : nil
        return BenchmarkResult(
            name: name, unit: "µs/run", median: median, p99: Sampler.percentile(perRun, 0.99), perSecond: perSecond,
            extra: ["tasks": Double(tasks)], target: target)
    }

    /// How many 10 ms steps of virtual time `concurrent.10000` samples the live heap in: more than a commission-device
    /// run takes (about a dozen calls and status checks).
    static let heapSamples = 40

    /// 10,000 runs at once on 10,000 structures, 10 ms of simulated hub latency per call, in virtual time.
    ///
    /// Besides the wall time and the peak resident set, it reports the live heap per run in flight
    /// (`heapBytesPerInFlightRun`): sampled halfway through each 10 ms step of virtual time, when the clock advances
    /// only because every run is waiting, kept only while every run has started and none has ended (so every run
    /// waits in a hub call), less the heap before the runs started; the median over the rounds that had such a
    /// sample (NaN when none had: virtual time ran ahead while runs were still starting, on a busy machine). Unlike
    /// the resident set it does not move with scheduling or with memory freed but kept, so it shows a change in what
    /// a run holds in flight (its tasks' frames, the driver) to within a few bytes.
    func concurrentRuns() async throws -> BenchmarkResult {
        let workflow = try commissionWorkflow()
        let runs = count(10_000)
        let latencies = Dictionary(uniqueKeysWithValues: SimulatedOperation.allCases.map { ($0, 0.010) })
        let homes = (0..<runs).map { index -> HomeDescription in
            var home = HomeDescription.defaultHome
            home.structure.id = "structure-\(index)"
            home.simulation.latencySeconds = latencies
            return home
        }
        let baseline = ProcessMemory.residentBytes
        var wallTimes: [Double] = []
        var peak = 0.0
        var heapPerRun: [Double] = []
        for _ in 0..<max(1, count(3)) {
            let clock = VirtualClock()
            let hub = try SimulatedHub(homes: homes, clock: clock)
            let engine = WorkflowEngine()
            let heapBefore = ProcessMemory.heapBytesInUse
            // The largest live heap sampled while every run had started and none had ended (nil: no such sample).
            let heap = HeapWatch()
            let samples = (0..<Self.heapSamples).map { step in
                clock.scheduleTimer(after: .milliseconds(5 + 10 * step)) {
                    let bytes = ProcessMemory.heapBytesInUse
                    heap.state.withLock { if $0.started == runs && $0.ended == 0 { $0.peak = max($0.peak ?? 0, bytes) } }
                }
            }
            let start = ContinuousClock.now
            let succeeded = try await withThrowingTaskGroup(of: Bool.self) { group in
                for home in homes {
                    group.addTask {
                        heap.state.withLock { $0.started += 1 }
                        let result = try await engine.run(
                            workflow, inputs: Self.inputs, on: hub,
                            options: RunOptions(structureID: home.structure.id, clock: clock, runID: "r"))
                        heap.state.withLock { $0.ended += 1 }
                        return result.outcome == .succeeded
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            precondition(succeeded == runs, "every concurrent run must succeed")
            wallTimes.append((ContinuousClock.now - start).secondsValue)
            peak = max(peak, ProcessMemory.peakResidentBytes)
            samples.forEach { $0.cancel() }
            if let peak = heap.state.withLock({ $0.peak }) { heapPerRun.append((peak - heapBefore) / Double(runs)) }
        }
        let median = Sampler.percentile(wallTimes, 0.5)
        let bytesPerRun = (peak - baseline) / Double(runs)
        return BenchmarkResult(
            name: "concurrent.10000", unit: "s wall (virtual time)", median: median, p99: Sampler.percentile(wallTimes, 0.99),
            perSecond: Double(runs) / median,
            extra: [
                "runs": Double(runs), "peakRSSMB": peak / 1_048_576, "bytesPerInFlightRun": bytesPerRun,
                "heapBytesPerInFlightRun": Sampler.percentile(heapPerRun, 0.5),
            ],
            target: .init(
                description: "≤ 3 s wall and ≤ 300 MB peak RSS for 10,000 runs",
                met: runs < 10_000 || (median <= 3 && peak <= 300 * 1_048_576)))
    }
}

/// How many runs of `concurrent.10000` have started and ended, and the largest live heap sampled while all of them
/// were in flight.
final class HeapWatch: Sendable {
    let state = Mutex<(started: Int, ended: Int, peak: Double?)>((0, 0, nil))
}
