import Foundation
import MatterFlow

extension BenchmarkSuite {
    /// The depths the nesting figures load, and what the deeper one may cost against the shallower.
    static let nestedLevels = (shallow: 16, deep: 64)

    /// Load + validate time of trees of sub-workflows, a chain and a diamond (each level running the next twice),
    /// 16 and 64 levels deep, and how each grows: with every file analysed once per way it is entered, four times
    /// the files should cost about four times as much, whatever the number of paths (2^63 in the deep diamond).
    func loadNested() throws -> [BenchmarkResult] {
        let root = FileManager.default.temporaryDirectory
            .appendingPathComponent("matterflow-bench-nested-\(ProcessInfo.processInfo.processIdentifier)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        var results: [BenchmarkResult] = []
        for shape in WorkflowTrees.Shape.allCases {
            var medians: [Int: Double] = [:]
            for levels in [Self.nestedLevels.shallow, Self.nestedLevels.deep] {
                let top = try WorkflowTrees.write(shape, levels: levels, into: root + "/\(shape.rawValue)-\(levels)")
                let samples = try Sampler.sample(warmUp: count(3), repetitions: count(30)) {
                    try Self.requireValid(WorkflowEngine(), path: top, file: "\(shape.rawValue) of \(levels) levels")
                }.map { $0 * 1e3 }
                let median = Sampler.percentile(samples, 0.5)
                medians[levels] = median
                results.append(
                    BenchmarkResult(
                        name: "load.nested.\(shape.rawValue).\(levels)", unit: "ms", median: median,
                        p99: Sampler.percentile(samples, 0.99)))
            }
            let ratio = (medians[Self.nestedLevels.deep] ?? .nan) / (medians[Self.nestedLevels.shallow] ?? .nan)
            results.append(
                BenchmarkResult(
                    name: "load.nested.\(shape.rawValue).growth", unit: "× (64 / 16 levels)", median: ratio, p99: ratio,
                    target: .init(description: "≤ 6×", met: ratio <= 6)))
        }
        return results
    }
}
