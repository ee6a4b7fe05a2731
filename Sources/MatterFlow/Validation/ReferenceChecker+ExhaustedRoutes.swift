import MatterFlowJSON

/// A repeat state's route for `repeatExhausted` reads the last run's output when the repeat itself gave up: every
/// run of the body ended and bound it. A body that can end with `repeatExhausted` of its own (a repeat inside it
/// whose exhaustion no route takes, a fail state re-raising one) reaches that route in its first run too, with
/// nothing bound yet: there the result is bound on some paths only.
extension ReferenceChecker {
    /// The repeat states (by number) with a route naming only `repeatExhausted` whose body can itself end with an
    /// error that route takes, by what the body's error flow says it can end with (a body not loaded: anything).
    static func selfExhaustingRepeats(of workflow: Workflow, model: CompiledWorkflow, context: VerificationContext) -> Set<Int> {
        let exhausted = ErrorCause.repeatExhausted.rawValue
        var found = Set<Int>()
        for (number, state) in model.states.enumerated() {
            guard case .workflow(let subworkflow) = state.kind, subworkflow.repeating != nil, subworkflow.step.result != nil,
                subworkflow.step.onError.contains(where: { $0.errors == [exhausted] })
            else { continue }
            guard let body = workflow.subworkflows[subworkflow.path] else {
                found.insert(number)
                continue
            }
            // The body's errors are numbered before the route's name is matched against them.
            let errors = context.flow(body).workflowErrors
            if errors.intersects(context.errors.mayMatch(exhausted)) { found.insert(number) }
        }
        return found
    }

    /// Why `variable` is not bound on every path when the only paths without it are routes for `repeatExhausted`
    /// a body may take of its own: in words, naming the repeat states.
    func exhaustedBeforeAnyRun(_ variable: String) -> String {
        let states = selfExhausting.sorted().map { model.states[$0] }.filter { Self.repeatResult(of: $0) == variable }
        let named = states.map { state in
            let body = if case .workflow(let subworkflow) = state.kind { " (\(subworkflow.path))" } else { "" }
            return "\"\(state.name)\"\(body)"
        }
        let which = named.count == 1 ? "the body of repeat state \(named[0])" : "the bodies of repeat states \(named.joined(separator: ", "))"
        return "(\(which) can itself fail with repeatExhausted, before any run of it has ended and bound \"\(variable)\", and the route for repeatExhausted then leads here)"
    }
}
