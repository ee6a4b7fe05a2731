import MatterFlowJSON

extension WorkerOptions {
    /// The ranges the options must be in: a worker whose options are outside them refuses to start
    /// (`invalidOptions`) rather than trap, spin or never claim.
    public enum Ranges {
        /// ``WorkerOptions/concurrency``: at least one run works at a time.
        public static let concurrency = 1...1_000_000
        /// ``WorkerOptions/maxWaiting``.
        public static let maxWaiting = 0...100_000_000
        /// ``WorkerOptions/leaseSeconds``: heartbeats go every third of it, at least a millisecond apart.
        public static let leaseSeconds = 0.01...86_400.0
        /// ``WorkerOptions/pollMilliseconds``.
        public static let pollMilliseconds = 1...86_400_000
        /// ``WorkerOptions/drainSeconds``: 0 hands every run back at once.
        public static let drainSeconds = 0.0...86_400.0
    }

    /// The longest worker ID, in bytes of UTF-8: it is a column of every listing and a label of every metric.
    public static let workerIDLimit = 128

    /// Why `id` cannot be a worker's ID (it is empty, longer than ``workerIDLimit`` bytes, or holds a control or
    /// format character or a line or paragraph separator, which would break or disguise the lines of logs, listings
    /// and metrics); nil when it can.
    public static func workerIDProblem(_ id: String) -> String? {
        if id.isEmpty { return "is empty; give the worker an ID" }
        if id.utf8.count > workerIDLimit { return "is \(id.utf8.count) bytes long; it must be at most \(workerIDLimit)" }
        let invisible: Set<Unicode.GeneralCategory> = [.control, .format, .lineSeparator, .paragraphSeparator]
        if let control = id.unicodeScalars.first(where: { invisible.contains($0.properties.generalCategory) }) {
            return "holds the control character \(control.codePoint); use letters, digits and punctuation"
        }
        return nil
    }

    /// Why these options cannot run a worker (naming the option, its value and its range); nil when they can.
    public var problem: String? {
        func outside<Value: Comparable>(_ name: String, _ value: Value, _ range: ClosedRange<Value>) -> String? {
            range.contains(value) ? nil : "WorkerOptions.\(name) is \(value); it must be from \(range.lowerBound) to \(range.upperBound)"
        }
        if let problem = Self.workerIDProblem(workerID) { return "WorkerOptions.workerID \(problem)" }
        // NaN is in no range: `contains` is false for it, so it is refused with the rest.
        return outside("concurrency", concurrency, Ranges.concurrency)
            ?? outside("maxWaiting", maxWaiting, Ranges.maxWaiting)
            ?? outside("leaseSeconds", leaseSeconds, Ranges.leaseSeconds)
            ?? outside("pollMilliseconds", pollMilliseconds, Ranges.pollMilliseconds)
            ?? outside("drainSeconds", drainSeconds, Ranges.drainSeconds)
    }
}
