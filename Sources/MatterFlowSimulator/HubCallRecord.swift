import MatterFlow

/// One call the simulated hub answered: which operation, for which structure, which attempt, when, and how it
/// ended. Records hold no arguments, so no secret (the onboarding payload) ever appears in them.
public struct HubCallRecord: Sendable, Hashable, CustomStringConvertible {
    /// How a call ended.
    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        case succeeded
        /// The call threw; cancellation is recorded as `cancelled` / `runCancelled`.
        case failed(code: ErrorCode, cause: ErrorCause)

        /// `succeeded` or `failed code (cause)`.
        public var description: String {
            switch self {
            case .succeeded: "succeeded"
            case .failed(let code, let cause): "failed \(code.rawValue) (\(cause.rawValue))"
            }
        }

        /// The error cause, when the call failed.
        public var cause: ErrorCause? {
            if case .failed(_, let cause) = self { return cause }
            return nil
        }
    }

    /// The operation called.
    public var operation: SimulatedOperation
    /// The structure it was called for.
    public var structure: StructureID
    /// The call's attempt number for this structure and operation, from 1.
    public var attempt: Int
    /// When the call started, on the hub's clock.
    public var startedAt: Duration
    /// When the call ended, on the hub's clock.
    public var finishedAt: Duration
    /// How the call ended.
    public var outcome: Outcome
    /// Whether a fault rule matched the call. (For `commissionDevice`, faults act once commissioning has begun,
    /// so a call refused before that, for example out of order, is not changed by the rule.)
    public var faultInjected: Bool

    /// A record of one call.
    public init(
        operation: SimulatedOperation, structure: StructureID, attempt: Int, startedAt: Duration,
        finishedAt: Duration, outcome: Outcome, faultInjected: Bool
    ) {
        self.operation = operation
        self.structure = structure
        self.attempt = attempt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.outcome = outcome
        self.faultInjected = faultInjected
    }

    /// `prepareCommissioning #1 on maple-street: succeeded`.
    public var description: String {
        "\(operation.rawValue) #\(attempt) on \(structure): \(outcome)"
    }
}
