import MatterFlow
import MatterFlowJSON

/// What a fixture scripts for calls of a custom operation (one declared by an operation catalog file): the
/// simulated home implements none, so each call answers as the fixture says, or `notSupported` when no rule gives
/// it a result or an error.
///
/// Rules are written as `faults` entries naming the operation; besides `fail`, `hang` and `delaySeconds`, a rule
/// may give the call's `result`. Every rule matching a call applies in order: delays add up, and the first
/// `result`, `fail` or `hang` ends the call.
public struct CustomOperationRule: Sendable, Hashable {
    /// What happens to a matching call.
    public enum Effect: Sendable, Hashable {
        /// The call answers with this result (an object of the declared result shape).
        case result(JSONValue)
        /// The call fails with this error.
        case fail(FlowError)
        /// The call never answers: it ends at the action's timeout or when the run is cancelled.
        case hang
        /// The call answers this much later (on the run's virtual clock), then the next matching rule decides.
        case delay(Duration)
    }

    /// The custom operation's name.
    public var operation: String
    /// The attempts the rule applies to, 1-based, counted per operation over the run.
    public var attempts: ClosedRange<Int>
    /// What happens to a matching call.
    public var effect: Effect

    /// A rule for calls of `operation` whose attempt number lies in `attempts` (every attempt by default).
    public init(_ operation: String, attempts: ClosedRange<Int> = 1...Int.max, _ effect: Effect) {
        self.operation = operation
        self.attempts = attempts
        self.effect = effect
    }

    /// The indices of the rules that apply to call number `attempt` of `operation`, in order, up to the first that
    /// ends it.
    static func applying(_ rules: [CustomOperationRule], operation: String, attempt: Int) -> [Int] {
        var applying: [Int] = []
        for (index, rule) in rules.enumerated() where rule.operation == operation && rule.attempts.contains(attempt) {
            applying.append(index)
            if case .delay = rule.effect { continue }
            break
        }
        return applying
    }
}
