import Foundation
import MatterFlow
import MatterFlowSimulator
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Polls `condition` on a thread of its own and runs `action` there as soon as it holds (after `delay`): the moment
/// the action ran, or nil, running nothing, when `timeout` passes first.
///
/// A child process goes on running while the test process is busy, and at the start of a full-suite run the
/// parallel tests' synchronous work can keep every cooperative thread busy for half a minute. A signal meant for a
/// moment of the child's run is therefore sent from a thread outside that pool, so it lands at that moment and not
/// after the child has moved on.
func act(
    within timeout: Duration = .seconds(120), every interval: Duration = .milliseconds(10), after delay: Duration = .zero,
    when condition: @escaping @Sendable () -> Bool, _ action: @escaping @Sendable () -> Void
) async -> ContinuousClock.Instant? {
    await withCheckedContinuation { continuation in
        Thread.detachNewThread {
            let deadline = ContinuousClock.now + timeout
            while !condition() {
                if ContinuousClock.now >= deadline {
                    continuation.resume(returning: nil)
                    return
                }
                Thread.sleep(forTimeInterval: interval.secondsValue)
            }
            if delay > .zero { Thread.sleep(forTimeInterval: delay.secondsValue) }
            action()
            continuation.resume(returning: ContinuousClock.now)
        }
    }
}

extension ChildProcess {
    /// Sends `number` from a thread of its own as soon as `condition` holds (see ``act(within:every:after:when:_:)``).
    func signal(
        _ number: Int32, within timeout: Duration = .seconds(120), after delay: Duration = .zero,
        when condition: @escaping @Sendable () -> Bool
    ) async -> ContinuousClock.Instant? {
        let process = process
        return await act(within: timeout, after: delay, when: condition) { process.send(number) }
    }

    /// Sends `number` from a thread of its own as soon as a line of the child's standard error matches.
    func signal(
        _ number: Int32, after delay: Duration = .zero, whenErrorLine matches: @escaping @Sendable (String) -> Bool
    ) async -> ContinuousClock.Instant? {
        let stderr = stderr
        return await signal(number, after: delay) { stderr.hasLine(matches) }
    }

    /// Sends `number` as soon as the child's `--trace jsonl` shows commissionDevice started, having read, just
    /// before, whether the home saved in `state` holds an open session: whether it was sent, and that reading.
    func signalWhileCommissioning(_ number: Int32, state: String) async -> (signalled: Bool, sessionOpen: Bool) {
        let sessionOpen = Mutex(false)
        let stderr = stderr
        let signalled = await signal(number) {
            guard stderr.hasLine(startsCommissionDevice) else { return false }
            sessionOpen.withLock { $0 = (try? HomeStateStore.loadSaved(directory: state))?.activeSession != nil }
            return true
        }
        return (signalled != nil, sessionOpen.withLock { $0 })
    }
}

/// Runs `body`, which blocks its thread (a libpq call that may wait for a lock), on a thread of its own, and waits
/// for its result without holding a thread of the pool: with two cores the pool has two, and a statement waiting
/// for a lock that only the test's next step lets go would otherwise hold one for as long as it waits.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
