import MatterFlowJSON

/// What a driver needs to run one element of a concurrent map state as a machine of its own
/// (``RunMachine/init(element:configuration:secrets:)``).
struct ElementLaunch: Sendable {
    /// The element's index in the map's items (from 0).
    let index: Int
    /// The body's place (the map state's sub-workflow).
    let place: LevelPlace
    /// The body's inputs, evaluated with the element bound.
    let inputs: JSONObject
    /// The element's tag (``RunMachine/Level/elementTag``): the map level's, then `[index]`.
    let elementTag: String
    /// The element runs inside a cancel path (the map state is on one): no cancel reaches it.
    let shielded: Bool
    /// The element as its calls' contexts name it: the map state's qualified name and its tag (`readEach[2]`).
    let element: String
    /// The commissioning session the run opened, if any: the element's session calls are made in it.
    let sessionID: String?
    /// Whether the run holds ``sessionID`` as the element starts.
    let holdsSession: Bool
    /// The onboarding payloads the run has checked, which the element does not decode again.
    var payloads = PayloadChecks()
    /// For an element a resumed run continues: its machine, restored from its own checkpoints.
    var resumed: RunMachine? = nil
    /// The number of the last call the map's elements made in this run before this launch (in an earlier attempt of
    /// a sub-workflow state around the map, say): this launch numbers its calls after it, so no key is given twice.
    var callsBefore = 0
}

/// How one element of a concurrent map state ended, as fed to ``RunMachine/elementEnded(_:)``.
struct ElementEnd: Sendable {
    let index: Int
    let end: RunMachine.LevelEnd
    /// The qualified states the element's machine entered, in order.
    let visited: [String]
    /// The warnings the element's machine reported, and any its driver added while its abandoned calls ended.
    let warnings: [String]
    /// The sessions the element may have left open on the hub.
    var sessionsInDoubt: [SessionInDoubt] = []
    /// The number of the element's last call (``ElementLaunch/callsBefore`` for a later launch of it).
    var calls = 0
}

extension ElementEnd {
    /// How element `index` of map state `element` ended, from its machine's result; `warnings` are the result's
    /// and those its driver added while the element's abandoned calls ended.
    init(_ index: Int, of element: String, result: RunResult, warnings: [String], calls: Int) {
        let missing = FlowError(.engineMisconfigured, "element \(index) of map state \(element) ended without an error")
        let end: RunMachine.LevelEnd
        switch result.outcome {
        case .succeeded: end = .succeeded(result.output)
        case .failed: end = .failed(result.error ?? missing)
        case .cancelled: end = .cancelled(result.error ?? missing)
        }
        self.init(index: index, end: end, visited: result.visitedStates, warnings: warnings, sessionsInDoubt: result.sessionsInDoubt, calls: calls)
    }
}

extension RunMachine {
    // A map state with `concurrency` K above 1 keeps up to K elements running at once, each as a machine of its
    // own driven by a driver of its own (own cancel signal, own abandoned calls, own call numbering), while the
    // map's level waits in the `mapping` phase. Each element's end is fed back as `elementEnded`; the machine
    // answers with the elements to start (`startElement`) or cancel (`cancelElement`), and `awaitElements` while
    // any runs. Results are kept by index, so the map's result lists them in element order whatever order they end
    // in, and the states they visited are listed in element order when the map ends. Once more elements failed than tolerated, or the run is cancelled, no element starts and those running
    // are cancelled (their cancel paths run): after the failures by `cancelElement` orders, on the run's cancel by
    // the run's cancel signal, to which each element's is tied. The map ends, failed or cancelled, once none runs.

    /// A concurrent map state's elements: those running and what became of those that ended.
    struct ElementRuns: Sendable {
        let step: StepProgress
        let iteration: MapIteration
        let items: [JSONValue]
        /// The next element to start (from 0).
        var next = 0
        /// The elements running, in the order they started.
        var running: [Int] = []
        /// The results of the elements that ended.
        var results: MapResults
        /// Set when more elements failed than tolerated: the map's error, once no element runs.
        var failure: FlowError?
        /// Set when the run was cancelled (or an element ended cancelled): the map takes its cancel path once no
        /// element runs.
        var cancelled = false
        /// The states each ended element visited, by index: the run's visited states list them in element order once
        /// the map ends, so that they do not depend on the order elements end in.
        var visited: [[String]]

        init(step: StepProgress, iteration: MapIteration, items: [JSONValue]) {
            self.step = step
            self.iteration = iteration
            self.items = items
            results = MapResults(count: items.count)
            visited = Array(repeating: [], count: items.count)
        }

        /// The progress as a checkpoint records it (the results no earlier checkpoint recorded), secret values
        /// redacted by `redact`.
        mutating func checkpoint(_ redact: (JSONValue) -> JSONValue) -> MapCheckpoint {
            results.checkpoint(index: next, running: running, redact)
        }
    }

