/// Pictures of the state machines in code, generated from their transition tables (never drawn by hand).
public enum MachineGraph {
    /// A machine the CLI can draw: `matterflow graph --machine NAME`.
    public struct Machine: Sendable {
        /// The name `matterflow graph --machine` takes (`commissioning-session`, `epskc`, `thread-membership`, `run`).
        public var name: String
        /// States drawn as holding something (an open session, an active key).
        public var activeStates: Set<String>
        private let derivedTable: @Sendable () -> StateMachineDescription

        /// The machine's transition table, derived from its code the first time it is asked for (the run machine's
        /// by driving specimen workflows through it): naming the machines, as every `matterflow` command's usage
        /// text does, derives none.
        public var table: StateMachineDescription { derivedTable() }

        init(name: String, table: @escaping @Sendable @autoclosure () -> StateMachineDescription, activeStates: Set<String>) {
            self.name = name
            self.activeStates = activeStates
            derivedTable = table
        }
    }

    /// Every machine with a transition table, by CLI name.
    public static var machines: [Machine] {
        [
            Machine(
                name: "commissioning-session", table: CommissioningSession.transitionTable,
                activeStates: CommissioningSession.activePhases),
            Machine(
                name: "epskc", table: EpskcSession.transitionTable,
                activeStates: [EpskcSession.Phase.started, .connected, .accepted].map(\.rawValue).reduce(into: []) { $0.insert($1) }),
            Machine(name: "thread-membership", table: ThreadMembership.transitionTable, activeStates: []),
            Machine(
                name: "run", table: RunMachine.transitionTable,
                activeStates: Set(["checkingGuard", "calling"].flatMap { [$0, $0 + " (cancel path)"] })),
        ]
    }

    /// The machine with a CLI name.
    public static func machine(named name: String) -> Machine? {
        machines.first { $0.name == name }
    }

    /// The graph of a transition table: a node per state, an edge per pair of states an event moves between,
    /// labelled with the events (and their conditions and outputs); refused events are left out.
    public static func build(_ table: StateMachineDescription, activeStates: Set<String> = []) -> StateGraph {
        let nodes = table.states.map { state in
            StateGraph.Node(id: state, lines: [state], shape: activeStates.contains(state) ? .activeState : .state)
        }
        var labels: [(from: String, to: String, lines: [String])] = []
        for transition in table.moves {
            guard case .moves(let to, let output) = transition.outcome else { continue }
            var text = transition.event
            if let condition = transition.condition { text += " [\(condition)]" }
            if let output { text += " / \(output)" }
            if let index = labels.firstIndex(where: { $0.from == transition.from && $0.to == to }) {
                labels[index].lines.append(text)
            } else {
                labels.append((transition.from, to, [text]))
            }
        }
        let edges = labels.map { StateGraph.Edge(from: $0.from, to: $0.to, label: $0.lines.joined(separator: "\n")) }
        return StateGraph(name: table.name, starts: table.initialStates, nodes: nodes, edges: edges)
    }
}
