import MatterFlowJSON

extension RunMachine {
    // A repeat state runs its body (a sub-workflow) as attempts of one step: each attempt is the body's child
    // level; after it, the body's output is bound to the state's result and `until` is checked. While it does not
    // hold, the machine waits `delaySeconds` in the retry-delay phase (on the run's clock, cut short by a cancel)
    // and runs the next attempt, up to `maxIterations`.

    /// What a repeat state's body level adds to its element tag (``Level/elementTag``): `#<iteration>` from the
    /// second iteration on, nothing for the first or for any other state. Each iteration is new work, so its
    /// generated idempotency keys and the names (and call keys) of its map elements differ from the last one's,
    /// where a retry, the same work again, keeps them.
    static func iterationTag(_ progress: StepProgress) -> String {
        progress.state.repeating != nil && progress.attempt > 1 ? "#\(progress.attempt)" : ""
    }

    /// Records the level's checkpoint as an iteration of its repeat state's body starts, with the iteration's
    /// number: a run resumed inside the body continues the count, so `maxIterations` bounds the whole run.
    mutating func checkpointIteration(_ progress: StepProgress) {
        guard configuration.recordsCheckpoints else { return }
        actions.append(.checkpoint(checkpoint(top, step: progress)))
    }

    /// An attempt of a repeat state's body ended: the state ends (the condition holds, the body failed, the run
    /// was cancelled, or the iterations are used up), or the next attempt follows after the delay.
    mutating func iterationEnded(_ progress: StepProgress, _ repeating: RepeatIteration, _ outcome: StepOutcome) -> Continuation {
        guard case .finished(let output) = outcome else { return .move(stepEnded(progress.state, outcome)) }
        let qualified = top.qualifiedCurrent
        guard let name = progress.state.step?.result else {
            return .move(.end(.failed(FlowError(.engineMisconfigured, "repeat state \(qualified) has no result to check"))))
        }
        top.scope.bind(name, output)
        let holds: Bool
        do throws(FlowError) {
            holds = try top.scope.holds(repeating.until)
        } catch {
            return .move(stepEnded(progress.state, .failed(error)))
        }
        if holds { return .move(stepEnded(progress.state, .finished(output))) }
        guard progress.attempt < repeating.maxIterations else {
            let error = FlowError(
                code: .resourceExhausted, cause: .repeatExhausted,
                message: "repeat state \(qualified) ran its body \(repeating.maxIterations) times (its maxIterations) and \"until\" never held; raise \"maxIterations\" or \"delaySeconds\" if it needs longer",
                state: qualified)
            return .move(stepEnded(progress.state, .failed(error)))
        }
        return handOver(.retryDelay(progress), .delay(.seconds(rounding: repeating.delaySeconds), cancellable: !top.onCancelPath))
    }
}
