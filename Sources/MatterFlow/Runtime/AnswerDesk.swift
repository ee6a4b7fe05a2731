import MatterFlowJSON
import Synchronization

/// What became of an answer given with ``RunHandle/give(_:to:)``.
public enum AnswerDelivery: Sendable, Hashable {
    /// The question waiting now took it.
    case answered
    /// No question of that name waits now: the answer is kept, as one given in advance, for when it is asked.
    case kept
}

/// Where a run's questions meet their answers: answers given in advance, held by question name until asked, and
/// the question waiting now.
///
/// An answer is checked against its question before the run sees it. A string that does not fit as it is reads as
/// typed text (``Question/accept(_:)``): a choice's number or label, `yes`/`no`.
final class AnswerDesk: Sendable {
    /// The question waiting now. It is registered when the run looks for an answer given in advance and finds none,
    /// before its race is made: an answer that comes in between waits in `early` and decides the race once made.
    private struct Pending {
        let question: Question
        var race: FirstResult<AnswerEnd>?
        var early: JSONValue?
    }

    private struct State {
        /// Answers given in advance, by question or state name; each is used once.
        var given: [String: JSONValue]
        var pending: Pending?
        /// The run has ended: it takes no more answers.
        var closed = false
    }

    private let state: Mutex<State>

    init(answers: [String: JSONValue]) {
        state = Mutex(State(given: answers))
    }

    /// The question waiting for an answer, if any.
    var pendingQuestion: Question? {
        state.withLock { $0.pending?.question }
    }

    /// Answers the waiting question called `name` (its question name or its state's name).
    /// - Throws: ``AnswerError`` `noPendingQuestion` when no such question waits, `invalidAnswer` when the answer does
    ///   not fit; the run keeps waiting either way.
    func answer(_ value: JSONValue, to name: String) throws(AnswerError) {
        let pending = state.withLock { $0.pending }
        guard let pending, pending.question.answers(to: name) else {
            throw AnswerError.notAsked(name, waiting: pending?.question)
        }
        try deliver(try pending.question.accept(value), to: pending.question, name: name)
    }

    /// Answers the question called `name` whether or not it waits now: the waiting question takes the answer at once;
    /// otherwise it is kept, as an answer given in advance is, and checked when the question is asked (one that does
    /// not fit is then reported as `answerRejected` and the question waits on).
    /// - Throws: ``AnswerError`` `invalidAnswer` when the waiting question is `name` and the answer does not fit (the
    ///   run keeps waiting), `noPendingQuestion` when the question stopped waiting while the answer was checked.
    func give(_ value: JSONValue, to name: String) throws(AnswerError) -> AnswerDelivery {
        let waiting = state.withLock { state -> Question?? in
            if state.closed { return .none }
            if let pending = state.pending, pending.question.answers(to: name) { return .some(pending.question) }
            state.given[name] = value
            return .some(nil)
        }
        guard case .some(let asked) = waiting else { throw AnswerError.runEnded(name) }
        guard let waiting = asked else { return .kept }
        try deliver(try waiting.accept(value), to: waiting, name: name)
        return .answered
    }

    /// The run has ended: answers given from now on are refused.
    func close() {
        state.withLock { $0.closed = true }
    }

    /// Hands a checked answer to the waiting `question`: to its race, or, before the race is made, to `early`.
    private func deliver(_ checked: JSONValue, to question: Question, name: String) throws(AnswerError) {
        let race = state.withLock { state -> FirstResult<AnswerEnd>?? in
            guard var pending = state.pending, pending.question.name == question.name, pending.question.state == question.state
            else { return .some(nil) }
            guard let race = pending.race else {
                pending.early = checked
                state.pending = pending
                return nil
            }
            return .some(race)
        }
        switch race {
        case nil: return
        case .some(nil): throw AnswerError.stoppedWaiting(name)
        case .some(let race?): guard race.offer(.answered(checked)) else { throw AnswerError.stoppedWaiting(name) }
        }
    }

    /// Waits for the answer to a question: one given in advance (checked; `rejected` is told why one does not fit),
    /// one given meanwhile, the timeout, or the run's cancel.
    ///
    /// The timeout runs on `timeoutClock`. When that is not the run's clock (a person answers on a real clock while
    /// the run is on virtual time), the run stays active on its own clock while it waits, so virtual time does not
    /// jump past the question, unless `holdingClock` is false (other runs on that clock go on meanwhile).
    func wait(
        for wait: QuestionWait, clock: any WorkflowClock, timeoutClock: (any WorkflowClock)?, holdingClock: Bool = true,
        signal: CancellationSignal?, rejected: (String) -> Void
    ) async -> AnswerEnd {
        let question = wait.question
        let given = state.withLock { state -> Result<JSONValue, AnswerError>? in
            let given = question.takeGivenAnswer(from: &state.given)
            if case .success? = given { return given }
            state.pending = Pending(question: question)
            return given
        }
        switch given {
        case .success(let answer)?: return .answered(answer)
        case .failure(let error)?: rejected(error.message)
        case nil: break
        }
        let timeout = wait.timeout
        // With a clock of its own for the timeout, the run keeps holding its clock (it waits on no clock of the run's),
        // unless told to let it go.
        let runClock: (any WorkflowClock)? = timeoutClock == nil || !holdingClock ? clock : nil
        return await runClock.waitOffClock { waker in
            self.wait(question, race: FirstResult(waker), timeout: timeout, on: timeoutClock ?? clock, signal: signal)
        }
    }

    /// Makes `race` the pending question's, raced against its timeout and the run's cancel; an answer that came
    /// before decides it at once.
    private func wait(
        _ question: Question, race: FirstResult<AnswerEnd>, timeout: Duration, on clock: any WorkflowClock,
        signal: CancellationSignal?
    ) {
        let early = state.withLock { state -> JSONValue? in
            var pending = state.pending ?? Pending(question: question)
            pending.race = race
            defer {
                pending.early = nil
                state.pending = pending
            }
            return pending.early
        }
        if let early {
            _ = race.offer(.answered(early))
        }
        let timer = clock.scheduleTimer(after: timeout) { _ = race.offer(.timedOut) }
        race.onDecided { timer.cancel() }
        if let signal {
            let token = signal.onCancel { _ = race.offer(.cancelled) }
            race.onDecided { signal.remove(token) }
        }
        race.onDecided { [self] in
            state.withLock { state in
                if state.pending?.race === race { state.pending = nil }
            }
        }
    }
}
