import MatterFlowJSON
import Synchronization

/// Error handling against what each step can raise (its operation's declared causes, the engine's and its
/// guards', or what its sub-workflow can end with): retriers and routes that can never match (`deadRetry`,
/// `deadErrorRoute`), routes whose every possible error an earlier one takes (`shadowedRetry`,
/// `shadowedErrorRoute`, beyond the same-name cases the validator finds), and errors that can leave a step with
/// no route (`unhandledError`: a warning, an error under `"handleAllErrors": true`).
///
/// A `"*"` entry is never reported dead: it stands for "anything else", including errors a changed hub or
/// sub-workflow may add later.
struct ErrorHandlingCheck {
    typealias Code = WorkflowDiagnosticCode
    let workflow: Workflow
    let flow: ErrorFlow
    let catalog: OperationCatalog
    let collector: DiagnosticCollector

    func check() {
        for (number, state) in flow.model.states.enumerated() {
            guard let step = state.step, let routing = flow.routing(number) else { continue }
            let name = state.name
            let raiser = raiserName(state)
            // A state that builds values may also fail with valueTooLarge: entries are judged against it there, though
            // no route is asked for it (``mayBuildTooLarge(_:in:)``).
            var (errors, retried, routed) = (routing.errors, routing.retried, routing.routed)
            if Self.mayBuildTooLarge(state, in: workflow) {
                errors.insert(flow.table.number(of: .valueTooLarge))
                retried = flow.table.partition(errors, by: step.retry.map(\.errors)).taken
                routed = flow.table.partition(errors, by: step.onError.map(\.errors)).taken
            }
            checkEntries(
                step.retry.map(\.errors), taken: retried, errors: errors, raiser: raiser,
                pointer: state.pointer + "/retry", what: "retry entry", dead: Code.deadRetry, shadowed: Code.shadowedRetry)
            checkEntries(
                step.onError.map(\.errors), taken: routed, errors: errors, raiser: raiser,
                pointer: state.pointer + "/onError", what: "error route", dead: Code.deadErrorRoute,
                shadowed: Code.shadowedErrorRoute)
            guard !routing.escaping.isEmpty else { continue }
            let anyError = routing.escaping.contains(PossibleErrorTable.anyNumber)
            let message = "\(anyError ? "errors" : flow.table.listed(routing.escaping)) can leave \"\(name)\" with no route and end the workflow\(anyError ? " (\(raiser) may re-raise any error)" : ""); route them, or add a last route for \"*\""
            let pointer = step.onError.isEmpty ? state.pointer : state.pointer + "/onError"
            if workflow.contract.handleAllErrors {
                collector.error(Code.unhandledError, at: pointer, atKey: step.onError.isEmpty, message + " (the workflow declares \"handleAllErrors\")")
            } else {
                collector.warning(Code.unhandledError, at: pointer, atKey: step.onError.isEmpty, message)
            }
        }
    }

    /// Who raises the step's errors, for messages: the operation or the sub-workflow file.
    private func raiserName(_ state: WorkflowState) -> String {
        switch state.kind {
        case .action(let action): action.operation
        case .workflow(let subworkflow): subworkflow.path
        case .choice, .assign, .wait, .ask, .delay, .succeed, .fail: state.name
        }
    }

    /// Whether a state may fail with `valueTooLarge` (``Scope``'s bound on built values): an action or workflow state
    /// whose arguments or inputs build a value that can grow (``Template/mayBuildTooLarge``), a map state (its
    /// results), an assign or succeed state building one, and a workflow state whose sub-workflow holds such a state.
    /// It is no error a route is asked for (the workflow's own values, not the hub, decide it), so it is not among the
    /// state's errors; a route naming it is judged by this.
    static func mayBuildTooLarge(_ state: WorkflowState, in workflow: Workflow) -> Bool {
        switch state.kind {
        case .action(let action):
            return action.arguments.contains(where: \.value.mayBuildTooLarge)
        case .workflow(let subworkflow):
            if subworkflow.map != nil || subworkflow.inputs.contains(where: \.value.mayBuildTooLarge) { return true }
            guard let child = workflow.subworkflows[subworkflow.path] else { return false }
            return holdsValueBuilding(child)
        case .assign(let assign):
            return assign.assignments.contains(where: \.value.mayBuildTooLarge) || assign.warning?.mayBuildTooLarge == true
                || assign.show?.mayBuildTooLarge == true
        case .succeed(let succeed):
            return succeed.output?.mayBuildTooLarge == true
        case .choice, .wait, .ask, .delay, .fail:
            return false
        }
    }

    /// Whether some state of `workflow` (or of its sub-workflows) may fail with `valueTooLarge`, worked out once per
    /// loaded file (``CompiledWorkflow/holdsValueBuilding``): a file many parents include is looked at once.
    private static func holdsValueBuilding(_ workflow: Workflow) -> Bool {
        if let known = workflow.model.holdsValueBuilding.withLock({ $0 }) { return known }
        let answer = workflow.states.values.contains { mayBuildTooLarge($0, in: workflow) }
        workflow.model.holdsValueBuilding.withLock { $0 = answer }
        return answer
    }

    private func checkEntries(
        _ entries: [[String]], taken: [ErrorSet], errors: ErrorSet, raiser: String, pointer: @autoclosure () -> String,
        what: String, dead: String, shadowed: String
    ) {
        // The names of the entries before: a few, searched directly.
        var earlier: [String] = []
        for (index, names) in entries.enumerated() {
            defer { earlier.append(contentsOf: names) }
            // Spelled out only for a finding: most entries have none.
            var entryPointer: String { JSONPointer.appending(index, to: pointer()) }
            // Same-name shadowing and "*" placement are the validator's findings already.
            let sameNames = index > 0 && !names.isEmpty && names.allSatisfy { name in
                earlier.contains("*") || earlier.contains(name)
                    || catalog.code(ofCause: name).map { earlier.contains($0.rawValue) } == true
            }
            guard !names.contains("*"), !sameNames else { continue }
            let known = names.filter { ErrorCode(rawValue: $0) != nil || catalog.knowsCause($0) }
            let deadNames = known.filter { name in !errors.intersects(flow.table.mayMatch(name)) }
            // Spelled out only for a finding: most entries have none.
            var raises: String {
                errors.contains(PossibleErrorTable.anyNumber) ? "" : " (it raises \(flow.table.listed(errors)))"
            }
            if !known.isEmpty, deadNames.count == known.count, known.count == names.count {
                collector.warning(
                    dead, at: entryPointer,
                    "this \(what) can never match: \(raiser) never raises \(names.joined(separator: ", "))\(raises); remove it")
            } else if let entryTaken = taken[safe: index], entryTaken.isEmpty, deadNames.count < known.count {
                collector.warning(
                    shadowed, at: entryPointer,
                    "this \(what) can never apply: earlier entries take every error of \(raiser) it could match; remove it or move it up")
            } else {
                for name in deadNames {
                    let position = names.firstIndex(of: name) ?? 0
                    collector.warning(
                        dead, at: entryPointer + "/errors/\(position)",
                        "\"\(name)\" in this \(what) can never match: \(raiser) never raises it\(raises); remove the name")
                }
            }
        }
    }
}
