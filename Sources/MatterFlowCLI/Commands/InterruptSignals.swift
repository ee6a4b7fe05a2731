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
    /// The dispatch sources; only created, resumed and cancelled under the lock.
    private let sources = Mutex<[any DispatchSourceSignal]>([])

    /// Starts routing the handled signals (ignored by the default action from now on).
    init() {
        sources.withLock { sources in
            for signo in Self.handled {
                signal(signo, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signo, queue: .global())
                source.setEventHandler { [weak self] in self?.received(signo) }
                source.resume()
                sources.append(source)
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
        sources.withLock { sources in
            for source in sources { source.cancel() }
            sources.removeAll()
        }
    }

    /// Stops routing and gives the signals their default action back: for a command that goes on after the work the
    /// signals were routed for.
    func restoreDefaults() {
        stop()
        for signo in Self.handled { signal(signo, SIG_DFL) }
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
