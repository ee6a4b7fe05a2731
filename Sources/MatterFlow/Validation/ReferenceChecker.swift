import MatterFlowJSON

/// Checks every `${...}` reference statically: inputs must be declared, variables bound by some state (and, on
/// every path to the reader, or a warning says which may be unbound), fields must exist in the value's shape,
/// and `${error}` is only read where an error or cancel edge leads.
///
/// A class, so that the closures its walks pass around hold one reference to it rather than a copy of its fields.
final class ReferenceChecker {
    typealias Code = WorkflowDiagnosticCode
    let workflow: Workflow
    let model: CompiledWorkflow
    let catalog: OperationCatalog
    let collector: DiagnosticCollector
    /// Repeat states (by number) whose body can itself end with `repeatExhausted`
    /// (``selfExhaustingRepeats(of:model:context:)``): their route for it does not bind their result on every path.
    let selfExhausting: Set<Int>

    init(workflow: Workflow, model: CompiledWorkflow, catalog: OperationCatalog, collector: DiagnosticCollector, selfExhausting: Set<Int>) {
        self.workflow = workflow
        self.model = model
        self.catalog = catalog
        self.collector = collector
        self.selfExhausting = selfExhausting
    }

    /// The pseudo-variable bound along error and cancel edges.
    private static let errorBinding = "${error}"
    static let errorFields = ["code", "cause", "message", "state"]
    static let runFields = ["id", "workflow", "structureID"]

    func check() {
        let shapes = variableShapes()
        checkComparisons(shapes: shapes)
        checkChoiceFields(shapes: shapes)
        checkRaisedLiterals()
        let must = flow(intersect: true, selfExhausting: selfExhausting)
        let may = flow(intersect: false, selfExhausting: selfExhausting)
        // Only to say why a variable is unbound on some path: what would be bound on every path if no body ended
        // with repeatExhausted of its own.
        let mustIfNoBodyExhausts = selfExhausting.isEmpty ? nil : flow(intersect: true, selfExhausting: [])
        for number in model.states.indices {
            guard let mustIn = must.bound(at: number), let mayIn = may.bound(at: number) else { continue }
            let mustOtherwise = mustIfNoBodyExhausts?.bound(at: number)
            let state = model.states[number]
            forEachTemplate(of: state) { pointer, template, tolerant, place in
                // Most templates read no reference.
                guard template.hasReferences else { return }
                // A map state's body inputs also read the element's variable (of the list's element shape), bound
                // for them alone; a repeat
                // state's `until` reads its own result, bound by the body's run just before.
                let extra: (name: String, shape: ValueShape)? =
                    place == .inputs
                    ? Self.mapIteration(of: state).map { ($0.elementName, elementShape(of: $0.items, shapes: shapes)) }
                    : place == .until ? Self.repeatResult(of: state).map { ($0, repeatOutputShape(of: state)) } : nil
                // An assign state's warning and show are evaluated after its `set`, so they read what the state binds.
                let setHere: [String] =
                    if place == .afterSet, case .assign(let assign) = state.kind { assign.assignments.map(\.name) } else { [] }
                // Each reference is reported where it is written, inside an object or array value too.
                template.forEachReference { reference, inside in
                    check(
                        reference, at: { inside.reduce(pointer()) { JSONPointer.appending($1, to: $0) } }, shapes: shapes,
                        must: tolerant ? mayIn : mustIn, may: mayIn, element: extra, boundHere: setHere,
                        mustIfNoBodyExhausts: mustOtherwise)
                }
            }
        }
    }

