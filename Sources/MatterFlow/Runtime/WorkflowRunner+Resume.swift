import MatterFlowJSON

extension WorkflowRunner {
    // Resuming a run from a ``ResumePoint``: each level takes its checkpoint as it starts, and every state
    // entered reports one (``RunOptions/checkpoints``).

    /// Restores a level from its checkpoint when the run resumes; returns whether it did.
    @inline(never)
    func restore(_ level: inout Level) -> Bool {
        guard let checkpoint = resume?.take(path: level.path) else { return false }
        // Inputs the checkpoint lacks (secrets never kept) come from the parent's templates, where they still resolve.
        var inputs = checkpoint.inputs
        for member in level.scope.inputs.members where inputs[member.key] == nil { inputs[member.key] = member.value }
        level.scope.inputs = inputs
        level.scope.vars = checkpoint.variables
        level.scope.error = checkpoint.error
        level.current = checkpoint.state
        level.cancelledIn = checkpoint.cancelledIn
        return true
    }

    /// The level as a checkpoint, secrets redacted unless the run shows them.
    @inline(never)
    func checkpoint(_ level: Level) -> RunCheckpoint {
        var variables = JSONObject()
        for name in level.scope.vars.keys.sorted() {
            let value = level.scope.vars[name] ?? .null
            variables[name] = options.showSecrets ? value : secrets.redacting(value)
        }
        let inputs = options.showSecrets ? level.scope.inputs : secrets.redacting(.object(level.scope.inputs)).objectValue ?? [:]
        return RunCheckpoint(
            workflowPath: level.path, state: level.current, inputs: inputs, variables: variables,
            error: options.showSecrets ? level.scope.error : secrets.redacting(level.scope.error), cancelledIn: level.cancelledIn,
            shielded: level.shielded)
    }

    /// A restored state whose work had finished before the run stopped: bind its result and move on, or take the
    /// cancel path with the result kept, as for a call that finished while the run was being cancelled.
    @inline(never)
    func finishRestored(_ step: StepBehavior, result: JSONValue, _ level: inout Level) -> Move {
        if let name = step.result { level.scope.bind(name, result) }
        if !level.onCancelPath, signal.isCancelled { return .cancel }
        emit(level.path, .transition(from: level.current, to: step.next, edge: .next))
        return .to(step.next)
    }
}
