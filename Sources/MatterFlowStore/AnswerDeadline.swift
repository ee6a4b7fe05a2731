import Foundation
import MatterFlow
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How long a connection waits for the server to answer one command before it gives the connection up.
///
/// libpq's calls block until the server answers, and nothing on the server bounds a wait that happens before the
/// server sees the statement: a pooler in front of it that holds statements (pgbouncer's `PAUSE`, a pool with no
/// server connection free) or a server process that is stopped. A command run on a timer (a monitoring probe) would
/// then never end, and the next ones would pile up behind it. With a deadline, the connection's socket is shut down
/// when the answer is late: the blocked call returns at once, the connection is closed, and the command fails
/// ``PostgresError/Code/noAnswer``.
///
/// What is shut down is a duplicate of the connection's socket, made when the command is sent and closed when it
/// ends: libpq may close its own descriptor inside the call (a connection that broke), and that number may be
/// another file's by the time the timer fires; the duplicate is the deadline's until it is closed. And it is shut
/// down only while the command that armed the deadline is under way (``arm(socket:)`` and ``disarm(_:)`` share one
/// lock with the timer's check).
final class AnswerDeadline: Sendable {
    /// The longest wait for one command's answer.
    let limit: Duration
    /// Runs `fire` once `delay` has passed (a timer on a background queue, or a test's hand).
    typealias Scheduler = @Sendable (_ delay: Duration, _ fire: @escaping @Sendable () -> Void) -> Void

    private struct Armed {
        var command: UInt64
        /// A duplicate of the connection's socket, closed at ``disarm(_:)``; -1 when none could be made (no
        /// descriptor free), which leaves the command without a deadline.
        var socket: Int32
    }

    private struct State {
        var armed: Armed?
        var nextCommand: UInt64 = 0
        /// The commands whose answer came too late, until they are disarmed.
        var expired: Set<UInt64> = []
    }

    private let state = Mutex(State())
    private let schedule: Scheduler

    init(limit: Duration, schedule: @escaping Scheduler = AnswerDeadline.backgroundTimer) {
        self.limit = limit
        self.schedule = schedule
    }

    /// A timer on a global dispatch queue.
    static let backgroundTimer: Scheduler = { delay, fire in
        DispatchQueue.global().asyncAfter(deadline: .now() + delay.secondsValue, execute: fire)
    }

    /// Starts the wait for the answer to a command about to be sent on `socket`; returns the command's token.
    func arm(socket: Int32) -> UInt64 {
        let duplicate = socket >= 0 ? fcntl(socket, F_DUPFD_CLOEXEC, 0) : -1
        let command = state.withLock { state in
            state.nextCommand += 1
            state.armed = Armed(command: state.nextCommand, socket: duplicate)
            return state.nextCommand
        }
        schedule(limit) { [weak self] in self?.expire(command) }
        return command
    }

    /// Ends the wait for `command`'s answer; true when the deadline passed first (the socket was shut down).
    func disarm(_ command: UInt64) -> Bool {
        state.withLock { state in
            if let armed = state.armed, armed.command == command {
                if armed.socket >= 0 { close(armed.socket) }
                state.armed = nil
            }
            return state.expired.remove(command) != nil
        }
    }

    /// The deadline of `command` has passed: if it is still under way, its socket is shut down, which ends libpq's
    /// wait for the answer with an error.
    private func expire(_ command: UInt64) {
        state.withLock { state in
            guard let armed = state.armed, armed.command == command, armed.socket >= 0 else { return }
            state.expired.insert(command)
            // Kept armed, so that disarm closes the duplicate.
            _ = shutdown(armed.socket, Int32(SHUT_RDWR))
        }
    }

    /// `limit` as a person reads it: `10 s`, `0.5 s`.
    var shown: String { limit.secondsText + " s" }
}