    /// The machine of one element of a concurrent map state: the body's level at its start state, for its driver to
    /// start with ``start()``. It shares the run's configuration and secrets; its calls are numbered per element.
    init(element launch: ElementLaunch, configuration: Configuration, secrets: SecretValues) {
        self.configuration = configuration
        self.secrets = secrets
        let model = launch.place.model
        workflowName = model.name
        top = Level(
            place: launch.place, shielded: launch.shielded, scope: Scope(inputs: launch.inputs, run: Self.runInfo(model, configuration)),
            state: model.start ?? 0, elementTag: launch.elementTag)
        phase = .notStarted(.element)
        callCount = launch.callsBefore
        sessionID = launch.sessionID
        holdsSession = launch.holdsSession
        payloads = launch.payloads
        element = launch.element
    }

    /// Starts elements while fewer than `concurrency` run and the map goes on; waits for those running, or ends the
    /// map when none runs. `changed` records the map's progress in a checkpoint even when no element starts.
    mutating func startElements(_ runs: ElementRuns, changed: Bool = false) -> Continuation {
        var runs = runs
        var changed = changed
        while runs.failure == nil, !runs.cancelled, runs.next < runs.items.count, runs.running.count < runs.iteration.concurrency {
            if !top.onCancelPath, isCancelRequested {
                runs.cancelled = true
                break
            }
            let index = runs.next
            runs.next += 1
            changed = true
            switch launch(index: index, of: runs.step.state, runs.iteration, items: runs.items) {
            case .success(let launch):
                runs.running.append(index)
                actions.append(.startElement(launch))
            case .failure(let failure):
                // The body cannot start for this element: the element fails, as if its body had, at the map state.
                record(index, .failed(located(failure, top.qualifiedCurrent)), in: &runs)
            }
        }
        if changed, configuration.recordsCheckpoints {
            var checkpoint = runs.checkpoint { configuration.showSecrets ? $0 : secrets.redacting($0) }
            checkpoint.failure = configuration.showSecrets ? runs.failure : secrets.redacting(runs.failure)
            actions.append(.checkpoint(self.checkpoint(top, map: checkpoint)))
        }
        guard runs.running.isEmpty else { return handOver(.mapping(runs), .awaitElements) }
        for states in runs.visited { visited += states }
        if let failure = runs.failure { return attemptEnded(runs.step, .failed(failure)) }
        if runs.cancelled { return attemptEnded(runs.step, .cancelled(late: nil)) }
        return attemptEnded(runs.step, .finished(runs.results.value))
    }

    /// The launch of element `index` of the innermost level's concurrent map state `state`: its body's inputs
    /// evaluated with the element bound; the element's failure when they cannot be, or the body has no start state.
    mutating func launch(index: Int, of state: PlannedState, _ iteration: MapIteration, items: [JSONValue]) -> Result<ElementLaunch, FlowError> {
        var level = top
        level.scope = Self.elementScope(top.scope, iteration, items[index])
        switch childInputs(state, of: level) {
        case .success(let (child, inputs)):
            guard child.model.start != nil else { return .failure(missingState(child.model.startName)) }
            return .success(launch(index: index, body: child, inputs: inputs))
        case .failure(let error):
            return .failure(error)
        }
    }

    /// The launch of element `index` of the innermost level's concurrent map state, running `body` with `inputs`.
    func launch(index: Int, body: LevelPlace, inputs: JSONObject) -> ElementLaunch {
        let map = top.qualifiedCurrent + top.elementTag
        return ElementLaunch(
            index: index, place: body, inputs: inputs, elementTag: top.elementTag + "[\(index)]", shielded: top.onCancelPath,
            element: map + "[\(index)]", sessionID: sessionID, holdsSession: holdsSession, payloads: payloads,
            callsBefore: elementCalls[map] ?? 0)
    }

    /// A running element of the concurrent map state ended: its result is recorded, the elements still running are
    /// cancelled when too many have failed or the element was cancelled, and the next elements start.
    mutating func elementEnded(_ ended: ElementEnd) throws(RunMachineError) -> RunActions {
        let left = leavePhase()
        guard case .mapping(var runs) = left, let position = runs.running.firstIndex(of: ended.index) else {
            phase = left
            throw refuse(.elementEnded)
        }
        runs.running.remove(at: position)
        runs.visited[ended.index] = ended.visited
        let map = top.qualifiedCurrent + top.elementTag
        elementCalls[map] = max(elementCalls[map] ?? 0, ended.calls)
        warnings += ended.warnings
        sessionsInDoubt += ended.sessionsInDoubt
        let wasStopping = runs.failure != nil || runs.cancelled
        record(ended.index, ended.end, in: &runs)
        if !wasStopping, runs.failure != nil || runs.cancelled {
            for index in runs.running { actions.append(.cancelElement(index)) }
        }
        drive(startElements(runs, changed: true))
        return takeActions()
    }

    /// Records how an element ended: its result (a failure beyond the tolerated ones stops the map), or, for an
    /// element cancelled while the map went on, the run's cancel.
    private mutating func record(_ index: Int, _ end: LevelEnd, in runs: inout ElementRuns) {
        switch end {
        case .succeeded, .failed:
            let exceeded = keepResult(end, index: index, items: runs.items, in: &runs.results, runs.iteration, state: runs.step.state)
            if runs.failure == nil, let exceeded { runs.failure = exceeded }
        case .cancelled:
            // An element the map cancelled after too many failures ends so; any other was cancelled with the run.
            guard runs.failure == nil, !runs.cancelled else { return }
            noteCancel()
            runs.cancelled = true
        }
    }
}
