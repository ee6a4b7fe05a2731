import MatterFlowJSON

/// Builds the picture of a workflow: a node per state (its operation, sub-workflow, event or error, and its
/// guards), an edge per transition labelled by its kind (`next`, the error names of a route, a choice's
/// condition, `default`, `event VALUE`, `timeout N s`, `cancel`). With `expand`, each sub-workflow is drawn
/// inside its state as a cluster: edges into the state enter the child's start, the child's succeed states lead
/// to the state's `next`, its fail states to each error route, and its cancel path's ends to the parent's cancel
/// state. States only the cancel path reaches get no cancel edge: that path is shielded from cancels.
///
/// An expanded picture draws a sub-workflow once per state that runs it, at every level, so a tree whose levels
/// run the next twice has exponentially many states to draw: past ``maximumExpandedStates`` it is refused.
///
/// A workflow with errors (``WorkflowLoader/Outcome/decoded``) is drawn as written, with nothing made up: a
/// transition to a state it does not define is left out, as is the start arrow when its start is not defined, and
/// a sub-workflow whose start is not defined is drawn collapsed, as its state.
public enum WorkflowGraph {
    /// At most this many states are drawn with `expand` (the states a collapsed picture draws are never limited).
    public static let maximumExpandedStates = 10_000

    /// The picture of a workflow; with `expand`, its sub-workflows are drawn inside the states that run them.
    /// - Throws: ``DiagnosticsError`` (`graphTooLarge`) when the expanded picture would draw more than
    ///   ``maximumExpandedStates`` states.
    public static func build(_ workflow: Workflow, expand: Bool = false) throws(DiagnosticsError) -> StateGraph {
        if expand {
            var counted: [String: Int] = [:]
            let count = expandedStates(workflow, counted: &counted)
            guard count <= maximumExpandedStates else {
                throw DiagnosticsError([Diagnostic(
                    severity: .error, code: GraphDiagnosticCode.graphTooLarge,
                    message: "expanded, this workflow draws \(count > maximumExpandedStates ? "more than \(maximumExpandedStates)" : "\(count)") states (its sub-workflows are drawn once per state that runs them, at every level), more than the \(maximumExpandedStates) an expanded graph may have; draw it without --expand, or draw its sub-workflows one file at a time",
                    file: workflow.file)])
            }
        }
        var builder = Builder(expand: expand)
        let clusters = builder.add(workflow, prefix: "")
        let starts = workflow.states[workflow.start] == nil ? [] : [builder.entry(workflow, prefix: "", state: workflow.start)]
        return StateGraph(
            name: workflow.name, starts: starts, nodes: builder.nodes,
            edges: builder.edges, clusters: clusters)
    }

    /// How many states the expanded picture of a workflow draws, counted once per file and capped just past
    /// ``maximumExpandedStates`` (the exact number can exceed any integer).
    private static func expandedStates(_ workflow: Workflow, counted: inout [String: Int]) -> Int {
        if let known = counted[workflow.file] { return known }
        var total = 0
        for state in workflow.statesInOrder {
            if case .workflow(let subworkflow) = state.kind, let child = workflow.subworkflows[subworkflow.path],
                child.states[child.start] != nil
            {
                total += expandedStates(child, counted: &counted)
            } else {
                total += 1
            }
            total = min(total, maximumExpandedStates + 1)
        }
        counted[workflow.file] = total
        return total
    }

    private struct Builder {
        let expand: Bool
        var nodes: [StateGraph.Node] = []
        var edges: [StateGraph.Edge] = []

        /// The child of a state that is drawn expanded: not one without its start, whose entry is no state.
        func expandedChild(_ workflow: Workflow, _ state: String) -> Workflow? {
            guard expand, case .workflow(let subworkflow)? = workflow.states[state]?.kind,
                let child = workflow.subworkflows[subworkflow.path], child.states[child.start] != nil
            else { return nil }
            return child
        }

