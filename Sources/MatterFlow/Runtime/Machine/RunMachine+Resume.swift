import MatterFlowJSON

extension RunMachine {
    /// What a resumed run brings to its innermost state, taken once as the state's work begins (or dropped when a
    /// cancel leaves the state first): it belongs to that state, not to a later one or the cancel path's. A
    /// reference, nil but in a resumed run, so that every machine keeps little room for it.
    final class Resumed: Sendable {
        /// A map state's progress (for a map that runs elements at once, with its running elements), continued as the
        /// run re-enters the state.
        let map: ResumedMap?
        /// A repeat state's iteration its body was starting, or a retried step's attempt about to run with the
        /// retries used; nil for a first attempt.
        let step: StepProgress?
        /// With `step` after a retry: the delay drawn before its attempt, of which the run waits what is left when it
        /// stopped in it (`waited`).
        let retryDelay: Double?
        /// How long the state had been waiting (a question, an event, a fixed delay, a retry's delay), taken off its
        /// timeout or delay when it waits again.
        let waited: Duration?

        init(map: ResumedMap?, step: StepProgress?, retryDelay: Double?, waited: Duration?) {
            self.map = map
            self.step = step
            self.retryDelay = retryDelay
            self.waited = waited
        }

        /// The progress of the step `state` begins: the resumed one when it is that state's, else a first attempt.
        func progress(of state: PlannedState) -> StepProgress {
            step.flatMap { $0.state === state ? $0 : nil } ?? StepProgress(state)
        }
    }

    /// A run at a journaled position (a ``ResumePoint``): each level restored from its checkpoint (inputs,
    /// variables, error, cancel path), every outer level waiting for its sub-workflow state's child, and the
    /// innermost level about to re-enter its state. With `point.cancel`, the run starts cancelled, so the
    /// innermost level takes its cancel path first, then each outer one.
    ///
    /// A level's checkpoint may lack inputs (secret values the journal never kept): a sub-workflow level gets them
    /// from its parent's templates, evaluated in the parent's restored scope, where they still resolve.
    /// - Throws: ``FlowError`` `invalidArgumentValue` when a checkpoint names a state the workflow lacks, or an
    ///   outer state that runs no sub-workflow.
    /// - Parameter element: For the machine of a running element of a concurrent map state: the element, whose body's
    ///   level is the point's first (its `inputs` complete that level's checkpoint's).
    init(
        place: LevelPlace, resumingAt point: ResumePoint, configuration: Configuration, secrets: SecretValues = SecretValues(),
        element: ElementLaunch? = nil
    ) throws(FlowError) {
        guard !point.levels.isEmpty else {
            throw FlowError(.invalidArgumentValue, "the resume point has no checkpoint; there is nothing to continue from")
        }
        point.secretValues.forEach(secrets.add)
        if element == nil { configuration.sharedSecrets?.add(secrets) }
        var restored: [ParentLevel] = []
        var place = place
        var enclosing: (level: Level, state: PlannedState, map: MapProgress?, step: StepProgress)?
        for (index, checkpoint) in point.levels.enumerated() {
            var inputs = checkpoint.inputs
            if index == 0, let element {
                for member in element.inputs.members where inputs[member.key] == nil { inputs[member.key] = member.value }
            }
            if let enclosing {
                var scope = enclosing.level.scope
                if let map = enclosing.map { scope = Self.elementScope(scope, map.iteration, map.items[map.index]) }
                for member in Self.availableInputs(enclosing.state, scope: scope).members where inputs[member.key] == nil {
                    inputs[member.key] = member.value
                }
            }
            let model = place.model
            // A level's secret inputs are the run's secrets, whoever filled them in (``childInputs(_:of:)``).
            for name in model.secretInputs { inputs[name].map(secrets.add) }
            guard let number = model.number(of: checkpoint.state) else {
                throw FlowError(
                    .invalidArgumentValue,
                    "workflow \(model.name) has no state \"\(checkpoint.state)\" any more; the workflow files changed since the run")
            }
            let state = model.states[number]
            var level = Level(
                place: place, shielded: enclosing?.level.onCancelPath ?? element?.shielded ?? false,
                scope: Scope(inputs: inputs, run: Self.runInfo(model, configuration)), state: number,
                cancelledIn: checkpoint.cancelledIn,
                elementTag: (enclosing?.level.elementTag ?? element?.elementTag ?? "")
                    + (enclosing.map { $0.map.map { "[\($0.index)]" } ?? Self.iterationTag($0.step) } ?? ""))
            level.scope.vars = checkpoint.variables
            level.scope.error = checkpoint.error
            guard index + 1 < point.levels.count else {
                self.configuration = configuration
                self.secrets = secrets
                workflowName = restored.first?.level.model.name ?? model.name
                parents = restored
                top = level
                phase = .notStarted(.resumed(completedStep: point.completedStep))
                isCancelRequested = point.cancel
                callCount = point.callsBefore
                elementCalls = point.elementCalls
                sessionID = point.sessionID
                holdsSession = point.holdsSession
                self.element = element?.element
                let step = try StepProgress(state, resuming: checkpoint, qualified: level.prefix + checkpoint.state)
                var map: ResumedMap?
                if let iteration = state.map, checkpoint.map != nil {
                    if iteration.isConcurrent {
                        map = .concurrent(try restoredElements(step, iteration, checkpoint, point: point))
                    } else if let progress = try Self.restoredMap(state, checkpoint, scope: level.scope, qualified: level.prefix + checkpoint.state) {
                        map = .sequential(progress)
                    }
                }
                let resumedStep = step.attempt > 1 ? step : nil
                let retryDelay = resumedStep == nil ? nil : checkpoint.retry?.delaySeconds
                // Only the wait the run stood in (a retry's delay included): not one its cancel path makes.
                let waited = !point.cancel && (Self.waits(state.state.kind) || retryDelay != nil) ? point.waited : nil
                if map != nil || resumedStep != nil || waited != nil {
                    resumed = Resumed(map: map, step: resumedStep, retryDelay: retryDelay, waited: waited)
                }
                return
            }
            guard state.isSubworkflow, let child = place.child(of: state) else {
                throw FlowError(
                    .invalidArgumentValue,
                    "state \(checkpoint.state) of \(model.name) does not run a sub-workflow, yet the run had entered one from it; the workflow files changed since the run")
            }
            let map = try Self.restoredMap(state, checkpoint, scope: level.scope, qualified: level.prefix + checkpoint.state)
            let step = try StepProgress(state, resuming: checkpoint, qualified: level.prefix + checkpoint.state)
            restored.append(ParentLevel(level: level, step: step, map: map))
            enclosing = (level, state, map, step)
            place = child
        }
        throw FlowError(.invalidArgumentValue, "the resume point has no checkpoint; there is nothing to continue from")
    }

