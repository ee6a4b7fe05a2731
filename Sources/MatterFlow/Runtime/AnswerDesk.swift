import MatterFlowJSON
import Synchronization

/// Where a run's questions meet their answers: answers given in advance, held by question name until asked, and
/// the question waiting now.
///
/// An answer is checked against its question before the run sees it. A string that does not fit as it is reads as
/// typed text (``Question/accept(_:)``): a choice's number or label, `yes`/`no`.
final class AnswerDesk: Sendable {
    private struct Pending {
        let question: Question
        let race: FirstResult<AnswerEnd>
    }

    private struct State {
        /// Answers given in advance, by question or state name; each is used once.
        var given: [String: JSONValue]
        var pending: Pending?
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
        let checked = try pending.question.accept(value)
        guard pending.race.offer(.answered(checked)) else { throw AnswerError.stoppedWaiting(name) }
    }

    /// Waits for the answer to a question: one given in advance (checked; `rejected` is told why one does not fit),
    /// one given meanwhile, the timeout, or the run's cancel.
    ///
    /// The timeout runs on `timeoutClock`. When that is not the run's clock (a person answers on a real clock while
    /// the run is on virtual time), the run stays active on its own clock while it waits, so virtual time does not
    /// jump past the question.
    func wait(
        for wait: QuestionWait, clock: any WorkflowClock, timeoutClock: (any WorkflowClock)?, signal: CancellationSignal?,
        rejected: (String) -> Void
    ) async -> AnswerEnd {
        let question = wait.question
        switch state.withLock({ question.takeGivenAnswer(from: &$0.given) }) {
        case .success(let answer)?: return .answered(answer)
        case .failure(let error)?: rejected(error.message)
        case nil: break
        }
        let timeout = wait.timeout
        // With a clock of its own for the timeout, the run keeps holding its clock: it waits on no clock of the run's.
        let runClock: (any WorkflowClock)? = timeoutClock == nil ? clock : nil
        return await runClock.waitOffClock { waker in
            self.wait(question, race: FirstResult(waker), timeout: timeout, on: timeoutClock ?? clock, signal: signal)
        }
    }

    /// Makes `race` the pending question's, raced against its timeout and the run's cancel.
    private func wait(
        _ question: Question, race: FirstResult<AnswerEnd>, timeout: Duration, on clock: any WorkflowClock,
        signal: CancellationSignal?
    ) {
        state.withLock { $0.pending = Pending(question: question, race: race) }
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