    /// `pointer` is spelled out only for a finding; `mustIfNoBodyExhausts`, what would be bound on every path if no
    /// repeat's body ended with repeatExhausted of its own, says why a variable is not.
    private func check(
        _ reference: Reference, at pointer: () -> String, shapes: [String: ValueShape], must: BindingFlow.Bound,
        may: BindingFlow.Bound, element: (name: String, shape: ValueShape)?, boundHere: [String],
        mustIfNoBodyExhausts: BindingFlow.Bound?
    ) {
        let head = reference.head
        if reference.root == .vars, let head, let element, head == element.name {
            // A map element (any value of the list), or a repeat's result (the body's output).
            checkPath(reference, from: element.shape, at: pointer)
            return
        }
        switch reference.root {
        case .input:
            guard let head, let input = workflow.input(named: head) else {
                let names = workflow.inputs.map(\.name)
                collector.error(
                    Code.undefinedInput, at: pointer(),
                    "${\(reference)} names input \"\(head ?? "")\", which is not declared\(SpellingSuggestion.hint(for: head ?? "", among: names)); declare it under \"inputs\"")
                return
            }
            checkPath(reference, from: input.type.readableShape, at: pointer)
        case .vars:
            guard let head, let shape = shapes[head] else {
                collector.error(
                    Code.undefinedVariable, at: pointer(),
                    "${\(reference)} reads variable \"\(head ?? "")\", which no state binds\(SpellingSuggestion.hint(for: head ?? "", among: shapes.keys)); bind it with \"result\" or an assign state")
                return
            }
            // A variable the state itself has just bound is bound on every path.
            let boundJustBefore = boundHere.contains(head)
            if !boundJustBefore, !may.contains(head) {
                collector.error(
                    Code.undefinedVariable, at: pointer(),
                    "${\(reference)} is read before any state on the way here binds \"\(head)\"")
            } else if !boundJustBefore, !must.contains(head) {
                let why =
                    mustIfNoBodyExhausts?.contains(head) == true
                    ? exhaustedBeforeAnyRun(head) : "(for example, after an error)"
                collector.warning(
                    Code.possiblyUnboundVariable, at: pointer(),
                    "\"\(head)\" is not bound on every path to this state \(why); a run taking such a path fails with unresolvedReference")
            }
            checkPath(reference, from: shape, at: pointer)
        case .error:
            if let head, !Self.errorFields.contains(head) {
                collector.error(
                    Code.unknownField, at: pointer(),
                    "an error has no field \"\(head)\"; use \(Self.errorFields.joined(separator: ", "))")
            } else if reference.path.count > 1 {
                collector.error(Code.unknownField, at: pointer(), "error fields are strings; ${\(reference)} reads inside one")
            }
            if !may.contains(Self.errorBinding) {
                collector.error(
                    Code.errorOutsideHandler, at: pointer(),
                    "${\(reference)} is read in a state that no error or cancel edge leads to, so there is never an error to read")
            } else if !must.contains(Self.errorBinding) {
                collector.warning(
                    Code.possiblyUnboundVariable, at: pointer(),
                    "${\(reference)} may have no error to read: some path reaches this state without an error")
            }
        case .run:
            if let head, !Self.runFields.contains(head) {
                collector.error(
                    Code.unknownField, at: pointer(), "run has no field \"\(head)\"; use \(Self.runFields.joined(separator: ", "))")
            }
        }
    }

    private func checkPath(_ reference: Reference, from shape: ValueShape, at pointer: () -> String) {
        if let problem = Self.pathProblem(reference, from: shape) { collector.error(Code.unknownField, at: pointer(), problem) }
    }

    /// Why a reference's path past its head cannot exist in a value of `shape` (a member its object lacks, with a
    /// spelling hint and the fields it has, or a part of a scalar); nil when every step can exist.
    static func pathProblem(_ reference: Reference, from shape: ValueShape) -> String? {
        let walked = follow(reference, from: shape)
        guard let stuck = walked.stuck else { return nil }
        var hint = ""
        if case .object(let fields) = stuck.at, case .member(let name) = stuck.segment {
            hint = SpellingSuggestion.hint(for: name, among: fields.map(\.name))
                + " (fields: \(fields.map(\.name).joined(separator: ", ")))"
        }
        return "${\(reference)} reads into \(stuck.at), which has no such part\(hint)"
    }

