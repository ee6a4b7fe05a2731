import MatterFlowJSON

extension WorkflowRunner {
    // A wait state: its match is evaluated and reported before the run's loop awaits the event; the event, the
    // timeout or a cancel then decides where the level goes.

    /// The event a wait state waits for, and how the wait may end.
    struct WaitRequest {
        let state: WaitState
        let matches: @Sendable (HubEvent) -> Bool
        let timeout: Duration
        /// Nil while the level is on its cancel path.
        let signal: CancellationSignal?
    }

    /// What a wait state waits for; the error that ends its level when its match does not evaluate.
    @inline(never)
    func prepareWait(_ state: PlannedState, _ level: Level) -> Result<WaitRequest, FlowError> {
        guard case .wait(let wait) = state.state.kind else { preconditionFailure("not a wait state") }
        var matching: [(String, JSONValue)] = []
        do throws(FlowError) {
            for (name, template) in wait.match { matching.append((name, try level.scope.evaluate(template))) }
        } catch {
            return .failure(located(error, level.qualifiedCurrent))
        }
        let eventName = wait.event
        let expected = matching
        emit(level.path, .waitStarted(state: level.current, event: eventName, timeoutSeconds: wait.timeoutSeconds))
        return .success(
            WaitRequest(
                state: wait,
                matches: { event in
                    event.name == eventName
                        && expected.allSatisfy { name, value in event.fields[name].map { Scope.equal($0, value) } ?? false }
                },
                timeout: .seconds(rounding: wait.timeoutSeconds), signal: level.onCancelPath ? nil : signal))
    }

    /// Where a wait's end sends the level.
    @inline(never)
    func waitEnded(_ outcome: RaceOutcome<HubEvent>, _ wait: WaitState, _ level: inout Level) -> Move {
        switch outcome {
        case .finished(let event):
            emit(level.path, .eventReceived(state: level.current, event: event.name, value: event.value, fields: event.fields))
            if let result = wait.result { level.scope.bind(result, .object(event.fields)) }
            let branch = wait.branches.first { $0.value == event.value }
            let target = branch?.next ?? wait.otherwise ?? wait.onTimeout
            emit(level.path, .transition(from: level.current, to: target, edge: branch == nil ? .eventOtherwise : .event(event.value)))
            return .to(target)
        case .timedOut, .failed:
            emit(level.path, .transition(from: level.current, to: wait.onTimeout, edge: .timeout))
            return .to(wait.onTimeout)
        case .cancelled:
            return .cancel
        }
    }
}
