import MatterFlowJSON

extension RunMachine {
    /// A map state's progress restored for the innermost level of a resumed run (``Resumed/map``).
    enum ResumedMap: Sendable {
        /// A map that runs one element at a time, at the element its checkpoint was about to start.
        case sequential(MapProgress)
        /// A map that runs elements at once, with the elements that were running.
        case concurrent(ResumedElements)
    }

    /// A concurrent map state restored from a journal: its progress, and a launch for each element that was running
    /// (its machine restored from its own checkpoints, or none to start its body afresh).
    final class ResumedElements: Sendable {
        let runs: ElementRuns
        let launches: [ElementLaunch]

        init(runs: ElementRuns, launches: [ElementLaunch]) {
            self.runs = runs
            self.launches = launches
        }
    }

    /// The innermost level's concurrent map state restored from its checkpoint: the results of the elements that had
    /// ended (not run again), and each running element continued from its own checkpoints, or started afresh when it
    /// had entered no state.
    /// - Throws: ``FlowError`` `invalidArgumentValue` when the checkpoint does not fit the map's items, or an element's
    ///   checkpoints do not fit its body.
    mutating func restoredElements(
        _ step: StepProgress, _ iteration: MapIteration, _ checkpoint: RunCheckpoint, point: ResumePoint
    ) throws(FlowError) -> ResumedElements {
        let state = step.state
        let qualified = top.qualifiedCurrent
        guard let saved = checkpoint.map else {
            throw FlowError(.invalidArgumentValue, "the checkpoint of map state \(qualified) does not say which elements were running")
        }
        try Self.requireWhole(saved, qualified: qualified)
        let items = try Self.restoredItems(iteration, scope: top.scope, qualified: qualified, started: saved.index)
        var runs = ElementRuns(step: step, iteration: iteration, items: items)
        runs.next = saved.index
        runs.running = saved.running
        for result in saved.results {
            guard let index = result["index"]?.intValue, index >= 0, index < saved.index, !runs.results.hasEnded(index), !saved.running.contains(index)
            else {
                throw FlowError(.invalidArgumentValue, "the checkpoint of map state \(qualified) lists a result for no element that ended; the journal was written by another version")
            }
            runs.results.restore(result, at: index)
        }
        // A map that had failed starts no more elements and fails once its running ones end. A checkpoint from
        // before the map's error was recorded still shows failures past the tolerance.
        runs.failure = saved.failure
        if runs.failure == nil, runs.results.failures > iteration.tolerateFailures {
            runs.failure = Self.tooManyFailures(
                runs.results.failures, iteration, state: qualified, after: "elements of map state \(qualified) failed before the run stopped")
        }
        guard let child = top.place.child(of: state) else {
            throw FlowError(.invalidArgumentValue, "the body of map state \(qualified) (\(state.childPath)) was not loaded")
        }
        var launches: [ElementLaunch] = []
        for index in saved.running {
            guard let resumed = point.elements.first(where: { $0.index == index }), let first = resumed.levels.first else {
                if runs.failure != nil {
                    // It had entered no state: the map that failed cancels it before it does any work.
                    runs.running.removeAll { $0 == index }
                    continue
                }
                switch launch(index: index, of: state, iteration, items: items) {
                case .success(let launch): launches.append(launch)
                case .failure(let error):
                    throw FlowError(.invalidArgumentValue, "element \(index) of map state \(qualified) cannot start again: \(error.message)")
                }
                continue
            }
            guard first.workflowPath == child.path else {
                throw FlowError(
                    .invalidArgumentValue,
                    "element \(index) of map state \(qualified) was running \(first.workflowPath.joined(separator: "/")), not \(child.path.joined(separator: "/")); the workflow files changed since the run")
            }
            // The body's inputs that still evaluate (secret values the journal never kept) complete its checkpoint's.
            let scope = Self.elementScope(top.scope, iteration, items[index])
            var launch = launch(index: index, body: child, inputs: Self.availableInputs(state, scope: scope))
            launch.resumed = try RunMachine(
                place: child,
                resumingAt: ResumePoint(
                    // An element of a map that had failed was being cancelled: it goes on along its cancel path.
                    levels: resumed.levels, completedStep: resumed.completedStep, cancel: point.cancel || runs.failure != nil,
                    callsBefore: resumed.callsBefore,
                    sessionID: point.sessionID, holdsSession: point.holdsSession),
                configuration: configuration, secrets: secrets, element: launch)
            launches.append(launch)
        }
        return ResumedElements(runs: runs, launches: launches)
    }
}