    /// The shape a reference's path past its head reads in a value of `shape`; or, for a step no value of the shape
    /// has, the shape it stopped at and the step.
    static func follow(
        _ reference: Reference, from shape: ValueShape
    ) -> (shape: ValueShape?, stuck: (at: ValueShape, segment: Reference.Segment)?) {
        var current = shape
        for segment in reference.path.dropFirst() {
            let next: ValueShape?
            switch segment {
            case .member(let name): next = current.member(name)
            case .index: next = current.element
            }
            guard let next else { return (nil, (current, segment)) }
            current = next
        }
        return (current, nil)
    }

    /// The shape each variable may hold (`any` when states bind it differently).
    private func variableShapes() -> [String: ValueShape] {
        var shapes: [String: ValueShape] = [:]
        func bind(_ name: String, _ shape: ValueShape) {
            if let existing = shapes[name], existing != shape { shapes[name] = .any } else { shapes[name] = shape }
        }
        for state in model.states {
            switch state.kind {
            case .action(let action):
                if let result = action.step.result { bind(result, catalog[action.operation]?.result ?? .any) }
            case .workflow(let subworkflow):
                if let result = subworkflow.step.result {
                    bind(result, subworkflow.map == nil ? Self.outputShape(of: workflow.subworkflows[subworkflow.path]) : Self.mapResult)
                }
                if let map = subworkflow.map { bind(map.elementName, .any) }
            case .assign(let assign):
                for (name, value) in assign.assignments { bind(name, value.literalValue.map(ValueShape.scalar(of:)) ?? .any) }
            case .wait(let wait):
                if let result = wait.result { bind(result, catalog.event(named: wait.event)?.payload ?? .any) }
            case .ask(let ask):
                if let result = ask.result, ask.answer.source?.isLiteral != false { bind(result, ask.answer.shape) }
            case .choice, .delay, .succeed, .fail:
                break
            }
        }
        // An answer picked from a list held elsewhere takes the shape of the list's elements (or of the member a
        // choice's `value` names), read from what the first pass knows of the list.
        var picked: [(name: String, shape: ValueShape)] = []
        for state in model.states {
            if case .ask(let ask) = state.kind, let result = ask.result, case .choice(let from, _, let value) = ask.answer, !from.isLiteral {
                picked.append((result, elementShape(of: from, member: value, shapes: shapes)))
            }
        }
        for (name, shape) in picked { bind(name, shape) }
        return shapes
    }

    /// The shape of an element of the list `items` reads (or of its member `member`), when the validator knows it.
    private func elementShape(of items: Template, member: String? = nil, shapes: [String: ValueShape]) -> ValueShape {
        guard case .reference(let reference) = items, let element = shape(of: reference, shapes: shapes)?.element else { return .any }
        return member.map { element.member($0) ?? .any } ?? element
    }

    /// The shape of a sub-workflow's output, as its parent reads it: an object with the members any of its succeed
    /// states' outputs writes (so a member none of them has is a mistake the validator names), when every one of
    /// them writes an object; `any` otherwise (an output held in a variable, or none), and for a child not loaded.
    static func outputShape(of child: Workflow?) -> ValueShape {
        guard let child else { return .any }
        var fields: [ValueShape.Field] = []
        var found = false
        for state in child.model.states {
            guard case .succeed(let succeed) = state.kind else { continue }
            let keys: [String]
            switch succeed.output {
            case .literal(.object(let object))?: keys = object.members.map(\.key)
            case .object(let members)?: keys = members.map(\.key)
            case .literal?, .reference?, .interpolation?, .array?, nil: return .any
            }
            found = true
            for key in keys where !fields.contains(where: { $0.name == key }) {
                fields.append(.init(key, .any, "a member of \(child.name)'s output"))
            }
        }
        return found ? .object(fields) : .any
    }

    /// What a map state binds to its result.
    static let mapResult = ValueShape.object([
        .init("elements", .array(.object([
            .init("index", .integer, "the element's position, from 0"), .init("item", .any, "the element"),
            .init("status", .string, "succeeded or failed"), .init("output", .any, "the body's output, when it succeeded"),
            .init("error", .object(ReferenceChecker.errorFields.map { .init($0, .string, "the error's \($0)") }), "the body's error, when it failed"),
        ])), "one result per element that ran, in list order"),
        .init("succeeded", .integer, "how many elements succeeded"), .init("failed", .integer, "how many elements failed"),
    ])

