import MatterFlowJSON

extension WorkflowRunner {
    // A level's loop (``WorkflowRunner/execute(_:inputs:shielded:record:)``) only awaits; everything between
    // awaits happens here, in synchronous functions that are never inlined, so the frame a waiting run keeps holds
    // the level and little else.

    @inline(never)
    func makeLevel(_ plan: ExecutionPlan, inputs: JSONObject, shielded: Bool) -> Level {
        let run = Scope.RunInfo(id: runID, workflow: plan.workflow.name, structureID: options.structureID)
        return Level(plan: plan, shielded: shielded, scope: Scope(inputs: inputs, run: run), current: plan.workflow.start)
    }

    /// Where a level's loop pauses: at its end, or at work to await.
    enum Pause {
        case ended(LevelEnd)
        case wait(PlannedState)
        case step(PlannedState)
    }

    /// Takes the move the awaited work decided (if any), then runs states until the level ends or a state's work
    /// must be awaited.
    @inline(never)
    func drive(after awaited: Move?, _ level: inout Level, _ record: inout Record) -> Pause {
        var move = awaited
        while true {
            if let taken = move, let end = advance(taken, &level, &record) { return .ended(end) }
            guard let state = level.plan.state(named: level.current) else { return .ended(.failed(missingState(level.current))) }
            switch enter(state, &level, &record) {
            case .decided(let decided): move = decided
            case .wait: return .wait(state)
            case .step: return .step(state)
            }
        }
    }

    @inline(never)
    func missingState(_ name: String) -> FlowError {
        FlowError(.hubFailure, "state \"\(name)\" does not exist (the workflow was not validated)")
    }

    /// What entering a state leaves for the level's loop: a move already made, or work to await.
    enum Entry {
        case decided(Move)
        case wait
        case step
    }

    /// Enters a state: records and reports it, then does its work unless that work must be awaited.
    @inline(never)
    func enter(_ planned: PlannedState, _ level: inout Level, _ record: inout Record) -> Entry {
        record.visited.append(planned.qualifiedName)
        emit(level.path, .stateEntered(state: level.current, type: planned.state.kind.typeName))
        if let checkpoints = options.checkpoints { checkpoints(checkpoint(level)) }

        // A restored level re-enters its state; one that leads to a deeper restored level must descend before
        // anything else, so that the innermost level is the first to act (or to take its cancel path).
        var descending = false
        if level.restoring {
            level.restoring = false
            descending = resume?.descending == true
            if !descending, let completed = resume?.takeCompletedStep(), let step = planned.step {
                return .decided(finishRestored(step, result: completed, &level))
            }
        }
        if !descending, !level.onCancelPath, signal.isCancelled, !planned.state.isTerminal {
            // A cancel that arrived between states takes effect before the state does any work.
            return .decided(.cancel)
        }
        switch planned.state.kind {
        case .succeed(let succeed): return .decided(self.succeed(succeed, level))
        case .fail(let fail): return .decided(.end(.failed(raise(fail, scope: level.scope, state: level.qualifiedCurrent))))
        case .choice(let choice): return .decided(choose(choice, level))
        case .assign(let assign): return .decided(self.assign(assign, &level, &record))
        case .wait: return .wait
        case .action, .workflow: return .step
        }
    }

    /// Takes a move; returns how the level ended once it has.
    @inline(never)
    func advance(_ move: Move, _ level: inout Level, _ record: inout Record) -> LevelEnd? {
        switch move {
        case .to(let next):
            level.current = next
        case .end(let end):
            return finish(end, cancelledIn: level.cancelledIn == nil ? nil : record.cancelledState, ended: level.current)
        case .cancel:
            if record.cancelledState == nil { record.cancelledState = level.qualifiedCurrent }
            guard let next = takeCancel(&level) else {
                return .cancelled(cancelError(in: record.cancelledState ?? level.qualifiedCurrent, path: nil))
            }
            level.current = next
        }
        return nil
    }
}
