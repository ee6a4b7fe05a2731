import MatterFlowJSON

extension RunMachine {
    // A delay state works out how long to wait (its seconds, or the time left until its moment, by the run's
    // clock), reports it and hands the wait to the driver; a moment that does not evaluate, is malformed or lies
    // beyond `maxSeconds` is an `invalidArgumentValue` error, routed by the state's `onError`.

    /// Hands the delay to the driver, or routes the error of a moment that cannot be waited for.
    mutating func startDelay(_ delay: DelayState, waited: Duration?) -> Continuation {
        let seconds: Double
        switch delay.length {
        case .seconds(let fixed):
            seconds = Self.remaining(.seconds(rounding: fixed), after: waited).secondsValue
        case .until(let template, let maxSeconds):
            // A moment is waited for by the clock, however long the run had waited before.
            switch waitUntil(template, maxSeconds: maxSeconds) {
            case .success(let left): seconds = left
            case .failure(let error): return .move(delayFailed(delay, error))
            }
        }
        report(top.path, .delayStarted(state: top.current, seconds: seconds))
        return handOver(.delaying(delay), .delay(.seconds(rounding: seconds), cancellable: !top.onCancelPath))
    }

    /// The seconds left until a moment (0 when it has passed), or why it cannot be waited for.
    private func waitUntil(_ template: Template, maxSeconds: Double) -> Result<Double, FlowError> {
        let value: JSONValue
        do throws(FlowError) {
            value = try top.scope.evaluate(template)
        } catch {
            return .failure(error)
        }
        let moment: Double
        switch Timestamp.epochSeconds(of: value) {
        case .success(let seconds): moment = seconds
        case .failure(let reason):
            return .failure(FlowError(.invalidArgumentValue, "the delay's \"until\" is not a moment: \(reason.message)"))
        }
        let left = max(0, moment - configuration.wallClock())
        guard left <= maxSeconds else {
            return .failure(FlowError(
                .invalidArgumentValue,
                "the delay's \"until\" is \(Int(left.rounded(.up))) s away, more than its \"maxSeconds\" (\(maxSeconds))"))
        }
        return .success(left)
    }

    /// Where a delay state's error leads: its first matching `onError` route, or the level's failure.
    private mutating func delayFailed(_ delay: DelayState, _ error: FlowError) -> Move {
        let located = located(error, top.qualifiedCurrent)
        guard let route = delay.onError.firstIndex(where: { $0.errors.contains(where: located.matches) }) else {
            return .end(.failed(located))
        }
        top.scope.error = located
        // The `next` edge comes first, then the error routes' edges.
        return transition(top.planned.firstEdge + 1 + route)
    }

    /// Where a delay's end sends the level.
    mutating func delayStateEnded(_ delay: DelayState, elapsed: Bool) -> Move {
        guard elapsed else { return .cancel }
        return transition(top.planned.firstEdge)
    }
}