    /// The shape of a repeat state's body output (``outputShape(of:)``).
    private func repeatOutputShape(of state: WorkflowState) -> ValueShape {
        guard case .workflow(let subworkflow) = state.kind else { return .any }
        return Self.outputShape(of: workflow.subworkflows[subworkflow.path])
    }

    /// A repeat state's result variable; nil for other states.
    static func repeatResult(of state: WorkflowState) -> String? {
        if case .workflow(let subworkflow) = state.kind, subworkflow.repeating != nil { return subworkflow.step.result }
        return nil
    }

    /// A map state's iteration; nil for other states.
    static func mapIteration(of state: WorkflowState) -> MapIteration? {
        if case .workflow(let subworkflow) = state.kind { return subworkflow.map }
        return nil
    }

    /// What an edge binds, each variable passed to `bind`: on every path it is taken (`mayOnly` false), or on some
    /// (true). A cancelled step whose hub call still succeeded keeps its result, so a cancel edge may bind the
    /// state's result variable. A repeat state's route that names only `repeatExhausted` binds its result: the body
    /// ran `maxIterations` times, each output bound, and `until` never held (the last poll's value is what a person
    /// is told of). Unless the body can itself end with `repeatExhausted` (`selfExhausting`): then the route may be
    /// taken in the first run, before any output was bound, so it binds the result on some paths only.
    static func bindings(
        of state: WorkflowState, along kind: WorkflowEdge.Kind, mayOnly: Bool, selfExhausting: Bool, _ bind: (String) -> Void
    ) {
        switch kind {
        case .error(_, let names):
            bind(errorBinding)
            if names == [ErrorCause.repeatExhausted.rawValue], mayOnly || !selfExhausting,
                case .workflow(let subworkflow) = state.kind, subworkflow.repeating != nil
            {
                subworkflow.step.result.map(bind)
            }
        case .cancel:
            bind(errorBinding)
            guard mayOnly else { return }
            switch state.kind {
            case .action(let action): action.step.result.map(bind)
            case .workflow(let subworkflow): subworkflow.step.result.map(bind)
            case .choice, .assign, .wait, .ask, .delay, .succeed, .fail: break
            }
        case .event, .eventOtherwise:
            if case .wait(let wait) = state.kind, let result = wait.result { bind(result) }
        case .choice, .choiceDefault, .timeout: break
        case .next:
            switch state.kind {
            case .action(let action): action.step.result.map(bind)
            case .workflow(let subworkflow): subworkflow.step.result.map(bind)
            case .assign(let assign): for assignment in assign.assignments { bind(assignment.name) }
            case .ask(let ask): ask.result.map(bind)
            case .choice, .wait, .delay, .succeed, .fail: break
            }
        }
    }

    /// Variables bound on entry to each reachable state: on every path (`intersect`) or on some path, with the
    /// repeat states whose body can end with repeatExhausted of its own (by number).
    private func flow(intersect: Bool, selfExhausting: Set<Int>) -> BindingFlow {
        BindingFlow(model: model, intersect: intersect) { edge, bind in
            Self.bindings(
                of: model.states[edge.from], along: edge.kind, mayOnly: !intersect,
                selfExhausting: selfExhausting.contains(edge.from), bind)
        }
    }

    /// The arguments of each custom guard a step lists that calls an operation, with the guard's index in the step's
    /// `guards`: they are evaluated in the state's scope before each attempt, as an action's are.
    private func guardArguments(of state: WorkflowState) -> [(index: Int, arguments: [(name: String, value: Template)])] {
        guard let step = state.kind.step else { return [] }
        return step.guards.enumerated().compactMap { index, listed in
            guard case .custom(let name) = listed, case .operation(_, let arguments, _)? = catalog.customGuard(named: name)?.check
            else { return nil }
            return (index, arguments)
        }
    }

