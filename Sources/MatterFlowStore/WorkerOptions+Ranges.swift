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

    /// Why these options cannot run a worker (naming the option, its value and its range); nil when they can.
    public var problem: String? {
        func outside<Value: Comparable>(_ name: String, _ value: Value, _ range: ClosedRange<Value>) -> String? {
            range.contains(value) ? nil : "WorkerOptions.\(name) is \(value); it must be from \(range.lowerBound) to \(range.upperBound)"
        }
        if workerID.isEmpty { return "WorkerOptions.workerID is empty; give the worker an ID" }
        // NaN is in no range: `contains` is false for it, so it is refused with the rest.
        return outside("concurrency", concurrency, Ranges.concurrency)
            ?? outside("maxWaiting", maxWaiting, Ranges.maxWaiting)
            ?? outside("leaseSeconds", leaseSeconds, Ranges.leaseSeconds)
            ?? outside("pollMilliseconds", pollMilliseconds, Ranges.pollMilliseconds)
            ?? outside("drainSeconds", drainSeconds, Ranges.drainSeconds)
    }
}
