import MatterFlowJSON

/// Checks every `${...}` reference statically: inputs must be declared, variables bound by some state (and, on
/// every path to the reader, or a warning says which may be unbound), fields must exist in the value's shape,
/// and `${error}` is only read where an error or cancel edge leads.
struct ReferenceChecker {
    typealias Code = WorkflowDiagnosticCode
    let workflow: Workflow
    let catalog: OperationCatalog
    let collector: DiagnosticCollector

    /// The pseudo-variable bound along error and cancel edges.
    private static let errorBinding = "${error}"
    static let errorFields = ["code", "cause", "message", "state"]
    static let runFields = ["id", "workflow", "structureID"]

    func check() {
        let shapes = variableShapes()
        let edges = workflow.edges.filter { workflow.states[$0.to] != nil }
        var stateIndex: [String: Int] = [:]
        for name in workflow.stateOrder where workflow.states[name] != nil && stateIndex[name] == nil {
            stateIndex[name] = stateIndex.count
        }
        let must = flow(intersect: true, edges, stateIndex: stateIndex)
        let may = flow(intersect: false, edges, stateIndex: stateIndex)
        for name in workflow.stateOrder {
            guard let state = workflow.states[name], let mustIn = must.bound(at: name), let mayIn = may.bound(at: name) else { continue }
            for (pointer, template, tolerant) in Self.templates(of: state) {
                for reference in template.references {
                    check(reference, at: pointer, shapes: shapes, must: tolerant ? mayIn : mustIn, may: mayIn)
                }
            }
        }
    }

    private func check(_ reference: Reference, at pointer: String, shapes: [String: ValueShape], must: BindingFlow.Bound, may: BindingFlow.Bound) {
        let head = reference.head
        switch reference.root {
        case .input:
            guard let head, let input = workflow.input(named: head) else {
                let names = workflow.inputs.map(\.name)
                collector.error(
                    Code.undefinedInput, at: pointer,
                    "${\(reference)} names input \"\(head ?? "")\", which is not declared\(SpellingSuggestion.hint(for: head ?? "", among: names)); declare it under \"inputs\"")
                return
            }
            checkPath(reference, from: input.type == .object ? .any : input.type.shape, at: pointer)
        case .vars:
            guard let head, let shape = shapes[head] else {
                collector.error(
                    Code.undefinedVariable, at: pointer,
                    "${\(reference)} reads variable \"\(head ?? "")\", which no state binds\(SpellingSuggestion.hint(for: head ?? "", among: shapes.keys)); bind it with \"result\" or an assign state")
                return
            }
            if !may.contains(head) {
                collector.error(
                    Code.undefinedVariable, at: pointer,
                    "${\(reference)} is read before any state on the way here binds \"\(head)\"")
            } else if !must.contains(head) {
                collector.warning(
                    Code.possiblyUnboundVariable, at: pointer,
                    "\"\(head)\" is not bound on every path to this state (for example, after an error); a run taking such a path fails with unresolvedReference")
            }
            checkPath(reference, from: shape, at: pointer)
        case .error:
            if let head, !Self.errorFields.contains(head) {
                collector.error(
                    Code.unknownField, at: pointer,
                    "an error has no field \"\(head)\"; use \(Self.errorFields.joined(separator: ", "))")
            } else if reference.path.count > 1 {
                collector.error(Code.unknownField, at: pointer, "error fields are strings; ${\(reference)} reads inside one")
            }
            if !may.contains(Self.errorBinding) {
                collector.error(
                    Code.errorOutsideHandler, at: pointer,
                    "${\(reference)} is read in a state that no error or cancel edge leads to, so there is never an error to read")
            } else if !must.contains(Self.errorBinding) {
                collector.warning(
                    Code.possiblyUnboundVariable, at: pointer,
                    "${\(reference)} may have no error to read: some path reaches this state without an error")
            }
        case .run:
            if let head, !Self.runFields.contains(head) {
                collector.error(
                    Code.unknownField, at: pointer, "run has no field \"\(head)\"; use \(Self.runFields.joined(separator: ", "))")
            }
        }
    }

    private func checkPath(_ reference: Reference, from shape: ValueShape, at pointer: String) {
        var current = shape
        for segment in reference.path.dropFirst() {
            let next: ValueShape?
            switch segment {
            case .member(let name): next = current.member(name)
            case .index: next = current.element
            }
            guard let next else {
                var hint = ""
                if case .object(let fields) = current, case .member(let name) = segment {
                    hint = SpellingSuggestion.hint(for: name, among: fields.map(\.name))
                        + " (fields: \(fields.map(\.name).joined(separator: ", ")))"
                }
                collector.error(Code.unknownField, at: pointer, "${\(reference)} reads into \(current), which has no such part\(hint)")
                return
            }
            current = next
        }
    }

