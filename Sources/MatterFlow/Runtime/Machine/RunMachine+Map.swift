import MatterFlowJSON

extension RunMachine {
    // A map state runs its body (a sub-workflow) once per element of a list. With `concurrency` 1, one element
    // after another: each element is a child level, like a sub-workflow state's, whose end is recorded before the
    // next one starts. With more, each element runs as a machine of its own (RunMachine+Elements.swift). The
    // body's generated idempotency keys differ per element (``Level/elementTag``).

    /// A map state's elements and what became of those that ran.
    struct MapProgress: Sendable {
        let iteration: MapIteration
        let items: [JSONValue]
        /// The element running, or the next to run (from 0).
        var index = 0
        /// The results of the elements that ended.
        var results: MapResults

        init(iteration: MapIteration, items: [JSONValue]) {
            self.iteration = iteration
            self.items = items
            results = MapResults(count: items.count)
        }

        /// The progress as a checkpoint records it (the results no earlier checkpoint recorded), secret values
        /// redacted by `redact`.
        mutating func checkpoint(_ redact: (JSONValue) -> JSONValue) -> MapCheckpoint {
            results.checkpoint(index: index, redact)
        }
    }

    /// Enters a map state's work: its items are evaluated and checked, then its first element starts.
    mutating func beginMap(_ progress: StepProgress) -> Continuation {
        guard let iteration = progress.state.map else {
            return attemptEnded(progress, .failed(FlowError(.engineMisconfigured, "state \(progress.state.name) is not a map state")))
        }
        switch Self.mapItems(iteration, scope: top.scope, state: top.qualifiedCurrent) {
        case .success(let items) where iteration.isConcurrent:
            return startElements(ElementRuns(step: progress, iteration: iteration, items: items))
        case .success(let items): return nextElement(progress, MapProgress(iteration: iteration, items: items))
        case .failure(let error): return attemptEnded(progress, .failed(error))
        }
    }

    /// The list a map state iterates over: its `items` evaluated, which must be a list of at most `maxItems`.
    static func mapItems(_ iteration: MapIteration, scope: Scope, state: String) -> Result<[JSONValue], FlowError> {
        let value: JSONValue
        do throws(FlowError) {
            value = try scope.evaluate(iteration.items)
        } catch {
            return .failure(error)
        }
        guard case .array(let items) = value else {
            return .failure(
                FlowError(
                    code: .invalidArgument, cause: .mapItemsNotList,
                    message: "the items of map state \(state) must be a list, found \(value.typeName); check what \"items\" refers to",
                    state: state))
        }
        guard items.count <= iteration.maxItems else {
            return .failure(
                FlowError(
                    code: .outOfRange, cause: .mapTooManyItems,
                    message: "map state \(state) was given \(items.count) items, more than its maxItems (\(iteration.maxItems)); raise \"maxItems\" if the workflow can take that many",
                    state: state))
        }
        return .success(items)
    }

    /// The next element's level is pushed and its start state entered; the map ends once every element has, or
    /// takes its cancel path when a cancel came in between two elements.
    mutating func nextElement(_ progress: StepProgress, _ map: MapProgress) -> Continuation {
        var map = map
        while map.index < map.items.count {
            if !top.onCancelPath, isCancelRequested { return attemptEnded(progress, .cancelled(late: nil)) }
            if configuration.recordsCheckpoints {
                let checkpoint = map.checkpoint { configuration.showSecrets ? $0 : secrets.redacting($0) }
                actions.append(.checkpoint(self.checkpoint(top, map: checkpoint)))
            }
            var element = top
            element.scope = Self.elementScope(top.scope, map.iteration, map.items[map.index])
            switch childInputs(progress.state, of: element) {
            case .success(let (child, inputs)):
                return push(child, inputs: inputs, elementTag: top.elementTag + "[\(map.index)]", step: progress, map: map)
            case .failure(let error):
                // The body cannot start for this element: the element fails, as if its body had, at the map state.
                if let end = record(.failed(located(error, top.qualifiedCurrent)), in: &map, state: progress.state) {
                    return attemptEnded(progress, end)
                }
            }
        }
        return attemptEnded(progress, .finished(map.results.value))
    }

