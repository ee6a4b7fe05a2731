import Synchronization

/// The part of a run its driver performs on a task of its own, making hub calls on that task, until the task first
/// suspends: the run's calls without a task per call.
///
/// ``RunDriver/run()`` starts the segment with `Task.immediate`, which returns once the segment's task suspends or
/// ends. A hub that answers without suspending serves the whole run on that one task: each call is made inline
/// (``beginCall(timeout:cancellable:)``, the hub, ``endCall(_:)``), and no timer or cancel handler is ever armed,
/// since nothing can happen while the call does not suspend. When the task suspends in such a call,
/// ``suspended(task:signal:)`` arms the call's timeout and the run's cancel signal, as a ``Race`` is armed when its
/// work suspends. Once the task has suspended (in a call or anywhere else), the segment hands its next work over
/// (``handsOver(_:)``), as it does any work but a call or status check: ``RunDriver/run()``'s task drives the rest of
/// the run, racing each call on a task of its own, so that a call the hub keeps can be left behind.
///
/// When the timeout or the cancel wins over the call the segment is suspended in, the segment's task is cancelled
/// (the hub sees the call's cancellation) and loses the run: ``next()`` tells ``RunDriver/run()``'s task, which ends
/// the call as a lost race ends (grace period, late result, abandoned call) and drives the rest of the run. The
/// segment's task, once the hub lets its call go, hands the call's end over (``lostCallEnd()``) and leaves without
/// touching the run.
///
/// Counted on the clock by hand, like ``Race``: the segment's task and the waits here end their activity while
/// they wait, and whoever wakes them begins it again first.
final class CallSegment: Sendable {
    /// How the segment ended, as ``RunDriver/run()`` takes it.
    enum End: Sendable, Equatable {
        /// The segment drove the run to its end.
        case finished
        /// The segment suspended once, and handed the run's next work over (``takeWork()``) after that.
        case handedOver
        /// The call's timeout decided against the call the segment is suspended in: the run goes on elsewhere.
        case timedOut
        /// The run's cancel decided against the call the segment is suspended in: the run goes on elsewhere.
        case cancelled
    }

    private struct State {
        /// The segment's task has suspended: its later calls are raced (``beginCall(timeout:cancellable:)``).
        var returned = false
        /// A call made inline is in flight.
        var calling = false
        var timeout: Duration = .zero
        var cancellable = false
        /// How the segment ended, once it did.
        var end: End?
        var work: RunAction?
        var task: Task<Void, Never>?
        var timer: (any ClockTimer)?
        var signal: CancellationSignal?
        var signalToken = 0
        var waiter: CheckedContinuation<End, Never>?
        /// The lost call's end, once the hub let it go.
        var lostEnd: Result<Race.Value, FlowError>?
        var lostEndWaiter: CheckedContinuation<Result<Race.Value, FlowError>, Never>?
    }

    private let state = Mutex(State())
    private let clock: any WorkflowClock

    init(clock: any WorkflowClock) {
        self.clock = clock
    }

    /// Whether the segment may make a call inline: it has not suspended yet. When it may, the call is in flight
    /// until ``endCall(_:)``; `timeout` and `cancellable` are what arm it should the task suspend in it.
    func beginCall(timeout: Duration, cancellable: Bool) -> Bool {
        state.withLock { state in
            guard !state.returned else { return false }
            state.calling = true
            state.timeout = timeout
            state.cancellable = cancellable
            return true
        }
    }

    /// The inline call ended with `result`. True: the segment goes on with it. False: the call was decided against
    /// and the run taken over; `result` goes to the taker, and the segment must leave the run alone.
    func endCall(_ result: consuming Result<Race.Value, FlowError>) -> Bool {
        var result: Result<Race.Value, FlowError>? = result
        var timer: (any ClockTimer)?
        var signal: CancellationSignal?
        var token = 0
        var waiter: CheckedContinuation<Result<Race.Value, FlowError>, Never>?
        let kept = state.withLock { state -> Bool in
            state.calling = false
            // Released here, not with the segment: a task's memory (its frames' slabs) lives as long as its handle.
            state.task = nil
            guard state.end == .timedOut || state.end == .cancelled else {
                timer = state.timer.take()
                signal = state.signal.take()
                token = state.signalToken
                return true
            }
            waiter = state.lostEndWaiter.take()
            if waiter == nil { state.lostEnd = result.take() }
            return false
        }
        timer?.cancel()
        signal?.remove(token)
        if let waiter, let result = result.take() {
            clock.beginActivity()
            waiter.resume(returning: result)
        }
        return kept
    }