    /// The shape each variable may hold (`any` when states bind it differently).
    private func variableShapes() -> [String: ValueShape] {
        var shapes: [String: ValueShape] = [:]
        func bind(_ name: String, _ shape: ValueShape) {
            if let existing = shapes[name], existing != shape { shapes[name] = .any } else { shapes[name] = shape }
        }
        for state in workflow.states.values {
            switch state.kind {
            case .action(let action):
                if let result = action.step.result { bind(result, catalog[action.operation]?.result ?? .any) }
            case .workflow(let subworkflow):
                if let result = subworkflow.step.result { bind(result, .any) }
            case .assign(let assign):
                for (name, value) in assign.assignments { bind(name, value.literalValue.map(Self.shape(of:)) ?? .any) }
            case .wait(let wait):
                if let result = wait.result { bind(result, catalog.event(named: wait.event)?.payload ?? .any) }
            case .choice, .succeed, .fail:
                break
            }
        }
        return shapes
    }

    private static func shape(of value: JSONValue) -> ValueShape {
        switch value {
        case .string: .string
        case .int: .integer
        case .double: .number
        case .bool: .boolean
        case .array, .object, .null: .any
        }
    }

    /// What an edge binds: on every path it is taken (`mayOnly` false), or on some (true). A cancelled step whose
    /// hub call still succeeded keeps its result, so a cancel edge may bind the state's result variable.
    private static func bindings(of state: WorkflowState, along edge: WorkflowEdge, mayOnly: Bool) -> [String] {
        switch edge.kind {
        case .error: return [errorBinding]
        case .cancel:
            guard mayOnly else { return [errorBinding] }
            switch state.kind {
            case .action(let action): return [errorBinding] + (action.step.result.map { [$0] } ?? [])
            case .workflow(let subworkflow): return [errorBinding] + (subworkflow.step.result.map { [$0] } ?? [])
            case .choice, .assign, .wait, .succeed, .fail: return [errorBinding]
            }
        case .event, .eventOtherwise:
            if case .wait(let wait) = state.kind, let result = wait.result { return [result] }
            return []
        case .choice, .choiceDefault, .timeout: return []
        case .next:
            switch state.kind {
            case .action(let action): return action.step.result.map { [$0] } ?? []
            case .workflow(let subworkflow): return subworkflow.step.result.map { [$0] } ?? []
            case .assign(let assign): return assign.assignments.map(\.name)
            case .choice, .wait, .succeed, .fail: return []
            }
        }
    }

    /// Variables bound on entry to each reachable state: on every path (`intersect`) or on some path.
    /// `edges` are the workflow's edges to defined states.
    private func flow(intersect: Bool, _ edges: [WorkflowEdge], stateIndex: [String: Int]) -> BindingFlow {
        // What each edge binds does not change from pass to pass.
        let bindings = edges.map { edge in
            workflow.states[edge.from].map { Self.bindings(of: $0, along: edge, mayOnly: !intersect) }
        }
        return BindingFlow(workflow: workflow, stateIndex: stateIndex, edges: edges, bindings: bindings, intersect: intersect)
    }

    /// Every template of a state with the pointer of the member that holds it, and whether it is read where an
    /// unbound value is expected (`exists`, `isEmpty`), so a maybe-unbound variable there is no warning.
    static func templates(of state: WorkflowState) -> [(String, Template, Bool)] {
        let base = state.pointer
        func named(_ list: [(name: String, value: Template)], _ member: String) -> [(String, Template, Bool)] {
            list.map { (JSONPointer.appending($0.name, to: base + member), $0.value, false) }
        }
        func conditionTemplates(_ condition: Condition, _ pointer: String) -> [(String, Template, Bool)] {
            switch condition {
            case .exists(let template), .isEmpty(let template): return [(pointer, template, true)]
            case .compare(_, let lhs, let rhs), .contains(let lhs, let rhs): return [(pointer, lhs, false), (pointer, rhs, false)]
            case .and(let conditions), .or(let conditions): return conditions.flatMap { conditionTemplates($0, pointer) }
            case .not(let inner): return conditionTemplates(inner, pointer)
            }
        }
        switch state.kind {
        case .action(let action): return named(action.arguments, "/arguments")
        case .workflow(let subworkflow): return named(subworkflow.inputs, "/inputs")
        case .choice(let choice):
            return choice.branches.enumerated().flatMap { index, branch in
                conditionTemplates(branch.condition, "\(base)/choices/\(index)/if")
            }
        case .assign(let assign):
            return named(assign.assignments, "/set") + (assign.warning.map { [(base + "/warning", $0, false)] } ?? [])
        case .wait(let wait): return named(wait.match, "/match")
        case .succeed(let succeed): return succeed.output.map { [(base + "/output", $0, false)] } ?? []
        case .fail(let fail):
            switch fail.raise {
            case .rethrow(let error): return [(base + "/error", error, false)]
            case .new(let code, let cause, let message):
                return [(base + "/code", code, false), (base + "/message", message, false)]
                    + (cause.map { [(base + "/cause", $0, false)] } ?? [])
            }
        }
    }
}