    /// Where a template stands in its state, where that decides what it may read (``check()``).
    enum TemplatePlace {
        /// An input of a sub-workflow, map or repeat state (`/inputs/NAME`).
        case inputs
        /// A repeat state's `until` condition.
        case until
        /// An assign state's `warning` or `show`, evaluated after its `set`.
        case afterSet
        case other
    }

    /// Calls `body` with every template of a state, the pointer of the member that holds it (spelled out only when
    /// asked for), whether it is read where an unbound value is expected (`exists`, `isEmpty`, so a maybe-unbound
    /// variable there is no warning), and its place. The arguments of the custom guards the state lists come
    /// first, at the guard's place in its `guards`.
    func forEachTemplate(
        of state: WorkflowState, _ body: (_ pointer: () -> String, Template, _ tolerant: Bool, TemplatePlace) -> Void
    ) {
        for listed in guardArguments(of: state) {
            for argument in listed.arguments {
                body({ JSONPointer.appending(listed.index, to: state.pointer + "/guards") }, argument.value, false, .other)
            }
        }
        Self.forEachOwnTemplate(of: state, body)
    }

    /// The templates a state holds itself, as ``forEachTemplate(of:_:)`` gives them.
    private static func forEachOwnTemplate(
        of state: WorkflowState, _ body: (_ pointer: () -> String, Template, _ tolerant: Bool, TemplatePlace) -> Void
    ) {
        let base = state.pointer
        func named(_ list: [(name: String, value: Template)], _ member: String, _ place: TemplatePlace = .other) {
            for (name, value) in list { body({ JSONPointer.appending(name, to: base + member) }, value, false, place) }
        }
        // A condition's templates all stand at the condition: a choice's branch (by index), or a repeat's `until`.
        func conditionTemplates(_ condition: Condition, branch: Int?) {
            let place: TemplatePlace = branch == nil ? .until : .other
            func pointer() -> String { branch.map { "\(base)/choices/\($0)/if" } ?? base + "/until" }
            switch condition {
            case .exists(let template), .isEmpty(let template): body(pointer, template, true, place)
            case .compare(_, let lhs, let rhs), .contains(let lhs, let rhs):
                body(pointer, lhs, false, place)
                body(pointer, rhs, false, place)
            case .and(let conditions), .or(let conditions):
                for inner in conditions { conditionTemplates(inner, branch: branch) }
            case .not(let inner): conditionTemplates(inner, branch: branch)
            }
        }
        switch state.kind {
        case .action(let action): named(action.arguments, "/arguments")
        case .workflow(let subworkflow):
            named(subworkflow.inputs, "/inputs", .inputs)
            if let map = subworkflow.map { body({ base + "/items" }, map.items, false, .other) }
            if let repeating = subworkflow.repeating { conditionTemplates(repeating.until, branch: nil) }
        case .choice(let choice):
            for (index, branch) in choice.branches.enumerated() { conditionTemplates(branch.condition, branch: index) }
        case .assign(let assign):
            named(assign.assignments, "/set")
            if let warning = assign.warning { body({ base + "/warning" }, warning, false, .afterSet) }
            if let show = assign.show { body({ base + "/show" }, show, false, .afterSet) }
        case .wait(let wait): named(wait.match, "/match")
        case .ask(let ask):
            body({ base + "/prompt" }, ask.prompt, false, .other)
            if let source = ask.answer.source { body({ base + "/answer/choice/from" }, source, false, .other) }
        case .delay(let delay):
            if case .until(let moment, _) = delay.length { body({ base + "/until" }, moment, false, .other) }
        case .succeed(let succeed):
            if let output = succeed.output { body({ base + "/output" }, output, false, .other) }
        case .fail(let fail):
            switch fail.raise {
            case .rethrow(let error): body({ base + "/error" }, error, false, .other)
            case .new(let code, let cause, let message):
                body({ base + "/code" }, code, false, .other)
                body({ base + "/message" }, message, false, .other)
                if let cause { body({ base + "/cause" }, cause, false, .other) }
            }
        }
    }
}
