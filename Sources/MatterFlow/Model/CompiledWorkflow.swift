import MatterFlowJSON
import Synchronization

/// A workflow compiled once, when the ``Workflow`` is made: its definition, its states numbered, and every
/// transition in one edge list. The validator, the verifier, `graph` and fixture coverage all read this one
/// model (``Workflow/edges`` is a view of ``edges``), and nothing changes it after it is built.
///
/// States are numbered in `stateOrder`'s order, each once; a state the order does not list (only possible in a
/// workflow built in code) comes after, sorted by name. Pointers are spelled out only for findings and pictures
/// (``pointer(of:)``): the analyses follow numbers.
final class CompiledWorkflow: Sendable {
    /// One transition: from a numbered state, to a numbered state when the target is defined.
    struct Edge: Sendable {
        /// The number of the state it leaves.
        let from: Int
        /// The number of the state it leads to; nil when no state has that name.
        let to: Int?
        /// What takes the edge.
        let kind: WorkflowEdge.Kind
        /// The name of the state it leads to, as written.
        let target: String
    }

    /// What the workflow was made from.
    let definition: Workflow.Definition
    /// The states by number.
    let states: [WorkflowState]
    /// The names of the states by number (``Workflow/stateOrder``).
    let stateNames: [String]
    /// The number of each defined state.
    let numbers: [String: Int]
    /// Every edge, in document order: each state's own, then its cancel edge (non-terminal states, when the
    /// workflow has a cancel path).
    let edges: [Edge]
    /// The edges leaving state `s` are `edges[leaving[s]]`.
    let leaving: [Range<Int>]
    /// The start state's number, when it is defined.
    let start: Int?
    /// The cancel path's first state, when the workflow has one and it is defined.
    let onCancel: Int?
    /// Whether some state could not be decoded (its transitions are unknown).
    let hasPlaceholder: Bool
    /// Whether this workflow or a sub-workflow has a wait state (and so needs the hub's events).
    let waitsForEvents: Bool
    /// Where top-level runs of this workflow start, with the run model of the catalog they last ran with
    /// (``topPlace(catalog:)``).
    let runPlace = Mutex<LevelPlace?>(nil)
    /// Whether some state of this workflow or a sub-workflow may fail with `valueTooLarge`, once the error-handling
    /// check has worked it out (``ErrorHandlingCheck``): every parent including this workflow reads it from here.
    let holdsValueBuilding = Mutex<Bool?>(nil)

    init(_ definition: Workflow.Definition) {
        self.definition = definition
        let byName = definition.states
        var states: [WorkflowState] = []
        states.reserveCapacity(byName.count)
        var numbers = [String: Int](minimumCapacity: byName.count)
        // Whether every name of `stateOrder` numbered a state of its own (none repeated or undefined).
        var listedOnce = true
        for name in definition.stateOrder {
            guard numbers[name] == nil, let state = byName[name] else {
                listedOnce = false
                continue
            }
            numbers[name] = states.count
            states.append(state)
        }
        let unlisted = states.count != byName.count
        if unlisted {
            for name in byName.keys.sorted() where numbers[name] == nil {
                guard let state = byName[name] else { continue }
                numbers[name] = states.count
                states.append(state)
            }
        }
        let onCancelName = definition.onCancel
        let onCancel = onCancelName.flatMap { numbers[$0] }
        var edges: [Edge] = []
        edges.reserveCapacity(states.count * 2)
        var leaving: [Range<Int>] = []
        leaving.reserveCapacity(states.count)
        var waits = false
        for from in states.indices {
            let first = edges.count
            func add(_ target: String, _ kind: WorkflowEdge.Kind) {
                edges.append(Edge(from: from, to: numbers[target], kind: kind, target: target))
            }
            func addStep(_ step: StepBehavior) {
                add(step.next, .next)
                for index in step.onError.indices { add(step.onError[index].next, .error(index, step.onError[index].errors)) }
            }
            // Read in place: copying each state out would retain and release everything it holds.
            switch states[from].kind {
            case .action(let action): addStep(action.step)
            case .workflow(let subworkflow):
                addStep(subworkflow.step)
                waits = waits || definition.subworkflows[subworkflow.path]?.waitsForEvents == true
            case .choice(let choice):
                for index in choice.branches.indices { add(choice.branches[index].next, .choice(index)) }
                add(choice.defaultNext, .choiceDefault)
            case .assign(let assign): add(assign.next, .next)
            case .wait(let wait):
                waits = true
                for branch in wait.branches { add(branch.next, .event(branch.value)) }
                if let otherwise = wait.otherwise { add(otherwise, .eventOtherwise) }
                add(wait.onTimeout, .timeout)
            case .ask(let ask):
                add(ask.next, .next)
                add(ask.onTimeout, .timeout)
            case .delay(let delay):
                add(delay.next, .next)
                for index in delay.onError.indices { add(delay.onError[index].next, .error(index, delay.onError[index].errors)) }
            case .succeed, .fail: break
            }
            if let onCancelName, !states[from].isTerminal {
                edges.append(Edge(from: from, to: onCancel, kind: .cancel, target: onCancelName))
            }
            leaving.append(first..<edges.count)
        }
        self.states = states
        stateNames = listedOnce && !unlisted ? definition.stateOrder : states.map(\.name)
        self.numbers = numbers
        self.edges = edges
        self.leaving = leaving
        start = numbers[definition.start]
        self.onCancel = onCancel
        hasPlaceholder = states.indices.contains { states[$0].isPlaceholder }
        waitsForEvents = waits
    }

    /// The number of states.
    var count: Int { states.count }

    /// The name of state `number`.
    func name(_ number: Int) -> String { states[number].name }

    /// The JSON pointer of the member that declares an edge (``WorkflowEdge/pointer``).
    func pointer(of edge: Edge) -> String {
        let base = states[edge.from].pointer
        switch edge.kind {
        case .next: return base + "/next"
        case .choice(let index): return base + "/choices/\(index)/next"
        case .choiceDefault: return base + "/default"
        case .error(let index, _): return base + "/onError/\(index)/next"
        case .cancel: return "/onCancel"
        case .event(let value): return base + "/on/" + JSONPointer.appending(value, to: "").dropFirst()
        case .eventOtherwise: return base + "/otherwise"
        case .timeout: return base + "/onTimeout"
        }
    }

    /// An edge as the public API shows it, with state names and its pointer.
    func workflowEdge(_ edge: Edge) -> WorkflowEdge {
        WorkflowEdge(from: name(edge.from), to: edge.target, kind: edge.kind, pointer: pointer(of: edge))
    }

    /// The states reached from the start along defined transitions, with or without the cancel edges.
    func reachable(includingCancel: Bool) -> [Bool] {
        guard let start else { return [Bool](repeating: false, count: count) }
        var seen = [Bool](repeating: false, count: count)
        seen[start] = true
        var queue = [start]
        while let next = queue.popLast() {
            for edge in edges[leaving[next]] where includingCancel || !edge.kind.isCancel {
                guard let to = edge.to, !seen[to] else { continue }
                seen[to] = true
                queue.append(to)
            }
        }
        return seen
    }
}

extension WorkflowEdge.Kind {
    /// Whether this is a cancel edge (the workflow's, to its cancel path).
    var isCancel: Bool {
        if case .cancel = self { return true }
        return false
    }

    /// Whether the edge keeps the `${error}` bound where it starts (error routes and cancel edges bind their own).
    var carriesError: Bool {
        switch self {
        case .error, .cancel: false
        case .next, .choice, .choiceDefault, .event, .eventOtherwise, .timeout: true
        }
    }
}
