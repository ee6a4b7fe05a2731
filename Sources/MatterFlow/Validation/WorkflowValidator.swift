import MatterFlowJSON

/// The semantic checks of a decoded workflow: states and transitions, operations and their arguments,
/// references, graph reachability, and retry and error-route ordering. Every finding is collected.
struct WorkflowValidator {
    typealias Code = WorkflowDiagnosticCode
    let workflow: Workflow
    let catalog: OperationCatalog
    let collector: DiagnosticCollector
    /// The analyses shared by the files of one load.
    let verification: VerificationContext
    /// Whether this is the load's top-level file (``WorkflowVerifier/isTopLevel``).
    let isTopLevel: Bool

    func validate() {
        let model = workflow.model
        checkTransitions(model)
        let acquires = checkSteps()
        let cancelPaths = checkGraph(model)
        if acquires, workflow.onCancel == nil {
            collector.warning(
                Code.missingCancelPath, at: "",
                "this workflow opens a commissioning session but declares no \"onCancel\" state; a cancelled run would leave the session active\(Self.cancelPathHint(cancelPaths))")
        }
        ReferenceChecker(
            workflow: workflow, model: model, catalog: catalog, collector: collector,
            selfExhausting: ReferenceChecker.selfExhaustingRepeats(of: workflow, model: model, context: verification)
        ).check()
        WorkflowVerifier(workflow: workflow, collector: collector, context: verification, isTopLevel: isTopLevel).verify()
    }

    private func suggest(_ name: String) -> String {
        SpellingSuggestion.hint(for: name, among: workflow.stateOrder)
    }

    private func checkTransitions(_ model: CompiledWorkflow) {
        if workflow.states[workflow.start] == nil {
            collector.error(
                Code.missingStart, at: "/start",
                "the start state \"\(workflow.start)\" is not defined\(suggest(workflow.start))")
        }
        if let onCancel = workflow.onCancel, workflow.states[onCancel] == nil {
            collector.error(
                Code.undefinedState, at: "/onCancel", "onCancel names state \"\(onCancel)\", which is not defined\(suggest(onCancel))")
        }
        // Cancel edges are the workflow's, reported above.
        for edge in model.edges where edge.to == nil && !edge.kind.isCancel {
            collector.error(
                Code.undefinedState, at: model.pointer(of: edge),
                "transition to state \"\(edge.target)\", which is not defined\(suggest(edge.target))")
        }
    }

