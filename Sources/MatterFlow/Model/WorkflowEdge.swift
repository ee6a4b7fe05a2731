/// A transition of the state machine, as drawn in graphs and counted in coverage.
public struct WorkflowEdge: Sendable, Hashable {
    /// What takes the edge.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// The state succeeded.
        case next
        /// Choice branch number `n` (0-based) matched.
        case choice(Int)
        /// No choice branch matched.
        case choiceDefault
        /// Error route number `n` (0-based) matched the error.
        case error(Int, [String])
        /// The run was cancelled while in the state.
        case cancel
        /// A wait state received an event with this value.
        case event(String)
        /// A wait state received an event whose value has no branch of its own.
        case eventOtherwise
        /// A wait state's timeout passed.
        case timeout

        /// The edge's label in graphs and printed paths: `next`, `choice[N]`, `default`, `onError[N]` followed by
        /// the names the route matches joined by `|`, `cancel`, `event VALUE`, `event otherwise`, `timeout`.
        public var description: String {
            switch self {
            case .next: "next"
            case .choice(let index): "choice[\(index)]"
            case .choiceDefault: "default"
            case .error(let index, let names): "onError[\(index)] \(names.joined(separator: "|"))"
            case .cancel: "cancel"
            case .event(let value): "event \(value)"
            case .eventOtherwise: "event otherwise"
            case .timeout: "timeout"
            }
        }
    }

    /// The state the edge leaves.
    public var from: String
    /// The state the edge leads to.
    public var to: String
    /// What takes the edge.
    public var kind: Kind
    /// JSON pointer of the member that declares the edge.
    public var pointer: String
}