        /// The node an edge into `state` ends at: the state, or the start of its expanded child.
        func entry(_ workflow: Workflow, prefix: String, state: String) -> String {
            guard let child = expandedChild(workflow, state) else { return prefix + state }
            return entry(child, prefix: prefix + state + "/", state: child.start)
        }

        mutating func add(_ workflow: Workflow, prefix: String) -> [StateGraph.Cluster] {
            var clusters: [StateGraph.Cluster] = []
            let model = workflow.model
            for state in model.states {
                let name = state.name
                if let child = expandedChild(workflow, name), case .workflow(let subworkflow) = state.kind {
                    let before = nodes.count
                    let nested = add(child, prefix: prefix + name + "/")
                    clusters.append(StateGraph.Cluster(
                        id: "cluster_" + prefix + name, label: ([name + ": " + subworkflow.path] + Self.guardLine(subworkflow.step.guards)).joined(separator: "\n"),
                        nodeIDs: nodes[before...].map(\.id).filter { id in !nested.contains { $0.contains(node: id) } },
                        clusters: nested))
                } else {
                    nodes.append(StateGraph.Node(id: prefix + name, lines: Self.lines(state), shape: Self.shape(state)))
                }
            }
            // The cancel path is shielded from cancels, so states only it reaches have no cancel edge to draw.
            let normal = model.reachable(includingCancel: false)
            for edge in model.edges where edge.to != nil {
                if edge.kind.isCancel, !normal[edge.from] { continue }
                addEdge(model.workflowEdge(edge), in: workflow, prefix: prefix)
            }
            return clusters
        }

        private mutating func addEdge(_ edge: WorkflowEdge, in workflow: Workflow, prefix: String) {
            let label = Self.label(edge, in: workflow)
            let style: StateGraph.EdgeStyle = switch edge.kind {
            case .error: .error
            case .cancel: .cancel
            case .next, .choice, .choiceDefault, .event, .eventOtherwise, .timeout: .normal
            }
            let target = entry(workflow, prefix: prefix, state: edge.to)
            let toCluster = expandedChild(workflow, edge.to).map { _ in "cluster_" + prefix + edge.to }
            guard let child = expandedChild(workflow, edge.from) else {
                edges.append(StateGraph.Edge(
                    from: prefix + edge.from, to: target, label: label, style: style, kind: edge.kind.description,
                    toCluster: toCluster))
                return
            }
            // From an expanded sub-workflow: from the child's ends that lead here.
            let childPrefix = prefix + edge.from + "/"
            let normal = child.reachableStates(includingCancel: false)
            let sources = child.stateOrder.filter { name in
                guard let state = child.states[name] else { return false }
                switch (edge.kind, state.kind) {
                case (.next, .succeed): return normal.contains(name)
                case (.error, .fail): return normal.contains(name)
                case (.cancel, .succeed), (.cancel, .fail): return child.onCancel != nil && !normal.contains(name)
                default: return false
                }
            }
            if sources.isEmpty {
                edges.append(StateGraph.Edge(
                    from: entry(child, prefix: childPrefix, state: child.start), to: target, label: label, style: style,
                    kind: edge.kind.description, fromCluster: "cluster_" + prefix + edge.from, toCluster: toCluster))
            }
            for source in sources {
                edges.append(StateGraph.Edge(
                    from: childPrefix + source, to: target, label: label, style: style, kind: edge.kind.description,
                    toCluster: toCluster))
            }
        }

