import CSignalRelay
import Foundation
import Synchronization

/// The process's one relay of signals: a C handler writes each relayed signal's number to a pipe the moment it comes,
/// and a thread of the relay's own hands it to the listeners of that moment. A signal is caught from the instant
/// ``relay(_:)`` returns; a dispatch source, registered later on another thread, could let one pass while the signal
/// was ignored.
final class SignalRelay: Sendable {
    /// The relay of this process.
    static let shared = SignalRelay()

    private struct State {
        var listeners: [ObjectIdentifier: @Sendable (Int32) -> Void] = [:]
        var reading = false
    }

    private let state = Mutex(State())

    private init() {}

    /// Hands each relayed signal to `listener` until ``stopListening(_:)``.
    func listen(_ id: ObjectIdentifier, _ listener: @escaping @Sendable (Int32) -> Void) {
        state.withLock { $0.listeners[id] = listener }
    }

    /// Stops handing signals to the listener `id`.
    func stopListening(_ id: ObjectIdentifier) {
        _ = state.withLock { $0.listeners.removeValue(forKey: id) }
    }

    /// Catches `signals` from now on, and starts the thread that hands them on. Where the pipe cannot be made (no
    /// descriptor left), the signals keep their disposition.
    func relay(_ signals: [Int32]) {
        state.withLock { state in
            let pipe = matterflow_signal_relay_open()
            guard pipe >= 0 else { return }
            if !state.reading {
                state.reading = true
                let thread = Thread { [self] in read(from: pipe) }
                thread.start()
            }
            // Installed each time: a command may have given a signal its former disposition back meanwhile.
            for signo in signals { _ = matterflow_signal_relay_install(signo) }
        }
    }

    /// Reads the pipe for good: each byte is a signal's number.
    private func read(from pipe: Int32) {
        var number: UInt8 = 0
        while true {
            let count = Glibc.read(pipe, &number, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { return }
            let listeners = state.withLock { Array($0.listeners.values) }
            for listener in listeners { listener(Int32(number)) }
        }
    }
}
