import MatterFlow
import Synchronization

/// Interrupts the runs a recovery continues, for a process that receives SIGINT, SIGTERM or SIGHUP while it
/// recovers (`matterflow recover --resume`).
///
/// Once interrupted, the run being continued is cancelled, so it takes its cancel path at once (its session is
/// released and its end journaled as `cancelled`), and every run recovered afterwards takes its cancel path rather
/// than being resumed. Recovery's own reads and releases are not interrupted: they settle what the runs hold.
public final class RecoveryInterrupt: Sendable {
    private let state = Mutex<(interrupted: Bool, reason: String?, running: RunHandle?)>((false, nil, nil))

    /// Creates an interrupt that has not been triggered.
    public init() {}

    /// Interrupts the continued runs (idempotent); `reason` is what their cancellation says (the first one given).
    public func interrupt(reason: String? = nil) {
        let (running, why) = state.withLock { state -> (RunHandle?, String?) in
            if !state.interrupted { state.reason = reason }
            state.interrupted = true
            return (state.running, state.reason)
        }
        running?.cancel(reason: why)
    }

    /// Whether ``interrupt()`` was called.
    public var isInterrupted: Bool { state.withLock { $0.interrupted } }

    /// Follows a continued run until ``finished()``: cancelled at once if already interrupted.
    func follow(_ handle: RunHandle) {
        let interrupted = state.withLock { state -> (Bool, String?) in
            state.running = handle
            return (state.interrupted, state.reason)
        }
        if interrupted.0 { handle.cancel(reason: interrupted.1) }
    }

    /// The followed run has ended.
    func finished() {
        state.withLock { $0.running = nil }
    }
}
