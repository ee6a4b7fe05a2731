import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
import MatterPayload
import ThreadDataset

/// The release-mode benchmarks of issue "Benchmarks and scale", with their targets.
public struct BenchmarkSuite: Sendable {
    /// Where the shipped workflows are.
    public var workflowsDirectory: String
    /// The `matterflow` executable, for the whole-process validate figure (nil: skipped).
    public var matterflowExecutable: String?
    /// How much work each figure does; tests use a small scale.
    public var scale: Double

    /// A suite over the workflows in `workflowsDirectory`; `matterflowExecutable` nil skips the whole-process validate
    /// figure, and `scale` multiplies the work (1 by default).
    public init(workflowsDirectory: String, matterflowExecutable: String?, scale: Double = 1) {
        self.workflowsDirectory = workflowsDirectory
        self.matterflowExecutable = matterflowExecutable
        self.scale = scale
    }

    /// The names of all benchmarks, in the order they run.
    public static let names = [
        "transition.overhead", "action.overhead", "commission.oneTask", "commission.allCores", "concurrent.10000",
        "load.shipped", "load.generated", "load.nested", "validate.process", "payload.parse", "payload.generate",
        "dataset.parse", "dataset.encode", "redact.sharedLine", "redact.learnPayload",
    ]

    static let payload = "MT:Y.K9042C00KA0648G00"
    static let inputs: JSONObject = ["onboardingPayload": .string(payload), "deviceName": "Lamp", "roomName": "Kitchen"]
    static let datasetHex =
        "0e080000000000010000000300000f35060004001fffe0020811111111222222220708fdad70bfe5aa15dd051000112233445566778899aabbccddeeff030e4f70656e5468726561644465"
        + "6d6f010212340410445f2b5ca6f2a93a55ce570a70efeecb0c0402a0f7f8"

    func count(_ base: Int) -> Int { max(1, Int(Double(base) * scale)) }

    /// Runs the benchmarks whose names contain `filter` (all when nil). A filter naming one shipped workflow's
    /// figure (`load.shipped.cancel`) runs only that workflow's loads.
    public func run(filter: String?) async throws -> [BenchmarkResult] {
        var results: [BenchmarkResult] = []
        for name in Self.names {
            guard let filter else {
                results.append(contentsOf: try await run(name, file: nil))
                continue
            }
            if name.contains(filter) {
                results.append(contentsOf: try await run(name, file: nil))
            } else if name == "load.shipped", let file = Self.shippedFile(in: filter) {
                results.append(contentsOf: try await run(name, file: file))
            }
        }
        return results
    }

    /// The workflow file a filter such as `load.shipped.cancel` or `load.reload.epskc-share.json` names (`""` for
    /// `load.shipped.` alone, which names none).
    static func shippedFile(in filter: String) -> String? {
        for prefix in ["load.shipped.", "load.reload."] where filter.hasPrefix(prefix) {
            return String(filter.dropFirst(prefix.count))
        }
        return nil
    }

    private func run(_ name: String, file: String?) async throws -> [BenchmarkResult] {
        switch name {
        case "transition.overhead": return [try await transitionOverhead()]
        case "action.overhead": return [try await actionOverhead()]
        case "commission.oneTask": return [try await commissionThroughput(tasks: 1, name: name)]
        case "commission.allCores":
            return [try await commissionThroughput(tasks: ProcessInfo.processInfo.activeProcessorCount, name: name)]
        case "concurrent.10000": return [try await concurrentRuns()]
        case "load.shipped": return try loadShipped(only: file)
        case "load.generated": return try loadGenerated()
        case "load.nested": return try loadNested()
        case "validate.process": return try validateProcess()
        case "payload.parse", "payload.generate", "dataset.parse", "dataset.encode": return [try codec(name)]
        case "redact.sharedLine": return try await sharedRedaction()
        case "redact.learnPayload": return [learnPayload()]
        default: return []
        }
    }

    func commissionWorkflow() throws -> Workflow {
        try WorkflowEngine().load(path: workflowsDirectory + "/commission-device.json")
    }
}
