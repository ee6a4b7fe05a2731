import Foundation
import MatterFlow
import MatterFlowJSON
import MatterPayload
import ThreadDataset

extension BenchmarkSuite {
    /// Load + validate time of each shipped workflow, in-process: the first load (a new engine each time, so
    /// every file of the tree is read, parsed and checked), and a reload by an engine that loaded it before (its
    /// cache compares every file's bytes, then reuses the outcome). `only` keeps the one file it names, with or
    /// without `.json`.
    func loadShipped(only: String? = nil) throws -> [BenchmarkResult] {
        let files = try FileManager.default.contentsOfDirectory(atPath: workflowsDirectory)
            .filter { $0.hasSuffix(".json") && only.map { name in [name, name + ".json"] }?.contains($0) ?? true }.sorted()
        if let only, files.isEmpty { throw BenchmarkError("no shipped workflow is named \(only) (Workflows/\(only).json)") }
        var results: [BenchmarkResult] = []
        for file in files {
            let path = workflowsDirectory + "/" + file
            let first = try Sampler.sample(warmUp: count(20), repetitions: count(200)) {
                try Self.requireValid(WorkflowEngine(), path: path, file: file)
            }.map { $0 * 1e6 }
            let median = Sampler.percentile(first, 0.5)
            results.append(
                BenchmarkResult(
                    name: "load.shipped." + file, unit: "µs", median: median, p99: Sampler.percentile(first, 0.99),
                    target: .init(description: "≤ 200 µs", met: median <= 200)))
        }
        let engine = WorkflowEngine()
        for file in files {
            let path = workflowsDirectory + "/" + file
            let reload = try Sampler.sample(warmUp: count(20), repetitions: count(200)) {
                try Self.requireValid(engine, path: path, file: file)
            }.map { $0 * 1e6 }
            results.append(
                BenchmarkResult(
                    name: "load.reload." + file, unit: "µs", median: Sampler.percentile(reload, 0.5),
                    p99: Sampler.percentile(reload, 0.99)))
        }
        return results
    }

    static func requireValid(_ engine: WorkflowEngine, path: String, file: String) throws {
        guard engine.validate(path: path).allSatisfy({ $0.severity != .error }) else {
            throw BenchmarkError("\(file) does not validate")
        }
    }

    /// Load + validate time of generated workflows of 1,000 and 10,000 states, and how it grows.
    func loadGenerated() throws -> [BenchmarkResult] {
        let engine = WorkflowEngine()
        var medians: [Int: Double] = [:]
        var results: [BenchmarkResult] = []
        for states in [1_000, 10_000] {
            let text = GeneratedWorkflows.chain(states: states)
            let samples = try Sampler.sample(warmUp: count(3), repetitions: count(states == 1_000 ? 40 : 10)) {
                _ = try engine.load(text: text, baseDirectory: workflowsDirectory)
            }.map { $0 * 1e3 }
            let median = Sampler.percentile(samples, 0.5)
            medians[states] = median
            results.append(
                BenchmarkResult(name: "load.generated.\(states)", unit: "ms", median: median, p99: Sampler.percentile(samples, 0.99)))
        }
        let ratio = (medians[10_000] ?? .nan) / (medians[1_000] ?? .nan)
        results.append(
            BenchmarkResult(
                name: "load.generated.growth", unit: "× (10,000 / 1,000 states)", median: ratio, p99: ratio,
                target: .init(description: "≤ 12×", met: ratio <= 12)))
        return results
    }

    /// `matterflow validate` as a whole process, on the end-to-end workflow.
    func validateProcess() throws -> [BenchmarkResult] {
        guard let executable = matterflowExecutable, FileManager.default.isExecutableFile(atPath: executable) else { return [] }
        let samples = try Sampler.sample(warmUp: 2, repetitions: count(20)) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["validate", workflowsDirectory + "/commission-device.json"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw BenchmarkError("matterflow validate exited \(process.terminationStatus)") }
        }.map { $0 * 1e3 }
        let median = Sampler.percentile(samples, 0.5)
        return [
            BenchmarkResult(
                name: "validate.process", unit: "ms", median: median, p99: Sampler.percentile(samples, 0.99),
                target: .init(description: "≤ 50 ms", met: median <= 50))
        ]
    }

    /// Payload and dataset codecs, operations per second.
    func codec(_ name: String) throws -> BenchmarkResult {
        let batch = count(100_000)
        let payload = try OnboardingPayload.decode(Self.payload)[0]
        let dataset = try OperationalDataset(hex: Self.datasetHex)
        let bytes = dataset.encode()
        var sink = 0
        let work: () throws -> Void
        switch name {
        case "payload.parse": work = { sink &+= try OnboardingPayload.parse(Self.payload).count }
        case "payload.generate": work = { sink &+= try payload.qrCode().utf8.count }
        case "dataset.parse": work = { sink &+= try OperationalDataset(tlvs: bytes).encodedLength }
        default: work = { sink &+= dataset.encode().count }
        }
        let samples = try Sampler.sample(warmUp: 2, repetitions: count(10)) {
            for _ in 0..<batch { try work() }
        }.map { $0 / Double(batch) * 1e9 }
        precondition(sink != 0, "the codec work must not be optimised away")
        let median = Sampler.percentile(samples, 0.5)
        let perSecond = 1e9 / median
        return BenchmarkResult(
            name: name, unit: "ns/op", median: median, p99: Sampler.percentile(samples, 0.99), perSecond: perSecond,
            target: name.hasSuffix("parse") ? .init(description: "≥ 1,000,000/s", met: perSecond >= 1_000_000) : nil)
    }
}

/// A benchmark that could not run as intended.
struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
