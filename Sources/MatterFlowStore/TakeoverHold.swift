/// When a worker may take over runs whose leases ran out. After the store was out of reach or failing (a failover, a
/// restart, a full disk, a read-only spell), every worker's leases may have run out at once, live workers' too: the
/// first worker back would take over and cancel the runs of the others, which are about to renew them. So after such
/// trouble a worker takes nothing over for one lease, long enough for every live worker's heartbeat (a third of a
/// lease apart) to renew its own; runs of a worker that really stopped are taken over a lease later than otherwise.
struct TakeoverHold {
    /// The length of a hold: the worker's lease.
    let length: Duration
    /// Trouble was seen since the last claim: the next claim starts a hold.
    private var troubled = false
    /// The end of the hold in force; nil when none is.
    private(set) var until: ContinuousClock.Instant?
    /// A hold began that no claim has said yet.
    private var unannounced = false

    /// A hold of `seconds`; a lease out of range (refused before the worker runs: ``WorkerOptions/problem``) makes
    /// none.
    init(lease seconds: Double) {
        length = seconds.isFinite && seconds > 0 ? .milliseconds(Int64(min(seconds, 31_536_000) * 1000)) : .zero
    }

    /// A claim, a heartbeat or another statement failed, or the store could not be reached.
    mutating func troubleSeen() {
        troubled = true
    }

    /// The store answered again after it could not be reached: nothing is taken over for a lease from now, however
    /// long ago a claim last looked (a worker with every slot busy claims nothing while it waits).
    mutating func reachableAgain(at now: ContinuousClock.Instant) {
        troubled = false
        hold(from: now)
    }

    /// Whether a claim made at `now` may take over runs whose leases ran out; a claim after trouble starts a hold.
    /// `started` is called once per hold, at the first claim in it, to say so.
    mutating func mayTakeOver(at now: ContinuousClock.Instant, started: (() -> Void)? = nil) -> Bool {
        if troubled {
            troubled = false
            hold(from: now)
        }
        if unannounced {
            unannounced = false
            started?()
        }
        guard let end = until else { return true }
        if now >= end {
            until = nil
            return true
        }
        return false
    }

    /// Holds takeovers until a lease from `now`, or later when a hold in force ends later.
    private mutating func hold(from now: ContinuousClock.Instant) {
        if until.map({ now >= $0 }) ?? true { unannounced = true }
        until = max(until ?? now, now + length)
    }
}
