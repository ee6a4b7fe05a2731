/// How long a worker leaves a run alone after handing it back because it could not read the run's records (the
/// server failing reads): the first hand-back waits ``firstDelay``, each further one of the same run twice as long,
/// at most ``longestDelay``. Without it the worker would claim the run again at once, fail again, and spin.
///
/// The delay is pushed into the store (the run's lease ends that much later, with no worker named), so no worker of
/// the fleet claims the run before then; the delays depend only on how many times the run was handed back, never
/// on a clock.
struct HandBackBackoff: Sendable, Hashable {
    /// The delay after a run's first hand-back.
    static let firstDelay: Double = 0.25
    /// The longest delay, however many times a run was handed back.
    static let longestDelay: Double = 8

    /// Hand-backs of each run since its records were last read.
    private var handBacks: [String: Int] = [:]

    /// Counts one more hand-back of `runID` and returns how many seconds the run stays unclaimed.
    mutating func handedBack(_ runID: String) -> Double {
        let count = (handBacks[runID] ?? 0) + 1
        handBacks[runID] = count
        return Self.delay(afterHandBacks: count)
    }

    /// The run's records were read: its next hand-back, if any, starts from the first delay again.
    mutating func readRecords(of runID: String) {
        handBacks[runID] = nil
    }

    /// The delay after the `count`th hand-back in a row (1 for the first).
    static func delay(afterHandBacks count: Int) -> Double {
        var delay = firstDelay
        for _ in 1..<max(count, 1) {
            delay *= 2
            if delay >= longestDelay { return longestDelay }
        }
        return delay
    }
}
