import MatterFlowJSON

extension RunMachine {
    /// What a resumed element's machine takes from its map state: the element, and the body inputs its map's level
    /// still produces (secret values the journal never kept).
    struct ElementBase: Sendable {
        /// The element's tag (``Level/elementTag``).
        let tag: String
        /// The element as its calls' contexts name it (``HubCallContext/element``).
        let id: String
        /// The map state is on a cancel path.
        let shielded: Bool
        let inputs: JSONObject
    }

    /// A concurrent map state restored from a journal: its progress, and a launch for each element that was running
    /// (its machine restored from its own checkpoints, or none to start its body afresh).
    struct ResumedElements: Sendable {
        var runs: ElementRuns
        var launches: [ElementLaunch]
    }

    /// The innermost level's concurrent map state restored from its checkpoint: the results of the elements that had
    /// ended (not run again), and each running element continued from its own checkpoints, or started afresh when it
    /// had entered no state.
    /// - Throws: ``FlowError`` `invalidArgumentValue` when the checkpoint does not fit the map's items, or an element's
    ///   checkpoints do not fit its body.
    func restoredElements(
        _ state: PlannedState, _ iteration: MapIteration, _ checkpoint: RunCheckpoint, point: ResumePoint
    ) throws(FlowError) -> ResumedElements {
        let qualified = top.qualifiedCurrent
        guard let saved = checkpoint.map else {
            throw FlowError(.invalidArgumentValue, "the checkpoint of map state \(qualified) does not say which elements were running")
        }
        let items: [JSONValue]
        switch Self.mapItems(iteration, scope: top.scope, state: qualified) {
        case .success(let list): items = list
        case .failure(let error): throw FlowError(.invalidArgumentValue, "the items of map state \(qualified) cannot be read again: \(error.message)")
        }
        guard saved.index <= items.count else {
            throw FlowError(.invalidArgumentValue, "map state \(qualified) had started \(saved.index) elements, but its items now have \(items.count)")
        }
        var runs = ElementRuns(step: StepProgress(state), iteration: iteration, items: items)
        runs.next = saved.index
        runs.running = saved.running
        for result in saved.results {
            guard let index = result["index"]?.intValue, index >= 0, index < saved.index, !runs.results.hasEnded(index), !saved.running.contains(index)
            else {
                throw FlowError(.invalidArgumentValue, "the checkpoint of map state \(qualified) lists a result for no element that ended; the journal was written by another version")
            }
            runs.results.restore(result, at: index)
        }
        var launches: [ElementLaunch] = []
        for index in saved.running {
            var level = top
            level.scope = Self.elementScope(top.scope, iteration, items[index])
            guard let child = top.place.child(of: state) else {
                throw FlowError(.invalidArgumentValue, "the body of map state \(qualified) (\(state.childPath)) was not loaded")
            }
            let tag = top.elementTag + "[\(index)]"
            let id = qualified + tag
            if let resumed = point.elements.first(where: { $0.index == index }), let first = resumed.levels.first {
                guard first.workflowPath == child.path else {
                    throw FlowError(
                        .invalidArgumentValue,
                        "element \(index) of map state \(qualified) was running \(first.workflowPath.joined(separator: "/")), not \(child.path.joined(separator: "/")); the workflow files changed since the run")
                }
                let machine = try RunMachine(
                    place: child,
                    resumingAt: ResumePoint(
                        levels: resumed.levels, completedStep: resumed.completedStep, cancel: point.cancel, callsBefore: resumed.callsBefore,
                        sessionID: point.sessionID),
                    configuration: configuration, secrets: secrets,
                    element: ElementBase(tag: tag, id: id, shielded: top.onCancelPath, inputs: Self.availableInputs(state, scope: level.scope)))
                launches.append(
                    ElementLaunch(
                        index: index, place: child, inputs: machine.top.scope.inputs, elementTag: tag, shielded: top.onCancelPath, element: id,
                        sessionID: point.sessionID, resumed: machine))
            } else {
                switch childInputs(state, of: level) {
                case .success(let (place, inputs)):
                    launches.append(
                        ElementLaunch(
                            index: index, place: place, inputs: inputs, elementTag: tag, shielded: top.onCancelPath, element: id,
                            sessionID: point.sessionID))
                case .failure(let error):
                    throw FlowError(.invalidArgumentValue, "element \(index) of map state \(qualified) cannot start again: \(error.message)")
                }
            }
        }
        return ResumedElements(runs: runs, launches: launches)
    }
}