    /// The segment's task (`task`) has suspended or ended, as ``RunDriver/run()`` learns when `Task.immediate`
    /// returns. Returns how the segment ended if it has; otherwise arms the call in flight, if any, with its timeout
    /// and (unless it is on the run's cancel path) `signal`.
    @inline(never)
    func suspended(task: Task<Void, Never>, signal: CancellationSignal) -> End? {
        let (end, arming) = state.withLock { state -> (End?, (timeout: Duration, cancellable: Bool)?) in
            state.returned = true
            if let end = state.end { return (end, nil) }
            guard state.calling else { return (nil, nil) }
            state.task = task
            return (nil, (state.timeout, state.cancellable))
        }
        if let end { return end }
        guard let arming else { return nil }
        let timer = clock.scheduleTimer(after: arming.timeout) { [self] in decide(.timedOut) }
        if !state.withLock({ state -> Bool in
            guard state.calling, state.end == nil else { return false }
            state.timer = timer
            return true
        }) {
            timer.cancel()
        }
        if arming.cancellable {
            let token = signal.onCancel { [self] in decide(.cancelled) }
            if !state.withLock({ state -> Bool in
                guard state.calling, state.end == nil else { return false }
                state.signal = signal
                state.signalToken = token
                return true
            }) {
                signal.remove(token)
            }
        }
        return nil
    }

    /// A timeout or cancel decides against the call in flight, if one still is: the segment's task is cancelled and
    /// the run handed to whoever waits in ``next()``.
    private func decide(_ decision: End) {
        var task: Task<Void, Never>?
        var timer: (any ClockTimer)?
        var signal: CancellationSignal?
        var token = 0
        var waiter: CheckedContinuation<End, Never>?
        state.withLock { state in
            guard state.calling, state.end == nil else { return }
            state.end = decision
            task = state.task.take()
            timer = state.timer.take()
            signal = state.signal.take()
            token = state.signalToken
            waiter = state.waiter.take()
        }
        task?.cancel()
        timer?.cancel()
        signal?.remove(token)
        if let waiter {
            clock.beginActivity()
            waiter.resume(returning: decision)
        }
    }

    /// The segment drove the run to its end.
    func finish() {
        let waiter = state.withLock { state -> CheckedContinuation<End, Never>? in
            state.end = .finished
            return state.waiter.take()
        }
        if let waiter {
            clock.beginActivity()
            waiter.resume(returning: .finished)
        }
    }

    /// Whether the segment hands `work` over rather than doing it: once the segment's task has suspended, or for any
    /// work but a hub call, a status check or the run's end. Work handed over waits in ``takeWork()``.
    @inline(never)
    func handsOver(_ work: RunAction) -> Bool {
        switch work {
        case .call, .checkStatus, .finish:
            guard state.withLock({ $0.returned }) else { return false }
        case .proceed, .report, .checkpoint, .interruptWork, .startElement, .cancelElement, .delay, .waitForEvent, .askQuestion,
            .awaitElements, .settleLateSessions:
            break
        }
        var work: RunAction? = work
        let waiter = state.withLock { state -> CheckedContinuation<End, Never>? in
            state.end = .handedOver
            state.work = work.take()
            return state.waiter.take()
        }
        if let waiter {
            clock.beginActivity()
            waiter.resume(returning: .handedOver)
        }
        return true
    }

    /// The work the segment handed over.
    func takeWork() -> RunAction? { state.withLock { $0.work.take() } }

    /// Waits until the segment ends or loses the run.
    @inline(never)
    func next() async -> End {
        await waitOffClock(take: { $0.end }, keep: { $0.waiter = $1 })
    }

    /// The end of the call the segment lost the run in, once the hub lets it go.
    func lostCallEnd() async -> Result<Race.Value, FlowError> {
        await waitOffClock(take: { $0.lostEnd.take() }, keep: { $0.lostEndWaiter = $1 })
    }

    /// Waits, off the clock, for what `take` finds in the state; `keep` stores the waiting continuation meanwhile, for
    /// whoever provides it to resume (counting the waiter on the clock again first).
    private func waitOffClock<Value>(
        take: (inout State) -> Value?, keep: (inout State, CheckedContinuation<Value, Never>) -> Void
    ) async -> Value {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
            let ready = state.withLock { state -> Value? in
                if let value = take(&state) { return value }
                keep(&state, continuation)
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
            } else {
                clock.endActivity()
            }
        }
    }
}