    /// Checks each state's step; returns whether the workflow (or a sub-workflow) opens a commissioning session.
    private func checkSteps() -> Bool {
        var acquires = false
        let inputsInVariables = Self.inputsFlowingIntoVariables(of: workflow)
        for state in workflow.statesInOrder {
            switch state.kind {
            case .action(let action):
                checkRoutes(action.step, state: state)
                checkGuards(action.step, state: state)
                checkPointlessRetries(action.step, state: state, operation: action.operation)
                guard let operation = catalog[action.operation] else {
                    collector.error(
                        Code.unknownOperation, at: state.pointer + "/operation",
                        "unknown operation \"\(action.operation)\" (`matterflow operations` lists them; a custom operation needs its catalog: --catalog FILE)\(SpellingSuggestion.hint(for: action.operation, among: catalog.names))")
                    continue
                }
                acquires = acquires || operation.acquiresSession
                for (name, template) in action.arguments where operation.secretArguments.contains(name) {
                    checkSecretFlow(
                        template, into: "argument \"\(name)\" of operation \(operation.name)", at: JSONPointer.appending(name, to: state.pointer + "/arguments"),
                        inputsInVariables: inputsInVariables)
                }
                collector.checkArguments(
                    given: action.arguments, declared: operation.arguments.map { ($0.name, $0.shape, $0.required) },
                    at: state.pointer + "/arguments", callee: "operation \(operation.name)"
                ) { name, literal in
                    guard let argument = operation.arguments.first(where: { $0.name == name }) else { return nil }
                    // A literal longer than the argument takes is refused here, as the call would refuse it.
                    if let limit = argument.maxBytes, let text = literal.stringValue, text.utf8.count > limit {
                        return "takes \(text.utf8.count) bytes of UTF-8, more than the \(limit) operation \(operation.name) takes; shorten it"
                    }
                    if let range = argument.range, let number = literal.intValue, !range.contains(number) {
                        return "is \(number); operation \(operation.name) takes \(range.lowerBound) to \(range.upperBound)"
                    }
                    // A literal code is refused here, as the call would refuse it; never quoted.
                    guard argument.onboardingPayload, let problem = literal.stringValue.flatMap(OnboardingPayloadFacts.problem(with:))
                    else { return nil }
                    return "is not a valid QR code (MT:...) or manual pairing code (\(problem)); give the code on the device's label, or an input"
                }
            case .workflow(let subworkflow):
                checkRoutes(subworkflow.step, state: state)
                checkGuards(subworkflow.step, state: state)
                guard let child = workflow.subworkflows[subworkflow.path] else { continue }
                acquires = acquires || verification.opensSession(child)
                for (name, template) in subworkflow.inputs where child.input(named: name)?.secret == true {
                    checkSecretFlow(
                        template, into: "input \"\(name)\" of workflow \(subworkflow.path)", at: JSONPointer.appending(name, to: state.pointer + "/inputs"),
                        inputsInVariables: inputsInVariables)
                }
                collector.checkArguments(
                    given: subworkflow.inputs,
                    declared: child.inputs.map { ($0.name, $0.type.shape, $0.required) },
                    at: state.pointer + "/inputs", callee: "workflow \(subworkflow.path)"
                ) { name, literal in
                    // What the child's run would refuse of these inputs (``Workflow/resolveInputs(_:source:)``).
                    guard let input = child.inputs.first(where: { $0.name == name }) else { return nil }
                    if let problem = input.valueProblem(literal) {
                        return "is not \(problem.expected) (\(problem.problem)); \(problem.remedy)"
                    }
                    if input.secret, !Workflow.shortStrings(in: literal, at: { "" }).isEmpty {
                        return "is a secret of 1-\(SecretValues.minimumLength - 1) characters, too short to be kept out of traces and journals"
                    }
                    return nil
                }
            case .fail(let fail):
                checkCauseMatchesCode(fail, state: state)
            case .wait(let wait):
                checkWait(wait, state: state)
            case .ask(let ask):
                if case .literal(let list)? = ask.answer.source, list.arrayValue?.isEmpty != false {
                    collector.error(
                        DiagnosticCode.invalidValue, at: state.pointer + "/answer/choice/from",
                        "\"from\" must be a non-empty list of choices, or a reference to one such as \"${vars.rooms.rooms}\"")
                }
            case .choice, .assign, .delay, .succeed:
                break
            }
        }
        return acquires
    }

