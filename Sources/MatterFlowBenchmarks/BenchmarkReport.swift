import Foundation
import MatterFlowJSON

/// Prints results, saves and compares baselines.
public enum BenchmarkReport {
    /// A human-readable table.
    public static func table(_ results: [BenchmarkResult]) -> String {
        var lines = ["benchmark                                  median        p99           per second     target"]
        for result in results {
            let perSecond = result.perSecond.map { format($0) + "/s" } ?? ""
            let target = result.target.map { ($0.met ? "met: " : "MISSED: ") + $0.description } ?? ""
            lines.append(
                pad(result.name, 42) + " " + pad(format(result.median) + " " + result.unit, 13) + " "
                    + pad(format(result.p99), 13) + " " + pad(perSecond, 14) + " " + target)
            for (key, value) in result.extra.sorted(by: { $0.key < $1.key }) {
                lines.append("    " + key + ": " + format(value))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// The results as JSON (the format `--compare` reads).
    public static func json(_ results: [BenchmarkResult]) -> JSONValue {
        .array(results.map { result in
            var object = JSONObject()
            object["name"] = .string(result.name)
            object["unit"] = .string(result.unit)
            object["median"] = .double(result.median)
            object["p99"] = .double(result.p99)
            object["perSecond"] = result.perSecond.map(JSONValue.double) ?? .null
            object["lowerIsBetter"] = .bool(result.lowerIsBetter)
            object["extra"] = .object(JSONObject(result.extra.sorted { $0.key < $1.key }.map { .init(key: $0.key, value: .double($0.value)) }))
            object["target"] = result.target.map { ["description": .string($0.description), "met": .bool($0.met)] } ?? .null
            return .object(object)
        })
    }

    /// A figure more than `tolerance` worse than its baseline.
    public struct Regression: Sendable, Equatable {
        /// The figure's benchmark name (``BenchmarkResult/name``).
        public var name: String
        /// The figure's median in the baseline JSON.
        public var baseline: Double
        /// The figure's median in the results compared, in the same unit.
        public var current: Double
    }

    /// Figures at least `tolerance` (0.2 = 20 %) worse than in the baseline JSON; figures absent from either are skipped.
    public static func regressions(_ results: [BenchmarkResult], baseline: JSONValue, tolerance: Double = 0.2) -> [Regression] {
        let saved = Dictionary(
            (baseline.arrayValue ?? []).compactMap { entry -> (String, Double)? in
                guard let name = entry["name"]?.stringValue, let median = entry["median"]?.doubleValue else { return nil }
                return (name, median)
            }, uniquingKeysWith: { first, _ in first })
        return results.compactMap { result in
            guard let old = saved[result.name], old > 0, result.median.isFinite else { return nil }
            let worse = result.lowerIsBetter ? result.median > old * (1 + tolerance) : result.median < old * (1 - tolerance)
            return worse ? Regression(name: result.name, baseline: old, current: result.median) : nil
        }
    }

    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "n/a" }
        if abs(value) >= 1_000_000 { return String(format: "%.2fM", value / 1_000_000) }
        if abs(value) >= 10_000 { return String(format: "%.0f", value) }
        if abs(value) >= 100 { return String(format: "%.1f", value) }
        return String(format: "%.3f", value)
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
