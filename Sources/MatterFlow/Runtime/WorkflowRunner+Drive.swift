import MatterFlowJSON

extension WorkflowRunner {
    // A run is one loop over a stack of levels: a sub-workflow state pushes its child's level, and a level's end
    // pops it and becomes the outcome of its parent's state. The loop only awaits; everything between awaits
    // happens in synchronous functions that are never inlined, so the frame a waiting run keeps holds the stack
    // and the awaited work, however deep the sub-workflows nest.

    /// Work the run's loop awaits, or the run's end. Small on purpose: the loop's frame holds it while it waits.
    enum Work {
        case ended(LevelEnd)
        /// A wait state's event.
        case event(WaitRequest)
        /// The hub's status, for the current state's next guard.
        case status(shielded: Bool)
        case call(HubCall, shielded: Bool)
        /// The delay before a retry.
        case delay(Duration, shielded: Bool)
    }

    /// Runs the workflow of a plan with resolved inputs, sub-workflows included.
    ///
    /// `nonisolated(nonsending)` keeps the run on the executor it is already on: without it, every call would hop
    /// to the generic executor, and each hop checks the task's executor preference under a lock. Each kind of
    /// work is awaited in a function of its own, so the loop's frame, which the run keeps throughout, holds only
    /// the levels and the next work.
    @inline(never)
    nonisolated(nonsending) func run(_ plan: ExecutionPlan, inputs: JSONObject, record: inout Record) async -> LevelEnd {
        var levels = start(plan, inputs: inputs)
        var work = drive(after: nil, &levels, &record)
        while true {
            switch work {
            case .ended(let end): return end
            case .event(let request): work = await awaitEvent(request, &levels, &record)
            case .status(let shielded): work = await awaitStatus(shielded: shielded, &levels, &record)
            case .call(let call, let shielded): work = await awaitCall(call, shielded: shielded, &levels, &record)
            case .delay(let duration, let shielded): work = await awaitDelay(duration, shielded: shielded, &levels, &record)
            }
        }
    }

    @inline(never)
    private nonisolated(nonsending) func awaitEvent(_ request: WaitRequest, _ levels: inout Stack, _ record: inout Record) async -> Work {
        let outcome = await inbox.wait(for: request.matches, timeout: request.timeout, clock: options.clock, signal: request.signal)
        return carryOn(.move(waitEnded(outcome, request.state, &levels.top)), &levels, &record)
    }

    @inline(never)
    private nonisolated(nonsending) func awaitStatus(shielded: Bool, _ levels: inout Stack, _ record: inout Record) async -> Work {
        if !abandoned.isEmpty { await settleAbandoned(&levels, &record) }
        let outcome = await race(onCancelPath: shielded, state: levels.top.current).status(hub: hub, structure: options.structureID)
        return carryOn(guardEnded(outcome, &levels, &record), &levels, &record)
    }

    @inline(never)
    private nonisolated(nonsending) func awaitCall(_ call: HubCall, shielded: Bool, _ levels: inout Stack, _ record: inout Record) async -> Work {
        if !abandoned.isEmpty { await settleAbandoned(&levels, &record) }
        let race = race(onCancelPath: shielded, state: levels.top.current)
        let timeout = Duration.seconds(rounding: call.plan.timeoutSeconds)
        let outcome: RaceOutcome<JSONValue>
        if let context = callContexts.next(for: call.plan) {
            // The race's task inherits the context, so the hub sees it while it serves the call.
            outcome = await HubCallContext.$current.withValue(context) {
                await race.call(call.plan, hub: hub, structure: options.structureID, arguments: call.arguments, timeout: timeout)
            }
        } else {
            outcome = await race.call(call.plan, hub: hub, structure: options.structureID, arguments: call.arguments, timeout: timeout)
        }
        callContexts.ended(call.plan, outcome)
        return carryOn(callEnded(outcome, call, &levels, &record), &levels, &record)
    }

    /// Waits, before a hub call, for the run's abandoned calls to end (see ``AbandonedCalls``); each wait, and each
    /// call given up, is a warning.
    @inline(never)
    private nonisolated(nonsending) func settleAbandoned(_ levels: inout Stack, _ record: inout Record) async {
        var warnings: [String] = []
        await abandoned.settle { report in
            switch report {
            case .waiting(let call):
                warnings.append(
                    "the hub has not ended \(call), abandoned \(Int(StepRace.gracePeriod.secondsValue)) s ago; "
                        + "waiting up to \(Int(AbandonedCalls.limit.secondsValue)) s for it before calling the hub again")
            case .givenUp(let call):
                warnings.append(
                    "the hub still runs \(call) after \(Int(AbandonedCalls.limit.secondsValue)) s more; the run calls the hub "
                        + "again while it runs, so the Hub contract (one call at a time per run) is not kept: check the hub's cancellation")
            }
            // Reported as it happens, so that a trace shows why the run is waiting.
            emit(levels.top.path, .warning(state: levels.top.current, message: warnings[warnings.count - 1]))
        }
        record.warnings.append(contentsOf: warnings)
    }

