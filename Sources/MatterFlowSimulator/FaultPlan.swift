import MatterFlow

/// One scripted misbehaviour of the simulated hub: for an operation and a range of attempts, fail with an error,
/// hang until cancelled, answer late, or act and then fail.
///
/// Attempts are numbered from 1 per structure and operation, counting every call since the hub was created or its
/// history was reset (``SimulatedHub/resetCallHistory(structure:)``), whether or not earlier calls failed.
public struct FaultRule: Sendable, Hashable {
    /// What happens to a matching call.
    public enum Fault: Sendable, Hashable {
        /// The call throws this error instead of doing its work. For `commissionDevice` the error is raised while
        /// commissioning, so the session returns to `requested` as after a real failure. To stay faithful to the
        /// hub contract, use a cause the operation declares (``SimulatedOperation/descriptor``), `injectedFault`,
        /// or one of ``OperationDescriptor/engineCauses``.
        case fail(FlowError)
        /// The call never answers: it waits on the hub's clock until its task is cancelled (by a timeout or a
        /// cancelled run), then throws `CancellationError`.
        case hang
        /// The call answers this much later (on the hub's clock), then behaves normally.
        case delay(Duration)
        /// The call does its work, then throws this error, as when the hub's answer is lost or cannot be read: the
        /// hub has acted and the run cannot know it (a session opened, a key activated, a device commissioned).
        case failAfterActing(FlowError)
    }

    /// The operation whose calls the rule affects.
    public var operation: SimulatedOperation
    /// The attempts the rule applies to, 1-based: `1...2` for the first two calls, `3...3` for the third only.
    /// With ``element``, the element's own calls of the operation are counted.
    public var attempts: ClosedRange<Int>
    /// Only calls made by this element of a concurrent map state (``HubCallContext/element``, `readDevices[1]`):
    /// its elements call in no fixed order, so counting the operation's calls over the run would not say which
    /// element a rule hits. Nil: any call.
    public var element: String?
    /// What happens to a matching call.
    public var fault: Fault

    /// A rule for some attempts of an operation (every attempt by default), optionally of one element only.
    public init(_ operation: SimulatedOperation, attempts: ClosedRange<Int> = 1...Int.max, element: String? = nil, _ fault: Fault) {
        self.operation = operation
        self.attempts = attempts
        self.element = element
        self.fault = fault
    }

    /// Attempts in `attempts` fail with `error`; later ones succeed (unless another rule says otherwise).
    public static func fail(
        _ operation: SimulatedOperation, attempts: ClosedRange<Int> = 1...Int.max, with error: FlowError
    ) -> FaultRule {
        FaultRule(operation, attempts: attempts, .fail(error))
    }

    /// Attempts in `attempts` hang until cancelled.
    public static func hang(_ operation: SimulatedOperation, attempts: ClosedRange<Int> = 1...Int.max) -> FaultRule {
        FaultRule(operation, attempts: attempts, .hang)
    }

    /// Attempts in `attempts` take `delay` longer.
    public static func delay(
        _ operation: SimulatedOperation, attempts: ClosedRange<Int> = 1...Int.max, by delay: Duration
    ) -> FaultRule {
        FaultRule(operation, attempts: attempts, .delay(delay))
    }

    /// Whether the rule applies to a call.
    public func applies(to operation: SimulatedOperation, attempt: Int, element: String? = nil, elementAttempt: Int = 0) -> Bool {
        guard self.operation == operation else { return false }
        guard let wanted = self.element else { return attempts.contains(attempt) }
        return wanted == element && attempts.contains(elementAttempt)
    }
}

/// The faults scripted for one structure, checked on every call.
///
/// Every rule matching a call applies, in order: delays add up, and the first `fail` or `hang` ends the call (so a
/// delay listed before a failure makes the failure late).
public struct FaultPlan: Sendable, Hashable {
    /// The rules, checked in order.
    public var rules: [FaultRule]

    /// A plan of rules (none by default).
    public init(_ rules: [FaultRule] = []) {
        self.rules = rules
    }

    /// The faults that apply to a call, in order, up to and including the first that ends it.
    public func faults(
        for operation: SimulatedOperation, attempt: Int, element: String? = nil, elementAttempt: Int = 0
    ) -> [FaultRule.Fault] {
        applyingRules(for: operation, attempt: attempt, element: element, elementAttempt: elementAttempt).map { rules[$0].fault }
    }

    /// The indices (in ``rules``) of the rules that apply to a call, in order, up to and including the first that
    /// ends it: a rule after that one matches the call but is not applied.
    public func applyingRules(
        for operation: SimulatedOperation, attempt: Int, element: String? = nil, elementAttempt: Int = 0
    ) -> [Int] {
        var applying: [Int] = []
        for (index, rule) in rules.enumerated()
        where rule.applies(to: operation, attempt: attempt, element: element, elementAttempt: elementAttempt) {
            applying.append(index)
            if case .delay = rule.fault { continue }
            break
        }
        return applying
    }

    /// Whether the plan scripts nothing.
    public var isEmpty: Bool { rules.isEmpty }
}
