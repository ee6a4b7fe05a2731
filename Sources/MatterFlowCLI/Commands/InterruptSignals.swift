import Foundation
import MatterFlow
import Synchronization

/// Routes SIGINT, SIGTERM and SIGHUP, and the signals a person or a program most often sends that would end the
/// process at once by default (SIGUSR1, SIGUSR2, SIGALRM, and on Linux SIGPWR, which LXC sends to stop a
/// container), to a cancel instead of letting them end the process, so a run takes its cancel path (releasing its
/// session, journaling it) before the command exits with the signal's conventional code, 128 + its number: 130 for
/// SIGINT, 143 for SIGTERM, 129 for SIGHUP, 138 for SIGUSR1 (on Linux). SIGQUIT keeps its default (a core dump,
/// asked for to debug); SIGPROF, SIGVTALRM, SIGIO and the real-time signals keep theirs (profilers use them). One
/// of the four that the process was started with ignored (`trap '' USR1` in the parent) stays ignored.
///
/// Routing starts before a run does, so a signal at any moment of the run is caught: one that arrives before
/// the run's handle is known cancels the run as soon as it starts. `hub serve` routes SIGINT and SIGTERM only, and
/// waits for the first (``firstSignal()``).
final class InterruptSignals: Sendable {
    /// The signals that take the cancel path by default.
    /// The signals routed unless the process was started with them ignored.
    static let unlessIgnored: [Int32] = {
        #if os(Linux)
            [SIGUSR1, SIGUSR2, SIGALRM, SIGPWR]
        #else
            [SIGUSR1, SIGUSR2, SIGALRM]
        #endif
    }()

    static let handled: [Int32] = [SIGINT, SIGTERM, SIGHUP] + unlessIgnored

    /// The first signal received, and the run to cancel.
    private let state = Mutex<(signal: Int32?, handles: [RunHandle], cancels: [@Sendable (Int32) -> Void], again: [@Sendable (Int32) -> Void])>(
        (nil, [], [], []))
    /// Each signal's disposition before routing began, and whether routing has stopped.
    private let routing = Mutex<(previous: [(Int32, sigaction)], stopped: Bool)>(([], false))

    /// Starts routing `signals`: from the instant this returns none takes its default action, and each is caught (a
    /// handler of the process's ``SignalRelay`` writes it to a pipe; nothing is lost while a thread takes it up).
    ///
    /// SIGPIPE is ignored from then on, in the whole process: a reader of its output that goes away (`| head`, a log
    /// shipper restarted) must not end a run mid-call, holding its session; the writes fail instead, and the
    /// command says at its end that its output was lost (``MatterflowTool/main(arguments:environment:)``).
    init(_ signals: [Int32] = handled) {
        routing.withLock { routing in
            var previous = sigaction()
            sigaction(SIGPIPE, nil, &previous)
            routing.previous.append((SIGPIPE, previous))
            signal(SIGPIPE, SIG_IGN)
            for signo in signals {
                var previous = sigaction()
                sigaction(signo, nil, &previous)
                routing.previous.append((signo, previous))
            }
        }
        let previous = routing.withLock { $0.previous }
        let routed = signals.filter { signo in
            !Self.unlessIgnored.contains(signo) || !(previous.first { $0.0 == signo }.map { Self.isIgnored($0.1) } ?? false)
        }
        SignalRelay.shared.listen(ObjectIdentifier(self)) { [weak self] signo in
            guard routed.contains(signo) else { return }
            self?.received(signo)
        }
        SignalRelay.shared.relay(routed)
    }

    /// Whether a disposition is "ignore" (`SIG_IGN`).
    private static func isIgnored(_ disposition: sigaction) -> Bool {
        #if os(Linux)
            guard disposition.sa_flags & Int32(SA_SIGINFO) == 0, let handler = disposition.__sigaction_handler.sa_handler else { return false }
        #else
            guard disposition.sa_flags & Int32(SA_SIGINFO) == 0, let handler = disposition.__sigaction_u.__sa_handler else { return false }
        #endif
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// Cancels `handle` on the first signal (at once, if one has already come).
    func cancels(_ handle: RunHandle) {
        let received = state.withLock { state -> Int32? in
            state.handles.append(handle)
            return state.signal
        }
        if let received { handle.cancel(reason: Self.reason(received)) }
    }

    /// Calls `cancel` on the first signal (at once, if one has already come).
    func calls(_ cancel: @escaping @Sendable () -> Void) {
        hears { _ in cancel() }
    }

    /// Calls `hear` with each signal after the first: someone insists.
    func hearsAgain(_ hear: @escaping @Sendable (Int32) -> Void) {
        state.withLock { $0.again.append(hear) }
    }

    /// Calls `hear` with the first signal (at once, if one has already come).
    func hears(_ hear: @escaping @Sendable (Int32) -> Void) {
        let received = state.withLock { state -> Int32? in
            if state.signal == nil { state.cancels.append(hear) }
            return state.signal
        }
        if let received { hear(received) }
    }

    /// The first signal, once it has come.
    func firstSignal() async -> Int32 {
        await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            hears { continuation.resume(returning: $0) }
        }
    }

    /// The first signal received, if any.
    var receivedSignal: Int32? { state.withLock { $0.signal } }

    /// The exit code for an interrupted command: 128 + the signal's number.
    var exitCode: Int32? { receivedSignal.map { 128 + $0 } }

    /// Stops routing. The signals stay caught and go nowhere (ignored, in effect): the command is about to exit with
    /// the code they call for.
    func stop() {
        routing.withLock { $0.stopped = true }
        SignalRelay.shared.stopListening(ObjectIdentifier(self))
    }

    /// Stops routing and gives the signals back the dispositions they had before (their default action, or ignored
    /// as under `nohup`), SIGPIPE's too: for a command that goes on after the work the signals were routed for (a
    /// hub's handshake read, `validate --hub` prints its findings as any command does).
    func restoreDispositions() {
        stop()
        let previous = routing.withLock { routing in routing.previous }
        for (signo, disposition) in previous {
            var disposition = disposition
            sigaction(signo, &disposition, nil)
        }
    }

    private func received(_ signo: Int32) {
        guard !routing.withLock({ $0.stopped }) else { return }
        let (handles, cancels) = state.withLock { state -> ([RunHandle], [@Sendable (Int32) -> Void]) in
            guard state.signal == nil else { return ([], state.again) }
            state.signal = signo
            return (state.handles, state.cancels)
        }
        for handle in handles { handle.cancel(reason: Self.reason(signo)) }
        for cancel in cancels { cancel(signo) }
    }

    /// Why a run this signal cancels ends: `SIGTERM received`.
    static func reason(_ signo: Int32) -> String {
        "\(RunCommand.signalName(signo)) received"
    }
}
