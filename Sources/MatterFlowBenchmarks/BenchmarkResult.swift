import CMallocStats
import Foundation
import MatterFlow

/// One benchmark's figures: timings in seconds per operation, with their median and 99th percentile.
public struct BenchmarkResult: Sendable {
    /// What was measured, e.g. `transition.overhead`.
    public var name: String
    /// The unit of ``median`` and ``p99`` (for example `µs/transition`).
    public var unit: String
    /// The median of the measured values, in ``unit``.
    public var median: Double
    /// The 99th percentile of the measured values, in ``unit``.
    public var p99: Double
    /// Operations per second at the median, when it is a throughput figure.
    public var perSecond: Double?
    /// Other figures (peak RSS, bytes per run, ...).
    public var extra: [String: Double]
    /// Whether a smaller value is better for ``median`` (true for times and sizes).
    public var lowerIsBetter: Bool
    /// The target and whether it was met, when the issue sets one.
    public var target: Target?

    /// A figure's target: `value` with the comparison the figure must satisfy.
    public struct Target: Sendable {
        /// The target in words (`≤ 1 µs median`).
        public var description: String
        /// Whether the figure met the target.
        public var met: Bool
    }

    /// A result named `name` with its median and 99th percentile in `unit`; by default lower is better, with no
    /// throughput, extra figures or target.
    public init(
        name: String, unit: String, median: Double, p99: Double, perSecond: Double? = nil, extra: [String: Double] = [:],
        lowerIsBetter: Bool = true, target: Target? = nil
    ) {
        self.name = name
        self.unit = unit
        self.median = median
        self.p99 = p99
        self.perSecond = perSecond
        self.extra = extra
        self.lowerIsBetter = lowerIsBetter
        self.target = target
    }
}

/// Repeats a piece of work and summarises its durations.
public enum Sampler {
    /// Runs `body` `warmUp` times unmeasured, then `repetitions` times measured; returns seconds per repetition.
    public static func sample(warmUp: Int, repetitions: Int, _ body: () async throws -> Void) async rethrows -> [Double] {
        for _ in 0..<warmUp { try await body() }
        var samples: [Double] = []
        samples.reserveCapacity(repetitions)
        let clock = ContinuousClock()
        for _ in 0..<repetitions {
            let start = clock.now
            try await body()
            samples.append((clock.now - start).secondsValue)
        }
        return samples
    }

    /// The same for synchronous work.
    public static func sample(warmUp: Int, repetitions: Int, _ body: () throws -> Void) rethrows -> [Double] {
        for _ in 0..<warmUp { try body() }
        let clock = ContinuousClock()
        return try (0..<repetitions).map { _ in
            let start = clock.now
            try body()
            return (clock.now - start).secondsValue
        }
    }

    /// The value below which `fraction` of the samples fall (nearest rank).
    public static func percentile(_ samples: [Double], _ fraction: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }
}

/// The process's memory use, from `/proc/self/status` (Linux).
public enum ProcessMemory {
    /// Resident set size now, in bytes.
    public static var residentBytes: Double { field("VmRSS:") }
    /// Peak resident set size so far, in bytes.
    public static var peakResidentBytes: Double { field("VmHWM:") }
    /// Bytes the allocator has handed out and not had back, in all its arenas: the live heap, without the memory freed
    /// but kept that the resident set also counts.
    public static var heapBytesInUse: Double { Double(matterflow_heap_bytes_in_use()) }

    private static func field(_ name: String) -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return .nan }
        for line in text.split(separator: "\n") where line.hasPrefix(name) {
            let number = line.dropFirst(name.count).split(whereSeparator: { $0 == " " || $0 == "\t" }).first.flatMap { Double($0) }
            return (number ?? .nan) * 1024
        }
        return .nan
    }
}
