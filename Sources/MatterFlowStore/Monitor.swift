#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread mutex with a condition: what the store's own threads (the group committer's, the lease keeper's, the
/// queue listener's) wait on, and what the runs' threads lock to hand them work.
final class Monitor: @unchecked Sendable {
    // Safety of @unchecked Sendable: the pointers are allocated once, never reassigned, and point to pthread
    // objects made for use from many threads.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>

    init() {
        mutex = .allocate(capacity: 1)
        condition = .allocate(capacity: 1)
        pthread_mutex_init(mutex, nil)
        // Timed waits count on the monotonic clock, so a step of the wall clock (NTP, a resumed VM) neither holds a
        // batch back nor lets it go early.
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }
    func unlock() { pthread_mutex_unlock(mutex) }
    func wait() { pthread_cond_wait(condition, mutex) }
    func broadcast() { pthread_cond_broadcast(condition) }
    /// Wakes one thread waiting on the condition: for a condition only one thread ever waits on.
    func signal() { pthread_cond_signal(condition) }

    /// Waits at most `milliseconds` (or until signalled).
    func wait(milliseconds: Int) {
        _ = wait(until: Self.deadline(microseconds: milliseconds * 1000))
    }

    /// Waits until signalled or `deadline` (``deadline(microseconds:)``); false once the deadline has passed.
    func wait(until deadline: timespec) -> Bool {
        var until = deadline
        return pthread_cond_timedwait(condition, mutex, &until) != ETIMEDOUT
    }

    /// The time `microseconds` from now, for ``wait(until:)``.
    static func deadline(microseconds: Int) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        var nanoseconds = Int(now.tv_nsec) + microseconds * 1000
        var until = now
        until.tv_sec += nanoseconds / 1_000_000_000
        nanoseconds %= 1_000_000_000
        until.tv_nsec = nanoseconds
        return until
    }
}
