/// How long a run stays unclaimed after a worker handed it back because it could not read the run's records (the
/// server failing reads) or reach its structure's hub. Without a delay the worker would claim the run again at once, fail again, and spin.
///
/// The delay grows with the number of times the run has been claimed, which the store counts for the whole fleet
/// (`matterflow_runs.claims`): ``firstDelay`` at its first claim after the one that started it, twice as long at each
/// further claim, at most ``longestDelay``. It is pushed into the store (the run's lease ends that much later, with
/// no worker named), so no worker of the fleet claims the run before then; it depends on no clock and no worker's
/// memory.
enum HandBackBackoff {
    /// The delay at a run's second claim (the first that can find records to read).
    static let firstDelay: Double = 0.25
    /// The longest delay, however often a run was claimed.
    static let longestDelay: Double = 8
    /// How many times a run that has not begun may find no hub for its structure (about 24 s of delays) before it
    /// fails without a call. The store counts them apart from the run's claims (`matterflow_runs.hub_failures`).
    static let hubFailuresBeforeFailing = 8
    /// How many claims of a run a takeover's recovery may fail to finish in (about half a minute of delays) before the
    /// run is recorded `needsAttention`: a moment's failure is outlived, a lasting one (a workflow file changed, a
    /// digest key missing) is left to a person.
    static let claimsBeforeRecoveryGivesUp = 8

    /// The delay for a run claimed `claims` times, this claim included.
    static func delay(afterClaims claims: Int) -> Double {
        var delay = firstDelay
        for _ in 2..<max(claims, 2) {
            delay *= 2
            if delay >= longestDelay { return longestDelay }
        }
        return delay
    }

    /// The delay after a run's `failures`-th failure to find its structure's hub: ``firstDelay`` after the first,
    /// twice as long after each further one, at most ``longestDelay``.
    static func delay(afterFailures failures: Int) -> Double {
        delay(afterClaims: failures + 1)
    }
}