    /// What the `missingCancelPath` warning adds about the unreachable states that look like the cancel path.
    private static func cancelPathHint(_ names: [String]) -> String {
        switch names.count {
        case 0: ""
        case 1: "; state \"\(names[0])\" looks like its cancel path, but nothing leads to it: did you mean \"onCancel\": \"\(names[0])\"?"
        default: "; states \(names.map { "\"\($0)\"" }.joined(separator: ", ")) look like its cancel path, but nothing leads to them: declare the one a cancelled run should take as \"onCancel\""
        }
    }

    /// A wait state must name a known event, branch only on its values, cover every value (or say `otherwise`),
    /// and match only fields the event carries.
    private func checkWait(_ wait: WaitState, state: WorkflowState) {
        guard let event = catalog.event(named: wait.event) else {
            collector.error(
                Code.unknownEvent, at: state.pointer + "/event",
                "unknown event \"\(wait.event)\" (events: \(catalog.events.map(\.name).joined(separator: ", ")))\(SpellingSuggestion.hint(for: wait.event, among: catalog.events.map(\.name)))")
            return
        }
        for branch in wait.branches where !event.values.contains(branch.value) {
            collector.error(
                Code.unknownEventValue, at: state.pointer + "/on/" + branch.value,
                "\(event.name) never carries \(event.valueField) \"\(branch.value)\" (values: \(event.values.joined(separator: ", ")))\(SpellingSuggestion.hint(for: branch.value, among: event.values))")
        }
        let missing = event.values.filter { value in !wait.branches.contains { $0.value == value } }
        if wait.otherwise == nil, !missing.isEmpty {
            collector.error(
                Code.unhandledEventValue, at: state.pointer + "/on",
                "no transition for \(event.valueField) \(missing.map { "\"\($0)\"" }.joined(separator: ", ")); add them under \"on\" or give \"otherwise\"")
        }
        for (name, value) in wait.match {
            guard let shape = event.fieldNames.contains(name) ? event.payload.member(name) : nil else {
                collector.error(
                    Code.unknownField, at: JSONPointer.appending(name, to: state.pointer + "/match"),
                    "\(event.name) has no field \"\(name)\" to match (fields: \(event.fieldNames.joined(separator: ", ")))")
                continue
            }
            // A literal of another type can never be equal to the field: the wait would only time out.
            if let literal = value.literalValue, !literal.isNull, !shape.admits(literal) {
                collector.error(
                    DiagnosticCode.invalidValue, at: JSONPointer.appending(name, to: state.pointer + "/match"),
                    "\(event.name)'s field \"\(name)\" is \(shape), so a \(literal.typeName) can never match it; give a \(shape)")
            }
        }
    }

    /// A fail state naming a known cause with another code would be routed inconsistently by code and by cause.
    private func checkCauseMatchesCode(_ fail: FailState, state: WorkflowState) {
        // A cause of the workflow's own is allowed; one a letter or two from a known cause is a typo that routes and
        // fixtures naming the known one would miss.
        if case .new(_, let causeTemplate?, _) = fail.raise, let cause = causeTemplate.literalValue?.stringValue,
            !catalog.knowsCause(cause),
            let near = SpellingSuggestion.closest(
                to: cause, among: ErrorCause.table.map(\.cause.rawValue) + catalog.declaredCauseNames, strict: true)
        {
            collector.warning(
                Code.unknownErrorName, at: state.pointer + "/cause",
                "\"\(cause)\" is no cause MatterFlow knows; did you mean \"\(near)\"? (a cause of the workflow's own is fine when meant)")
        }
        guard case .new(let codeTemplate, let causeTemplate?, _) = fail.raise,
            let code = codeTemplate.literalValue?.stringValue, let cause = causeTemplate.literalValue?.stringValue,
            let expected = catalog.code(ofCause: cause), expected.rawValue != code
        else { return }
        collector.warning(
            Code.causeCodeMismatch, at: state.pointer + "/cause",
            "cause \"\(cause)\" belongs to code \"\(expected.rawValue)\", not \"\(code)\"; routes by code and by cause would disagree")
    }

    private func checkRoutes(_ step: StepBehavior, state: WorkflowState) {
        checkOrdering(step.retry.map(\.errors), pointer: state.pointer + "/retry", what: "retry entry", shadowCode: Code.shadowedRetry)
        checkOrdering(step.onError.map(\.errors), pointer: state.pointer + "/onError", what: "error route", shadowCode: Code.shadowedErrorRoute)
    }

    /// The canonical error codes, which routes and retriers may name.
    private static let canonicalCodes = Set(ErrorCode.all.map(\.rawValue))

    /// `pointer` is spelled out only for a finding: most entries have none.
    private func checkOrdering(
        _ entries: [[String]], pointer: @autoclosure () -> String, what: String, shadowCode: String
    ) {
        guard !entries.isEmpty else { return }
        let codes = Self.canonicalCodes
        // The names of the entries before: a few, searched directly.
        var earlier: [String] = []
        for (index, names) in entries.enumerated() {
            var entryPointer: String { JSONPointer.appending(index, to: pointer()) }
            if names.contains("*"), names.count > 1 || index != entries.count - 1 {
                collector.error(
                    Code.catchAllNotLast, at: entryPointer + "/errors",
                    "\"*\" must be alone in the last \(what); entries after it could never apply")
            }
            for name in names where name != "*" && !codes.contains(name) && !catalog.knowsCause(name) {
                if let advice = StepFunctionsErrorName.advice(for: name) {
                    collector.error(Code.foreignErrorName, at: entryPointer + "/errors", advice)
                    continue
                }
                let known = codes.union(ErrorCause.table.map(\.cause.rawValue)).union(catalog.declaredCauseNames)
                collector.warning(
                    Code.unknownErrorName, at: entryPointer + "/errors",
                    "\"\(name)\" is neither a canonical code nor a known cause, so it matches only if a hub raises that cause\(SpellingSuggestion.hint(for: name, among: known)); a service's own cause can be declared in an operation catalog file (--catalog)")
            }
            let covered = names.allSatisfy { name in
                earlier.contains("*") || earlier.contains(name)
                    || catalog.code(ofCause: name).map { earlier.contains($0.rawValue) } == true
            }
            if index > 0, covered, !names.isEmpty {
                collector.warning(
                    shadowCode, at: entryPointer,
                    "this \(what) can never apply: earlier entries already match \(names.joined(separator: ", ")); remove it or move it up")
            }
            earlier.append(contentsOf: names)
        }
    }

    /// Checks reachability: every state is reachable from the start, and can reach an end. Returns the names of the
    /// unreachable states that look like the cancel path of a workflow that declares no `onCancel`
    /// (``looksLikeCancelPath(_:region:model:)``), whose `unreachableState` asks whether `onCancel` was meant.
    private func checkGraph(_ model: CompiledWorkflow) -> [String] {
        // A state that could not be decoded has unknown transitions: reachability would only guess.
        guard !model.hasPlaceholder else { return [] }
        // A transition to a misspelled state is already reported; for the graph, follow it to the state the
        // spelling suggests, so one typo does not also report every state behind it as unreachable.
        var pairs: [(from: Int, to: Int)] = []
        var forward: [(from: Int, to: Int)] = []
        pairs.reserveCapacity(model.edges.count)
        forward.reserveCapacity(model.edges.count)
        for edge in model.edges {
            guard let to = edge.to
                ?? SpellingSuggestion.closest(to: edge.target, among: workflow.stateOrder).flatMap({ model.numbers[$0] })
            else { continue }
            pairs.append((edge.from, to))
            // A state that can end only by being cancelled never ends on its own: cancel edges do not count there.
            if !edge.kind.isCancel { forward.append((edge.from, to)) }
        }
        guard let start = model.start else { return [] }
        let successors = Adjacency(count: model.count, pairs)
        let predecessors = Adjacency(count: model.count, forward.map { ($0.to, $0.from) })
        let reachable = successors.closure(from: [start])
        let terminals = model.states.indices.filter { model.states[$0].isTerminal }
        let reachesEnd = predecessors.closure(from: terminals)
        var cancelPaths: [String] = []
        for number in model.states.indices {
            let state = model.states[number]
            if !reachable[number] {
                // Report where an unreachable region is entered, not every state inside it.
                let sources = pairs.filter { $0.to == number }.map(\.from)
                let enteredFromInside = sources.contains { !reachable[$0] && $0 != number }
                let behind = successors.closure(from: [number])
                let isCycleMember = enteredFromInside && sources.contains { behind[$0] }
                if enteredFromInside && !isCycleMember { continue }
                let region = behind.indices.filter { behind[$0] && !reachable[$0] }
                let names = region.filter { $0 != number }.map(model.name)
                let also = names.isEmpty ? "" : " (nor \(names.sorted().map { "\"\($0)\"" }.joined(separator: ", ")), only reachable through it)"
                // Nothing at all leads to it, as to an onCancel state nobody declared: deleting it would leave
                // the workflow without a cancel path.
                let remedy: String
                if workflow.onCancel == nil, sources.isEmpty, looksLikeCancelPath(number, region: region, model: model) {
                    cancelPaths.append(state.name)
                    remedy = "it looks like this workflow's cancel path, and \"onCancel\" is not declared: did you mean \"onCancel\": \"\(state.name)\"?"
                } else {
                    remedy = "remove it or add a transition"
                }
                collector.error(
                    Code.unreachableState, at: state.pointer, atKey: true,
                    "state \"\(state.name)\" is unreachable: no transition from \"\(workflow.start)\" leads to it\(also); \(remedy)")
            } else if !reachesEnd[number] {
                collector.error(
                    Code.noTerminalReachable, at: state.pointer, atKey: true,
                    "no succeed or fail state can be reached from \"\(state.name)\"; a run entering it would never end")
            }
        }
        return cancelPaths
    }

    /// Whether an unreachable state, entering `region` (itself and the states only reachable through it), looks
    /// like a cancel path: its name says so (it holds "cancel", in any case), or the region ends a run as
    /// cancelled (a fail state raising code `cancelled` or cause `runCancelled`). A region that only releases the
    /// session does not count: a failure path releases it too (`rememberFailure` in the shipped workflows).
    private func looksLikeCancelPath(_ number: Int, region: [Int], model: CompiledWorkflow) -> Bool {
        if model.name(number).lowercased().contains("cancel") { return true }
        return region.contains { member in
            guard case .fail(let fail) = model.states[member].kind, case .new(let code, let cause, _) = fail.raise else { return false }
            return code.literalValue?.stringValue == ErrorCode.cancelled.rawValue
                || cause?.literalValue?.stringValue == ErrorCause.runCancelled.rawValue
        }
    }
}
