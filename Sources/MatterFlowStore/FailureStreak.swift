/// Failures of one kind in a row (claims, heartbeats), counted so that a worker says so at the 1st, 2nd, 4th,
/// 8th ... of them and once when the kind works again: a store in trouble for an hour costs a dozen log lines, not
/// one a statement.
struct FailureStreak {
    /// The failures since the last success.
    private(set) var inARow = 0

    /// Counts a failure; returns whether it is one to say (the 1st, 2nd, 4th, 8th ... in a row).
    mutating func failed() -> Bool {
        inARow += 1
        return inARow.nonzeroBitCount == 1
    }

    /// Counts a success; returns how many failures it ends, nil when none came before it.
    mutating func succeeded() -> Int? {
        defer { inARow = 0 }
        return inARow > 0 ? inARow : nil
    }
}
