import MatterFlowJSON

/// What makes a sub-workflow state a `repeat` state: bounded polling. Its body (the state's sub-workflow) runs,
/// its output is bound to the state's `result`, and `until` is checked; while it does not hold, the state waits
/// `delaySeconds` on the run's clock and runs the body again, at most `maxIterations` times in all. Exhausting
/// them fails the state with `repeatExhausted`; a body that fails ends the state with the body's error.
public struct RepeatIteration: Sendable {
    /// Checked after each run of the body, with the body's output bound to the state's result variable.
    public var until: Condition
    /// How many times the body runs at most (1 to 1000): the verifier's bound.
    public var maxIterations: Int
    /// The wait between two runs of the body, on the run's clock (0 to one day).
    public var delaySeconds: Double

    /// Polling that runs the body until `until` holds, at most `maxIterations` times, `delaySeconds` apart (none by
    /// default).
    public init(until: Condition, maxIterations: Int, delaySeconds: Double = 0) {
        self.until = until
        self.maxIterations = maxIterations
        self.delaySeconds = delaySeconds
    }

    /// The range of `maxIterations`.
    public static let iterationLimit = NumberRange(integers: 1...1_000, unit: "iterations")
}
