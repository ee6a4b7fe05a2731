import Dispatch
import MatterFlowStore
import Synchronization

/// Writes a worker's metrics to `--metrics-file` off the heartbeat's thread: each report is queued, in order, on a
/// queue of its own, so a slow disk delays the file, never a lease; each write replaces the file atomically.
final class MetricsFileWriter: Sendable {
    private let path: String
    private let queue = DispatchQueue(label: "matterflow.metrics-file")
    /// Whether the last write failed: a failure is said once, until a write succeeds again.
    private let failing = Mutex(false)
    /// When the figures last written were taken: reports come from several threads (the heartbeat, and any command
    /// that finds the store gone or back), so one taken earlier may be queued after a later one, and is dropped.
    private let lastTaken = Mutex(-Double.infinity)
    private let warn: @Sendable (String) -> Void

    /// A writer of `path`; `warn` is told when the file cannot be written.
    init(path: String, warn: @escaping @Sendable (String) -> Void) {
        self.path = path
        self.warn = warn
    }

    /// Queues `metrics` to be written after the reports before it.
    func write(_ metrics: WorkerMetrics) {
        queue.async { [self] in
            guard lastTaken.withLock({ last in defer { last = max(last, metrics.reportedAt) }; return metrics.reportedAt >= last }) else { return }
            guard let problem = ReportFile.write(metrics.prometheusText, to: path, what: "metrics") else {
                failing.withLock { $0 = false }
                return
            }
            guard failing.withLock({ state in defer { state = true }; return !state }) else { return }
            warn("--metrics-file: \(problem)")
        }
    }

    /// Waits until every report queued has been written.
    func finish() {
        queue.sync {}
    }
}