    @inline(never)
    private nonisolated(nonsending) func awaitDelay(_ duration: Duration, shielded: Bool, _ levels: inout Stack, _ record: inout Record) async -> Work {
        let elapsed = await race(onCancelPath: shielded).delay(duration)
        return carryOn(delayEnded(elapsed, &levels, &record), &levels, &record)
    }

    /// The run's levels: the innermost one, which is running, and the ones waiting for their sub-workflow state
    /// to end.
    struct Stack {
        var top: Level
        /// Outermost first.
        var parents: [Level] = []

        var depth: Int { parents.count }

        mutating func push(_ level: consuming Level) {
            // Swapped rather than copied: a copy would retain every member of the level.
            var parent = level
            swap(&top, &parent)
            parents.append(parent)
        }

        mutating func pop() {
            top = parents.removeLast()
        }
    }

    /// The run's stack, with only its top-level level.
    @inline(never)
    func start(_ plan: ExecutionPlan, inputs: JSONObject) -> Stack {
        Stack(top: makeLevel(plan, inputs: inputs, shielded: false))
    }

    /// A level with its inputs, restored from its checkpoint when the run resumes.
    @inline(never)
    func makeLevel(_ plan: ExecutionPlan, inputs: JSONObject, shielded: Bool) -> Level {
        let run = Scope.RunInfo(id: runID, workflow: plan.name, structureID: options.structureID)
        var level = Level(plan: plan, shielded: shielded, scope: Scope(inputs: inputs, run: run), current: plan.start)
        level.restoring = restore(&level)
        return level
    }

    /// Carries on after awaited work: the work that follows, or the move it decided and then states until the
    /// next work to await.
    @inline(never)
    func carryOn(_ next: Next, _ levels: inout Stack, _ record: inout Record) -> Work {
        switch next {
        case .work(let work): return work
        case .move(let move): return drive(after: move, &levels, &record)
        case .descended: return drive(after: nil, &levels, &record)
        }
    }

    /// What a step's progress leaves for the loop.
    enum Next {
        case work(Work)
        /// The state's work is done: the level moves on.
        case move(Move)
        /// A sub-workflow's level was pushed: enter its state.
        case descended
    }

    /// Takes a move (nil: enter the top level's current state), then runs states until the run ends or work must
    /// be awaited.
    @inline(never)
    func drive(after first: Move?, _ levels: inout Stack, _ record: inout Record) -> Work {
        var move = first
        while true {
            var ended: LevelEnd?
            var entering: PlannedState?
            if let taken = move {
                move = nil
                ended = advance(taken, &levels.top, &record)
            }
            if ended == nil {
                entering = levels.top.plan.state(named: levels.top.current)
                if entering == nil { ended = .failed(missingState(levels.top.current)) }
            }
            guard let state = entering else {
                switch levelEnded(ended ?? .failed(missingState(levels.top.current)), &levels, &record) {
                case .work(let work): return work
                case .move(let next): move = next
                case .descended: break
                }
                continue
            }
            switch enter(state, &levels.top, &record) {
            case .decided(let decided):
                move = decided
            case .wait:
                switch prepareWait(state, levels.top) {
                case .success(let request): return .event(request)
                case .failure(let error): move = .end(.failed(error))
                }
            case .step:
                switch beginStep(state, &levels, &record) {
                case .work(let work): return work
                case .move(let next): move = next
                case .descended: break
                }
            }
        }
    }

    @inline(never)
    func missingState(_ name: String) -> FlowError {
        FlowError(.engineMisconfigured, "state \"\(name)\" does not exist (the workflow was not validated)")
    }

    /// What entering a state leaves for the loop: a move already made, or work to start.
    enum Entry {
        case decided(Move)
        case wait
        case step
    }

    /// Enters a state: records and reports it, then does its work unless that work must be awaited.
    @inline(never)
    func enter(_ planned: PlannedState, _ level: inout Level, _ record: inout Record) -> Entry {
        record.visited.append(planned.qualifiedName)
        emit(level.path, .stateEntered(state: level.current, type: planned.typeName))
        if let checkpoints = options.checkpoints { checkpoints(checkpoint(level)) }

        // A restored level re-enters its state; one that leads to a deeper restored level must descend before
        // anything else, so that the innermost level is the first to act (or to take its cancel path).
        var descending = false
        if level.restoring {
            level.restoring = false
            descending = resume?.descending == true
            if !descending, let completed = resume?.takeCompletedStep(), let step = planned.step {
                return .decided(finishRestored(step.behavior, result: completed, &level))
            }
        }
        if !descending, !level.onCancelPath, signal.isCancelled, !planned.isTerminal {
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
            // A level restored on its cancel path (a resumed run) was cancelled before this process began.
            let cancelledIn = level.cancelledIn.map { record.cancelledState ?? level.prefix + $0 }
            return finish(end, cancelledIn: cancelledIn, ended: level.current)
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
