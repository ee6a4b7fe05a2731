import MatterFlow

/// A worker's claims that failed in a row (the server read-only, out of disk, refusing its role): how long the
/// worker waits before it claims again, and which failures it says so for, so that a store in trouble is neither
/// asked again every 20 ms by every worker of the fleet nor answered with a log line each time.
struct ClaimFailures {
    /// The wait after the first failure; it doubles with each further one.
    static let firstWait = 0.25
    /// The longest wait, however many claims failed.
    static let longestWait = 5.0

    private var streak = FailureStreak()

    /// The claims that failed since the last one that did not.
    var inARow: Int { streak.inARow }

    /// Counts a failed claim; returns the log line for it when it is the 1st, 2nd, 4th, 8th ... in a row (nil for the
    /// others).
    mutating func failed(_ message: String) -> String? {
        guard streak.failed() else { return nil }
        if inARow == 1 { return "claiming failed: \(message); trying again in \(wait.secondsText) s" }
        return "claiming failed \(inARow) times in a row: \(message); trying again every \(wait.secondsText) s or less"
    }

    /// Counts a claim that worked; returns the line saying claims work again when some had failed.
    mutating func succeeded() -> String? {
        streak.succeeded().map { "claiming works again after \($0) failed claim\($0 == 1 ? "" : "s")" }
    }

    /// How long to wait before the next claim: none when the last one worked.
    var wait: Duration {
        guard inARow > 0 else { return .zero }
        var wait = Self.firstWait
        for _ in 1..<inARow {
            wait *= 2
            if wait >= Self.longestWait { return .seconds(rounding: Self.longestWait) }
        }
        return .seconds(rounding: wait)
    }
}
