import Foundation
import MatterFlowJSON

/// `matterflow-bench [--json] [--filter NAME] [--compare BASELINE.json] [--scale X]`, or
/// `matterflow-bench --waiting-runs [N]`, or `matterflow-bench --recovered-runs [N]`, or
/// `matterflow-bench --hold-waiting-runs N DIR`, or `matterflow-bench --worker-baseline none|journal RUNS CONCURRENCY [DIR]`.
public enum BenchmarkTool {
    /// The usage text: printed by `--help`, and after an error in the arguments.
    public static let usage = """
        USAGE: swift run -c release matterflow-bench [--json] [--filter NAME] [--compare BASELINE.json] [--scale X]

          --json             print the results as JSON (save it as a baseline)
          --filter NAME      run only benchmarks whose name contains NAME; load.shipped.FILE loads one shipped workflow
          --compare FILE     flag every figure more than 20% worse than in FILE (exit 1 if any)
          --scale X          multiply the amount of work (default 1; smaller is faster and noisier)
          --waiting-runs [N] instead: N runs (default 1000000) waiting at once in a RunPool, a third each for a hub
                             event, an answer and a delay; prints the memory per waiting run and the time to wake
                             them all (exit 1 if any run did not wait or ends wrong)
          --recovered-runs [N]
                             instead: N journaled runs (default 5000) waiting for an event when their process dies,
                             recovered into a new RunPool; prints the memory per recovered waiting run and the times
                             to recover and to wake them (exit 1 if any run was not handed over or ends wrong; the
                             process holds two journal files per run open)
          --hold-waiting-runs N DIR
                             instead: N journaled runs waiting for an event in a RunPool (journal in DIR/journal),
                             held until the process is killed: the process that dies in crash tests
          --worker-baseline none|journal RUNS CONCURRENCY [DIR]
                             instead: the runs of a fleet worker without the store (Tests/Postgres/fleet-bench.sh):
                             RUNS commission-device runs, CONCURRENCY at a time, not durable or journaled to DIR;
                             prints "RUNS runs, N succeeded, S s" (exit 1 if any run did not succeed)
        """

    /// Runs the benchmarks and returns the exit code: 0, 1 when a comparison finds regressions, 64 usage error.
    ///
    /// It leaves the caller's actor (`@concurrent`): the benchmarks run on the global executor, as a server runs
    /// workflows, not on the main actor that a `main.swift` calls it from.
    @concurrent public static func main(
        arguments: [String], standardOutput: (String) -> Void, standardError: (String) -> Void, executableDirectory: String
    ) async -> Int32 {
        var json = false
        var filter: String?
        var compare: String?
        var scale = 1.0
        var index = 0
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--json": json = true
            case "--filter": filter = value()
            case "--compare": compare = value()
            case "--scale":
                guard let text = value(), let number = Double(text), number > 0 else {
                    standardError("Error: --scale takes a positive number\n" + usage + "\n")
                    return 64
                }
                scale = number
            case "--waiting-runs", "--recovered-runs":
                let flag = arguments[index]
                var runs = flag == "--waiting-runs" ? 1_000_000 : 5_000
                if index + 1 < arguments.count, let number = Int(arguments[index + 1]) {
                    guard number > 0 else {
                        standardError("Error: \(flag) takes a positive count\n" + usage + "\n")
                        return 64
                    }
                    runs = number
                    index += 1
                }
                do {
                    let (text, passed): (String, Bool)
                    if flag == "--waiting-runs" {
                        let report = try await WaitingRunsBenchmark(runs: runs).run()
                        (text, passed) = (report.text, report.passed)
                    } else {
                        let report = try await RecoveredRunsBenchmark(runs: runs).run()
                        (text, passed) = (report.text, report.passed)
                    }
                    standardOutput(text + "\n")
                    return passed ? 0 : 1
                } catch {
                    standardError("Error: \(error)\n")
                    return 1
                }
            case "--hold-waiting-runs":
                guard index + 2 < arguments.count, let runs = Int(arguments[index + 1]), runs > 0 else {
                    standardError("Error: --hold-waiting-runs takes a positive count and a directory\n" + usage + "\n")
                    return 64
                }
                do {
                    try await RecoveredRunsBenchmark.hold(runs: runs, directory: arguments[index + 2], standardOutput: standardOutput)
                    return 0
                } catch {
                    standardError("Error: \(error)\n")
                    return 1
                }
            case "--worker-baseline":
                let rest = Array(arguments.dropFirst(index + 1))
                guard rest.count >= 3, let durability = WorkerBaselineBenchmark.Durability(rawValue: rest[0]),
                    let runs = Int(rest[1]), runs > 0, let concurrency = Int(rest[2]), concurrency > 0,
                    durability == .none || rest.count >= 4
                else {
                    standardError("Error: --worker-baseline takes none|journal RUNS CONCURRENCY [DIR] (DIR for journal)\n" + usage + "\n")
                    return 64
                }
                let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                    .deletingLastPathComponent()
                let benchmark = WorkerBaselineBenchmark(
                    durability: durability, runs: runs, concurrency: concurrency, directory: durability == .journal ? rest[3] : nil,
                    workflowPath: repository.appendingPathComponent("Workflows/commission-device.json").path)
                do {
                    let (seconds, succeeded) = try await benchmark.run()
                    standardOutput("\(runs) runs, \(succeeded) succeeded, \(seconds) s\n")
                    return succeeded == runs ? 0 : 1
                } catch {
                    standardError("Error: \(error)\n")
                    return 1
                }
            case "-h", "--help":
                standardOutput(usage + "\n")
                return 0
            default:
                standardError("Error: Unknown argument '\(arguments[index])'\n" + usage + "\n")
                return 64
            }
            index += 1
        }
        var baseline: JSONValue?
        if let compare {
            do {
                baseline = try JSONDocument.load(path: compare).value
            } catch {
                standardError(error.description + "\n")
                return 2
            }
        }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let suite = BenchmarkSuite(
            workflowsDirectory: repository.appendingPathComponent("Workflows").path,
            matterflowExecutable: executableDirectory + "/matterflow", scale: scale)
        let results: [BenchmarkResult]
        do {
            results = try await suite.run(filter: filter)
        } catch {
            standardError("Error: \(error)\n")
            return 1
        }
        standardOutput((json ? JSONWriter.pretty(BenchmarkReport.json(results)) : BenchmarkReport.table(results)) + "\n")
        guard let baseline else { return 0 }
        let regressions = BenchmarkReport.regressions(results, baseline: baseline)
        for regression in regressions {
            standardError(
                "regression: \(regression.name) is \(BenchmarkReport.format(regression.current)), baseline \(BenchmarkReport.format(regression.baseline)) (more than 20% worse)\n")
        }
        return regressions.isEmpty ? 0 : 1
    }
}