    /// A resumed run's start: every level re-enters its state, outermost first; the innermost one then binds the
    /// result of work that had finished and moves on, or does its state's work.
    mutating func resumeEntries(completedStep: JSONValue?) -> Continuation {
        // Each outer level is the innermost one while it re-enters.
        let inner = top
        let showSecrets = configuration.showSecrets
        let secrets = secrets
        for position in parents.indices {
            top = parents[position].level
            let map = parents[position].map?.checkpoint { showSecrets ? $0 : secrets.redacting($0) }
            let step = parents[position].step
            enter(step.state, map: map, step: step)
        }
        top = inner
        let state = top.planned
        enter(state, step: resumed?.step, retryDelay: resumed?.retryDelay)
        if let resumed, let map = resumed.map {
            self.resumed = nil
            let step = resumed.progress(of: state)
            switch map {
            case .sequential(let map):
                // The element the checkpoint was about to start starts again: those before it had ended.
                return nextElement(step, map)
            case .concurrent(let elements):
                for launch in elements.launches { actions.append(.startElement(launch)) }
                return startElements(elements.runs, changed: true)
            }
        }
        if let completedStep, let step = state.step {
            // The state's work had finished: no iteration or attempt of it begins.
            resumed = nil
            return .move(finishRestored(step, result: completedStep))
        }
        return handOver(.entered(state), .proceed)
    }

    /// A restored state whose work had finished before the run stopped: bind its result and move on, or take the
    /// cancel path with the result kept, as for a call that finished while the run was being cancelled.
    mutating func finishRestored(_ step: PlannedStep, result: JSONValue) -> Move {
        if let name = step.result { top.scope.bind(name, result) }
        if !top.onCancelPath, isCancelRequested { return .cancel }
        return transition(top.planned.firstEdge)
    }

