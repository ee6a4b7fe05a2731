import Dispatch
import Foundation
import MatterFlow
import Synchronization

/// Routes SIGINT, SIGTERM and SIGHUP to a cancel instead of letting them end the process, so a run takes its
/// cancel path (releasing its session, journaling it) before the command exits with the signal's conventional
/// code, 128 + its number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
///
/// Routing starts before a run does, so a signal at any moment of the run is caught: one that arrives before
/// the run's handle is known cancels the run as soon as it starts.
final class InterruptSignals: Sendable {
    /// The signals that take the cancel path.
    static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// The first signal received, and the run to cancel.
    private let state = Mutex<(signal: Int32?, handles: [RunHandle], cancels: [@Sendable () -> Void])>((nil, [], []))
    /// The dispatch sources, and each signal's disposition before routing began; only changed under the lock.
    private let sources = Mutex<(sources: [any DispatchSourceSignal], previous: [(Int32, sighandler_t?)])>(([], []))

    /// Starts routing the handled signals (ignored by the default action from now on).
    init() {
        sources.withLock { routing in
            for signo in Self.handled {
                routing.previous.append((signo, signal(signo, SIG_IGN)))
                let source = DispatchSource.makeSignalSource(signal: signo, queue: .global())
                source.setEventHandler { [weak self] in self?.received(signo) }
                source.resume()
                routing.sources.append(source)
            }
        }
    }

    /// Cancels `handle` on the first signal (at once, if one has already come).
    func cancels(_ handle: RunHandle) {
        let received = state.withLock { state -> Bool in
            state.handles.append(handle)
            return state.signal != nil
        }
        if received { handle.cancel() }
    }

    /// Calls `cancel` on the first signal (at once, if one has already come).
    func calls(_ cancel: @escaping @Sendable () -> Void) {
        let received = state.withLock { state -> Bool in
            state.cancels.append(cancel)
            return state.signal != nil
        }
        if received { cancel() }
    }

    /// The first signal received, if any.
    var receivedSignal: Int32? { state.withLock { $0.signal } }

    /// The exit code for an interrupted command: 128 + the signal's number.
    var exitCode: Int32? { receivedSignal.map { 128 + $0 } }

    /// Stops routing. The signals stay ignored: the command is about to exit with the code they call for.
    func stop() {
        sources.withLock { routing in
            for source in routing.sources { source.cancel() }
            routing.sources.removeAll()
        }
    }

    /// Stops routing and gives the signals back the dispositions they had before (their default action, or ignored
    /// as under `nohup`): for a command that goes on after the work the signals were routed for.
    func restoreDispositions() {
        stop()
        let previous = sources.withLock { routing in routing.previous }
        for (signo, handler) in previous { signal(signo, handler) }
    }

    private func received(_ signo: Int32) {
        let (handles, cancels) = state.withLock { state -> ([RunHandle], [@Sendable () -> Void]) in
            guard state.signal == nil else { return ([], []) }
            state.signal = signo
            return (state.handles, state.cancels)
        }
        for handle in handles { handle.cancel() }
        for cancel in cancels { cancel() }
    }
}
