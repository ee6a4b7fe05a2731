import MatterFlowJSON

/// A domain state machine described as data: its states, its events and what every event does in every state.
///
/// The tables of ``EpskcSession`` and ``ThreadMembership`` are not written by hand: they are produced by
/// applying each event to a session in each state through the machines' own methods, so a picture drawn from
/// them (a graph, a documentation table) cannot drift from the code.
public struct StateMachineDescription: Sendable, Hashable {
    /// What an event does in a state.
    public enum Outcome: Sendable, Hashable, CustomStringConvertible {
        /// The machine moves to `state` (possibly the same one); `output` names what the move reports, if
        /// anything (for ePSKc, the deactivation reason; for Thread membership, the operation status).
        case moves(to: String, output: String?)
        /// The event is not allowed: the machine stays where it is and throws a ``FlowError`` with this cause.
        case refused(ErrorCause)

        /// `→ started`, `→ stopped / expired`, or `refused: epskcNotActive`.
        public var description: String {
            switch self {
            case .moves(let state, let output): "→ \(state)" + (output.map { " / \($0)" } ?? "")
            case .refused(let cause): "refused: \(cause.rawValue)"
            }
        }
    }

    /// One row of the table: an event in a state, under a condition when the outcome depends on more than the
    /// state (the tenth wrong key, a dataset for the same network).
    public struct Transition: Sendable, Hashable {
        /// The state the event happens in.
        public var from: String
        /// The event.
        public var event: String
        /// The condition that selects this row among rows with the same state and event; nil when there is one.
        public var condition: String?
        /// What happens.
        public var outcome: Outcome

        /// A row of the table.
        public init(from: String, event: String, condition: String? = nil, outcome: Outcome) {
            self.from = from
            self.event = event
            self.condition = condition
            self.outcome = outcome
        }
    }

    /// The machine's name, for titles.
    public var name: String
    /// Every state, in declaration order.
    public var states: [String]
    /// The states a machine may start in.
    public var initialStates: [String]
    /// Every event, in declaration order.
    public var events: [String]
    /// Every (state, event) pair, refused ones included, in state then event order.
    public var transitions: [Transition]

    /// A description of a machine.
    public init(name: String, states: [String], initialStates: [String], events: [String], transitions: [Transition]) {
        self.name = name
        self.states = states
        self.initialStates = initialStates
        self.events = events
        self.transitions = transitions
    }

    /// The rows for one state and event.
    public func transitions(from state: String, on event: String) -> [Transition] {
        transitions.filter { $0.from == state && $0.event == event }
    }

    /// The rows that move the machine (the edges of its graph).
    public var moves: [Transition] {
        transitions.filter { if case .moves = $0.outcome { true } else { false } }
    }

    /// The table as JSON, for tools that draw it.
    public var jsonValue: JSONValue {
        [
            "name": .string(name),
            "states": .array(states.map(JSONValue.string)),
            "initialStates": .array(initialStates.map(JSONValue.string)),
            "events": .array(events.map(JSONValue.string)),
            "transitions": .array(transitions.map { transition in
                var object = JSONObject()
                object["from"] = .string(transition.from)
                object["event"] = .string(transition.event)
                object["condition"] = transition.condition.map(JSONValue.string) ?? .null
                switch transition.outcome {
                case .moves(let state, let output):
                    object["to"] = .string(state)
                    object["output"] = output.map(JSONValue.string) ?? .null
                case .refused(let cause):
                    object["refused"] = .string(cause.rawValue)
                }
                return .object(object)
            }),
        ]
    }
}