    /// An element's level ended: its result is recorded and the next element starts, or the map ends (too many
    /// failures, or a cancel).
    mutating func elementEnded(_ progress: StepProgress, _ map: MapProgress, _ end: LevelEnd) -> Continuation {
        var map = map
        if let outcome = record(end, in: &map, state: progress.state) { return attemptEnded(progress, outcome) }
        return nextElement(progress, map)
    }

    /// Records how the running element ended and moves to the next; returns the map's outcome when it ends here.
    private mutating func record(_ end: LevelEnd, in map: inout MapProgress, state: PlannedState) -> StepOutcome? {
        switch end {
        case .succeeded, .failed:
            if let exceeded = keepResult(end, index: map.index, items: map.items, in: &map.results, map.iteration, state: state) {
                return .failed(exceeded)
            }
        case .cancelled:
            return .cancelled(late: nil)
        }
        map.index += 1
        return nil
    }

    /// Keeps an ended element's entry in the map's results; a tolerated failure is a warning, and the failure that
    /// exceeds `tolerateFailures` is returned as the map's error, as is `valueTooLarge` for an entry that would make the
    /// results larger than ``Scope/valueLimit`` as JSON.
    mutating func keepResult(
        _ end: LevelEnd, index: Int, items: [JSONValue], in results: inout MapResults, _ iteration: MapIteration, state: PlannedState
    ) -> FlowError? {
        let item = items[index]
        var result: JSONObject = ["index": .int(index), "item": item]
        let qualified = top.prefix + state.name
        func tooLarge() -> FlowError {
            FlowError(
                code: ErrorCause.valueTooLarge.code ?? .unknown, cause: .valueTooLarge,
                message: "the results of map state \(qualified) grow larger than \(Scope.valueLimit >> 20) MiB as JSON at element \(index); "
                    + "return less from each element (its output is kept for every element)",
                state: qualified)
        }
        switch end {
        case .succeeded(let output):
            result["status"] = "succeeded"
            result["output"] = output ?? .null
            return results.keep(.object(result), at: index, failed: false) ? nil : tooLarge()
        case .failed(let error), .cancelled(let error):
            result["status"] = "failed"
            result["error"] = Scope.json(error)
            guard results.keep(.object(result), at: index, failed: true) else { return tooLarge() }
            let failures = results.failures
            let element = "element \(index) (\(item.stringValue ?? JSONWriter.compact(item))) of map state \(qualified) failed: \(error.message)"
            guard failures <= iteration.tolerateFailures else {
                return Self.tooManyFailures(failures, iteration, state: qualified, after: element)
            }
            let warning = "\(element) (tolerated: \(failures) of \(iteration.tolerateFailures))"
            warnings.append(warning)
            report(top.path, .warning(state: state.name, message: warning))
            return nil
        }
    }

    /// The map's `mapElementsFailed` error once `failures` elements failed, more than it tolerates; `last` says which
    /// failure that was.
    static func tooManyFailures(_ failures: Int, _ iteration: MapIteration, state qualified: String, after last: String) -> FlowError {
        FlowError(
            code: .aborted, cause: .mapElementsFailed,
            message: "\(last); that is \(failures) failed elements, more than tolerateFailures (\(iteration.tolerateFailures))",
            state: qualified)
    }

    /// The scope a map's body inputs are evaluated in: the map's level, with the element bound to its variable.
    static func elementScope(_ scope: Scope, _ iteration: MapIteration, _ item: JSONValue) -> Scope {
        var scope = scope
        scope.bind(iteration.elementName, item)
        return scope
    }
}
