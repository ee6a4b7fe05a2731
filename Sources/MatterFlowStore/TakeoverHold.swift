import MatterFlow

/// When a worker may take over runs whose leases ran out. After the store was out of reach or failing for a while (a
/// failover, a restart, a full disk, a read-only spell), every worker's leases may have run out at once, live
/// workers' too: the first worker back would take over and cancel the runs of the others, which are about to renew
/// them. So once the store answers again after trouble that lasted half a lease or more, or after an outage however
/// brief in which connections could not be made (a failover of a second may bring up a standby that lacks the last
/// heartbeats, so that live workers' leases look long expired there), a worker takes nothing over for one lease, long
/// enough for every live worker's heartbeat (a third of a lease apart) to renew its own; runs of a worker that really
/// stopped are taken over a lease later than otherwise. Brief outages that keep coming back hold takeovers for two
/// leases at most from the first, until a lease passes without trouble, so that they never keep a dead worker's runs
/// from being taken over; other brief trouble (a statement that failed once) starts no hold; and while trouble lasts,
/// no claim takes anything over.
struct TakeoverHold {
    /// The length of a hold: the worker's lease.
    let length: Duration
    /// When the trouble going on now began; nil when the store last answered.
    private var troubleSince: ContinuousClock.Instant?
    /// The end of the hold in force; nil when none is.
    private(set) var until: ContinuousClock.Instant?
    /// A hold began that no claim has said yet.
    private var unannounced = false
    /// The trouble going on now was an outage in which connections could not be made.
    private var outage = false
    /// When the first of the brief outages that held takeovers lately began a hold; nil once a lease passed without
    /// trouble.
    private var briefHoldsSince: ContinuousClock.Instant?
    /// When trouble was last seen.
    private var lastTrouble: ContinuousClock.Instant?

    /// A hold of `seconds`; a lease out of range (refused before the worker runs: ``WorkerOptions/problem``) makes
    /// none.
    init(lease seconds: Double) {
        length = .seconds(rounding: seconds)
    }

    /// A claim, a heartbeat or another statement failed, or (`outage`) the store could not be reached.
    mutating func troubleSeen(at now: ContinuousClock.Instant, outage: Bool = false) {
        if let last = lastTrouble, last.duration(to: now) >= length { briefHoldsSince = nil }
        lastTrouble = max(lastTrouble ?? now, now)
        if troubleSince == nil { troubleSince = now }
        if outage { self.outage = true }
    }

    /// The store answered (a claim or a heartbeat worked, or it is reachable again): after an outage, or trouble that
    /// lasted half a lease or more, nothing is taken over for a lease from now.
    mutating func answered(at now: ContinuousClock.Instant) {
        guard let since = troubleSince else { return }
        troubleSince = nil
        let wasOutage = outage
        outage = false
        if since.duration(to: now) * 2 < length {
            guard wasOutage else { return }
            let first = briefHoldsSince ?? now
            guard first.duration(to: now) < length * 2 else { return }
            briefHoldsSince = first
        }
        if until.map({ now >= $0 }) ?? true { unannounced = true }
        until = max(until ?? now, now + length)
    }

    /// Whether a claim made at `now` may take over runs whose leases ran out: not while trouble lasts, nor in a hold.
    /// `started` is called once per hold, at the first claim in it, to say so.
    mutating func mayTakeOver(at now: ContinuousClock.Instant, started: (() -> Void)? = nil) -> Bool {
        if unannounced {
            unannounced = false
            started?()
        }
        guard troubleSince == nil else { return false }
        guard let end = until else { return true }
        if now >= end {
            until = nil
            return true
        }
        return false
    }
}
