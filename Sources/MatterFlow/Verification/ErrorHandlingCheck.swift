import MatterFlowJSON

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
            checkEntries(
                step.retry.map(\.errors), taken: routing.retried, errors: routing.errors, raiser: raiser,
                pointer: state.pointer + "/retry", what: "retry entry", dead: Code.deadRetry, shadowed: Code.shadowedRetry)
            checkEntries(
                step.onError.map(\.errors), taken: routing.routed, errors: routing.errors, raiser: raiser,
                pointer: state.pointer + "/onError", what: "error route", dead: Code.deadErrorRoute,
                shadowed: Code.shadowedErrorRoute)
            // A value grown past its bound (valueTooLarge) is the workflow's own doing, not the hub's: a route for
            // it is never dead, but none is asked for.
            var escaping = routing.escaping
            escaping.remove(flow.table.number(of: .valueTooLarge))
            guard !escaping.isEmpty else { continue }
            let anyError = escaping.contains(PossibleErrorTable.anyNumber)
            let message = "\(anyError ? "errors" : flow.table.listed(escaping)) can leave \"\(name)\" with no route and end the workflow\(anyError ? " (\(raiser) may re-raise any error)" : ""); route them, or add a last route for \"*\""
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