        static func label(_ edge: WorkflowEdge, in workflow: Workflow) -> String {
            switch edge.kind {
            case .next: return "next"
            case .choice(let index):
                guard case .choice(let choice)? = workflow.states[edge.from]?.kind, index < choice.branches.count else {
                    return edge.kind.description
                }
                return choice.branches[index].condition.summary
            case .choiceDefault: return "default"
            case .error(_, let names): return "error: " + names.joined(separator: ", ")
            case .cancel: return "cancel"
            case .event(let value): return "event " + value
            case .eventOtherwise: return "event otherwise"
            case .timeout:
                switch workflow.states[edge.from]?.kind {
                case .wait(let wait)?: return "timeout " + TimeBudget.format(wait.timeoutSeconds)
                case .ask(let ask)?: return "no answer " + TimeBudget.format(ask.timeoutSeconds)
                default: return "timeout"
                }
            }
        }

        static func guardLine(_ guards: [Guard]) -> [String] {
            guards.isEmpty ? [] : ["guards: " + guards.map(\.name).joined(separator: ", ")]
        }

        static func retryLine(_ retry: [Retrier]) -> [String] {
            let parts = retry.filter { $0.maxRetries > 0 }.map { "\($0.errors.joined(separator: "|")) ×\($0.maxRetries)" }
            return parts.isEmpty ? [] : ["retry: " + parts.joined(separator: "; ")]
        }

        static func lines(_ state: WorkflowState) -> [String] {
            switch state.kind {
            case .action(let action):
                return [state.name, action.operation] + guardLine(action.step.guards) + retryLine(action.step.retry)
            case .workflow(let subworkflow):
                if let map = subworkflow.map {
                    var each = "for each \(map.elementName) of \(map.items.summary) (≤ \(map.maxItems)"
                    if map.concurrency > 1 { each += ", \(map.concurrency) at a time" }
                    if map.tolerateFailures > 0 { each += ", tolerates \(map.tolerateFailures) failed" }
                    return [state.name, each + ")", "runs " + subworkflow.path]
                }
                if let repeating = subworkflow.repeating {
                    let every = repeating.delaySeconds > 0 ? ", every " + TimeBudget.format(repeating.delaySeconds) : ""
                    return [state.name, "runs " + subworkflow.path, "until \(repeating.until.summary) (≤ \(repeating.maxIterations) times\(every))"]
                }
                return [state.name, "runs " + subworkflow.path] + guardLine(subworkflow.step.guards) + retryLine(subworkflow.step.retry)
            case .choice: return [state.name]
            case .assign(let assign):
                let set = assign.assignments.isEmpty ? [] : ["set " + assign.assignments.map(\.name).joined(separator: ", ")]
                return [state.name] + set + (assign.warning == nil ? [] : ["warning"]) + (assign.show == nil ? [] : ["show"])
            case .wait(let wait): return [state.name, "wait for " + wait.event]
            case .ask(let ask):
                let binding = ask.result.map { ["→ " + $0] } ?? []
                return [state.name, "ask " + ask.question + " (" + ask.answer.kindName + ")"] + binding
            case .delay(let delay):
                switch delay.length {
                case .seconds(let seconds): return [state.name, "delay " + TimeBudget.format(seconds)]
                case .until(let moment, let maxSeconds):
                    return [state.name, "delay until " + moment.summary, "at most " + TimeBudget.format(maxSeconds)]
                }
            case .succeed: return [state.name]
            case .fail(let fail):
                switch fail.raise {
                case .rethrow(let template): return [state.name, "fail " + template.summary]
                case .new(let code, _, _): return [state.name, "fail " + code.summary]
                }
            }
        }

        static func shape(_ state: WorkflowState) -> StateGraph.Shape {
            switch state.kind {
            case .action: .action
            case .workflow(let subworkflow): subworkflow.map != nil ? .map : subworkflow.repeating != nil ? .repeat : .workflow
            case .choice: .choice
            case .assign: .assign
            case .wait: .wait
            case .ask: .ask
            case .delay: .delay
            case .succeed: .succeed
            case .fail: .fail
            }
        }
    }
}

extension StateGraph.Cluster {
    func contains(node id: String) -> Bool {
        nodeIDs.contains(id) || clusters.contains { $0.contains(node: id) }
    }
}
