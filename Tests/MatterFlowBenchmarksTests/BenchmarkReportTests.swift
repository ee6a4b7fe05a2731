import Foundation
import MatterFlowBenchmarks
import MatterFlowJSON
import Testing

@Suite struct BenchmarkReportTests {
    func measurement(_ name: String, _ median: Double, lowerIsBetter: Bool = true) -> BenchmarkResult {
        BenchmarkResult(name: name, unit: "µs", median: median, p99: median, lowerIsBetter: lowerIsBetter)
    }

    @Test func figuresMoreThanTwentyPercentWorseAreFlagged() {
        let baseline = BenchmarkReport.json([measurement("a", 10), measurement("b", 10), measurement("c", 100, lowerIsBetter: false)])
        let current = [measurement("a", 11.9), measurement("b", 12.1), measurement("c", 79, lowerIsBetter: false), measurement("new", 5)]
        let regressions = BenchmarkReport.regressions(current, baseline: baseline)
        #expect(regressions.map(\.name) == ["b", "c"])
    }

    @Test func theJSONReportRoundTripsThroughTheComparison() throws {
        let results = [measurement("x", 3)]
        let text = JSONWriter.pretty(BenchmarkReport.json(results))
        let parsed = try JSONDocument.parse(text, file: "baseline.json").value
        #expect(BenchmarkReport.regressions(results, baseline: parsed).isEmpty)
        #expect(BenchmarkReport.regressions([measurement("x", 4)], baseline: parsed).count == 1)
    }

    @Test func everyBenchmarkRunsAtATinyScale() async throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let suite = BenchmarkSuite(
            workflowsDirectory: root.appendingPathComponent("Workflows").path, matterflowExecutable: nil, scale: 0.001)
        let results = try await suite.run(filter: nil)
        let names = Set(results.map(\.name))
        for expected in ["transition.overhead", "action.overhead", "commission.oneTask", "commission.allCores", "concurrent.10000",
                         "load.shipped.commission-device.json", "load.reload.commission-device.json", "load.generated.1000", "load.generated.10000",
                         "load.generated.growth", "load.nested.chain.64", "load.nested.diamond.64", "load.nested.chain.growth",
                         "load.nested.diamond.growth", "payload.parse", "payload.generate", "dataset.parse", "dataset.encode"] {
            #expect(names.contains(expected), "\(expected) is missing")
        }
        #expect(results.allSatisfy { $0.median.isFinite && $0.median > 0 })
    }

    @Test func aFilterNamingOneShippedWorkflowLoadsOnlyThatWorkflow() async throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let suite = BenchmarkSuite(
            workflowsDirectory: root.appendingPathComponent("Workflows").path, matterflowExecutable: nil, scale: 0.001)
        let results = try await suite.run(filter: "load.shipped.cancel")
        #expect(results.map(\.name) == ["load.shipped.cancel.json", "load.reload.cancel.json"])
        for filter in ["load.shipped.no-such-workflow", "load.shipped."] {
            await #expect(performing: { try await suite.run(filter: filter) }, throws: { error in
                "\(error)".contains("no shipped workflow is named")
            })
        }
        // A name is one workflow, not every workflow it starts.
        let one = try await suite.run(filter: "load.shipped.commission")
        #expect(one.map(\.name) == ["load.shipped.commission.json", "load.reload.commission.json"])
    }

    @Test func usageErrorsExit64() async {
        var errors = ""
        let code = await BenchmarkTool.main(
            arguments: ["--frobnicate"], standardOutput: { _ in }, standardError: { errors += $0 }, executableDirectory: "/")
        #expect(code == 64)
        #expect(errors.contains("Unknown argument"))
    }
}