    /// The level as a checkpoint, secrets redacted unless the run shows them.
    /// With `step`, the checkpoint records its repeat's iteration or its retries (``StepProgress/retries(delaySeconds:)``),
    /// with `retryDelay`, the delay before the attempt.
    func checkpoint(_ level: Level, map: MapCheckpoint? = nil, step: StepProgress? = nil, retryDelay: Double? = nil) -> RunCheckpoint {
        let showSecrets = configuration.showSecrets
        var variables = JSONObject()
        for name in level.scope.vars.keys.sorted() {
            let value = level.scope.vars[name] ?? .null
            variables[name] = showSecrets ? value : secrets.redacting(value)
        }
        let inputs = showSecrets ? level.scope.inputs : secrets.redacting(.object(level.scope.inputs)).objectValue ?? [:]
        return RunCheckpoint(
            workflowPath: level.path, state: level.current, inputs: inputs, variables: variables,
            error: showSecrets ? level.scope.error : secrets.redacting(level.scope.error), cancelledIn: level.cancelledIn,
            shielded: level.shielded, map: map, element: element,
            repeatIteration: step.flatMap { $0.state.repeating == nil ? nil : $0.attempt }, retry: step?.retries(delaySeconds: retryDelay))
    }

    /// A map state's progress restored from its checkpoint: its items evaluated again in the level's restored
    /// scope, and the results of the elements that had ended; nil for a sub-workflow state.
    /// - Throws: ``FlowError`` `invalidArgumentValue` when the checkpoint lacks the progress, or the items no longer
    ///   evaluate to a list holding the element.
    static func restoredMap(
        _ state: PlannedState, _ checkpoint: RunCheckpoint, scope: Scope, qualified: String
    ) throws(FlowError) -> MapProgress? {
        guard let iteration = state.map else { return nil }
        guard let saved = checkpoint.map else {
            throw FlowError(
                .invalidArgumentValue,
                "the checkpoint of map state \(qualified) does not say which element was running; the journal was written by another version")
        }
        try Self.requireWhole(saved, qualified: qualified)
        guard saved.running.isEmpty, saved.results.count == saved.index else {
            throw FlowError(
                .invalidArgumentValue,
                "the checkpoint of map state \(qualified) lists \(saved.results.count) results and \(saved.running.count) running elements for element \(saved.index); the journal was written by another version")
        }
        // Elements 0 through the one running had started.
        let items = try restoredItems(iteration, scope: scope, qualified: qualified, started: saved.index + 1)
        var map = MapProgress(iteration: iteration, items: items)
        map.index = saved.index
        for (index, result) in saved.results.enumerated() { map.results.restore(result, at: index) }
        return map
    }

    /// Refuses a map state's checkpoint that lists only the results new since the map's previous checkpoint.
    /// - Throws: ``FlowError`` `invalidArgumentValue` when it leaves results out.
    static func requireWhole(_ saved: MapCheckpoint, qualified: String) throws(FlowError) {
        guard saved.earlier == 0 else {
            throw FlowError(
                .invalidArgumentValue,
                "the checkpoint of map state \(qualified) lists only the results of elements that ended since its previous checkpoint, "
                    + "which holds \(saved.earlier) more, and that one is missing or does not fit; resume from checkpoints folded onto "
                    + "the ones before them (RunCheckpoint.folded(onto:)), as the journal's reader does")
        }
    }

    /// A restored map state's items, evaluated again in its level's restored scope: still a list, holding at least the
    /// `started` elements the checkpoint says had started.
    static func restoredItems(_ iteration: MapIteration, scope: Scope, qualified: String, started: Int) throws(FlowError) -> [JSONValue] {
        let items: [JSONValue]
        switch mapItems(iteration, scope: scope, state: qualified) {
        case .success(let list): items = list
        case .failure(let error): throw FlowError(.invalidArgumentValue, "the items of map state \(qualified) cannot be read again: \(error.message)")
        }
        guard started <= items.count else {
            throw FlowError(.invalidArgumentValue, "map state \(qualified) had started \(started) elements, but its items now have \(items.count)")
        }
        return items
    }

    /// Whether a state of this kind waits with a time limit a resumed run carries over: a question, an event wait,
    /// a delay.
    static func waits(_ kind: WorkflowState.Kind) -> Bool {
        switch kind {
        case .wait, .ask, .delay: true
        case .action, .workflow, .choice, .assign, .succeed, .fail: false
        }
    }

    /// A wait's length (a timeout, a fixed delay), less what a resumed run had waited in that state before it was
    /// handed back (`waited`, nil when it had not).
    static func remaining(_ length: Duration, after waited: Duration?) -> Duration {
        waited.map { max(.zero, length - $0) } ?? length
    }
}
