import MatterFlowJSON
import Synchronization

/// One race's state: the work, the outcome once decided, the waiting task, what to stop, and the work's end.
///
/// The one place that counts its task on the clock by hand rather than through the primitives of
/// ClockActivity.swift, because it runs on every hub call: its task begins in ``StepRace`` and ends in ``perform()``,
/// and whoever wakes a waiting task (``stop(_:)``, ``workEnded(_:value:)``, the wind-down timer) counts it before
/// resuming it, as ``ClockWaker`` does. Written with the primitives (a ``ClockWaker`` in the state, `waitOffClock`),
/// `commission.oneTask` took 16% more CPU (1.91 against 1.65 s, release build, quiet machine, 7 alternated rounds).
///
/// Not generic: a generic class's deinit runs unspecialised and looks up its metadata on every release, which
/// cost more than the rest of a synchronous hub call. The work's value travels as a ``Race/Value`` instead, typed
/// for what hub calls and status checks return (no box to allocate, no cast to take it back out).
final class Race: Sendable {
    /// What the work returned.
    enum Value: Sendable {
        case json(JSONValue)
        case status(HubStatus)
        case other(any Sendable)
    }

    /// How the race was decided, without the work's value (kept in `State.value`).
    ///
    /// The error is boxed (`indirect`): inline, its size would be in every race's state and in the frames that
    /// hold a decision while a call is in flight, for a case that is rare.
    enum Decision: Sendable {
        case finished
        indirect case failed(FlowError)
        case timedOut
        case cancelled
    }

    /// What the race stops once it is decided; set only when the work suspended.
    private struct Armed {
        var task: Task<Void, Never>?
        var timer: (any ClockTimer)?
        var signal: CancellationSignal?
        var signalToken = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private struct State {
        var decision: Decision?
        /// The work's result when it succeeded, even after losing the race.
        var value: Value?
        var workEnded = false
        /// The work has ended and every handler given before then has been told (see ``workHasEnded``).
        var endTold = false
        var armed: Armed?
        var windDownWaiter: CheckedContinuation<Void, Never>?
        var windDownTimer: (any ClockTimer)?
        /// Told of the work's value once the work ends (see ``afterWorkEnds(_:)``).
        var afterEnd: [@Sendable (Value?) -> Void] = []
    }

    private let state = Mutex(State())
    private let clock: any WorkflowClock
    // The job, in fields of its own: the task reads them in place, where switching over a stored enum would copy
    // its payload (and retain each of its references) on every call.
    private let call: PlannedCall?
    private let hub: (any Hub)?
    private let structure: StructureID
    private let arguments: JSONObject
    private let work: StepRace.Work?
    /// The context bound while the hub serves the call, in the work's task; nil: the task's own (inherited).
    private let context: HubCallContext?
    /// Work whose value is already a race's: the end of a call made elsewhere (``init(clock:awaiting:)``).
    private let forwarded: (@Sendable () async throws -> Value)?

    /// A race of `work`, or else of an operation's call (served with `context` bound, when given), or else of the
    /// hub's status check.
    init(
        clock: any WorkflowClock, call: PlannedCall? = nil, hub: (any Hub)? = nil, structure: StructureID = "",
        arguments: JSONObject = [:], work: StepRace.Work? = nil, context: HubCallContext? = nil
    ) {
        self.context = context
        self.clock = clock
        self.call = call
        self.hub = hub
        self.structure = structure
        self.arguments = arguments
        self.work = work
        forwarded = nil
    }

    /// A race of a hub call made on another task (``CallSegment``), which `end` waits for.
    init(clock: any WorkflowClock, awaiting end: @escaping @Sendable () async throws -> Value) {
        self.clock = clock
        forwarded = end
        call = nil
        hub = nil
        structure = ""
        arguments = [:]
        work = nil
        context = nil
    }

    /// Makes `call` with `arguments`, their shapes checked first, served with `context` bound as
    /// ``HubCallContext/current`` (nil: the task's own).

    static func invoke(
        _ call: PlannedCall, hub: any Hub, structure: StructureID, arguments: JSONObject, context: HubCallContext?
    ) async throws -> JSONValue {
        try checkArguments(arguments, of: call)
        guard let context else { return try await call.invoke(hub, structure, arguments) }
        return try await HubCallContext.$current.withValue(context) { try await call.invoke(hub, structure, arguments) }
    }

    /// Checks a call's arguments against their declared shapes. Throws untyped and is never inlined: a typed
    /// ``FlowError`` thrown into an async method takes its size in that method's frame (``callValue()`` and
    /// `RunDriver.inlineCall`: 384 and 528 bytes, 448 and 592 inlined).
    @inline(never)
    private static func checkArguments(_ arguments: JSONObject, of call: PlannedCall) throws {
        try OperationDescriptor.check(arguments, against: call.argumentShapes, operation: call.name)
    }

    /// Runs the work, as the body of its task, and reports its end.
    func perform() async {
        do {
            workEnded(.finished, value: try await workValue())
        } catch {
            workFailed(error)
        }
        clock.endActivity()
    }

    /// Runs the work and returns its value.
    ///
    /// An async method's frame has room for the values of every branch, so the kinds of work are awaited in methods
    /// of their own: with all of them in ``perform()``, its frame took 896 bytes, which every call in flight holds.
    private func workValue() async throws -> Value {
        // The fields are read in place (`!` rather than `if let`, which would copy the hub's existential).
        if work != nil { return try await otherValue() }
        if call != nil { return try await callValue() }
        if forwarded != nil { return try await forwarded!() }
        return try await statusValue()
    }

    /// Runs other work.
    private func otherValue() async throws -> Value {
        .other(try await work!())
    }

    /// Makes the operation's call.
    private func callValue() async throws -> Value {
        .json(try await Self.invoke(call!, hub: hub!, structure: structure, arguments: arguments, context: context))
    }

    /// Checks the hub's status. Never inlined: inlined, its status took room in the frame of ``workValue()``, the
    /// calls' path too (128 bytes, 64 apart).
    @inline(never)
    private func statusValue() async throws -> Value {
        .status(try await hub!.status(structure: structure))
    }

    /// Reports the work's failure. Never inlined: inlined, the error's conversion took room in the frame of
    /// ``perform()``, which every call in flight holds (the race task's first frames 80 bytes, 176 inlined).
    @inline(never)
    private func workFailed(_ error: any Error) {
        // A hub's own cancelled work is its failure; other work (a call's end awaited here) keeps the plain reading.
        workEnded(.failed(hub == nil ? FlowError.from(error) : FlowError.fromHubCall(error)), value: nil)
    }

    /// The decision and, when the work won, its value, if the race is already decided.
    func settled() -> (Decision, Value?)? {
        state.withLock { state in state.decision.map { ($0, Self.winnings(of: $0, &state)) } }
    }

    /// The work's value when it won, moved out rather than copied: nothing reads it after a race the work won
    /// (only a cancelled race's late value is read again, by ``value``).
    private static func winnings(of decision: Decision, _ state: inout State) -> Value? {
        guard case .finished = decision else { return nil }
        return state.value.take()
    }

    /// The work's result when it succeeded, even after losing the race.
    var value: Value? { state.withLock { $0.value } }

    /// Calls `handler` with the work's value (nil when it failed) once the work has ended: at once when it already
    /// has, else when it does (each handler given, in order). For a race the run has stopped waiting for, so what the
    /// hub still did is known.
    func afterWorkEnds(_ handler: @escaping @Sendable (Value?) -> Void) {
        let ended = state.withLock { state -> (Bool, Value?) in
            if !state.workEnded { state.afterEnd.append(handler) }
            return (state.workEnded, state.value)
        }
        if ended.0 { handler(ended.1) }
    }

    /// Whether the work has ended (returned or thrown), whoever won the race, and what it did has been told to the
    /// handlers given before then (``afterWorkEnds(_:)``): a late session one of them notes is noted by now.
    var workHasEnded: Bool { state.withLock { $0.endTold } }

    /// Arms the race once the work has suspended: its task, the timeout timer and the cancellation signal are
    /// what decide it now. Whatever arrives after the decision is stopped at once.
    func arm(task: Task<Void, Never>, timeout: Duration?, signal: CancellationSignal?) {
        if state.withLock({ state -> Bool in
            if state.decision == nil { state.armed = Armed(task: task) }
            return state.decision != nil
        }) {
            task.cancel()
            return
        }
        if let timeout {
            let timer = clock.scheduleTimer(after: timeout) { [self] in offer(.timedOut) }
            if state.withLock({ state -> Bool in
                if state.decision == nil { state.armed?.timer = timer }
                return state.decision != nil
            }) {
                timer.cancel()
            }
        }
        if let signal {
            let token = signal.onCancel { [self] in offer(.cancelled) }
            if state.withLock({ state -> Bool in
                if state.decision == nil {
                    state.armed?.signal = signal
                    state.armed?.signalToken = token
                }
                return state.decision != nil
            }) {
                signal.remove(token)
            }
        }
    }

    /// The work has ended: offer its result and wake a task waiting for it to wind down.
    private func workEnded(_ decision: Decision, value: consuming Value?) {
        // Moved into the state, not copied.
        var value = value
        // What to wake or tell, taken out under the lock into locals (the lock's body returns nothing, so no
        // tuple of optionals is built and copied out on every call).
        var armed: Armed?
        var windDownWaiter: CheckedContinuation<Void, Never>?
        var told: [@Sendable (Value?) -> Void] = []
        var kept: Value?
        state.withLock { state in
            state.workEnded = true
            if value != nil { state.value = value.take() }
            if state.afterEnd.isEmpty {
                state.endTold = true
                windDownWaiter = state.windDownWaiter.take()
            } else {
                swap(&told, &state.afterEnd)
                kept = state.value
            }
            if state.decision == nil {
                state.decision = decision
                armed = state.armed.take()
            }
        }
        if !told.isEmpty {
            for handler in told { handler(kept) }
            // Only now is the end told: one waiting to wind down from here on sees what the handlers did.
            windDownWaiter = state.withLock { state in
                state.endTold = true
                return state.windDownWaiter.take()
            }
        }
        if let armed { stop(armed) }
        if let windDownWaiter {
            clock.beginActivity()
            windDownWaiter.resume()
        }
    }

    /// Offers a decision; only the first one counts.
    func offer(_ decision: Decision) {
        let armed = state.withLock { state -> Armed? in
            guard state.decision == nil else { return nil }
            state.decision = decision
            return state.armed.take()
        }
        if let armed { stop(armed) }
    }

    /// Stops the losers of a decided race and wakes the task waiting for the decision.
    private func stop(_ armed: Armed) {
        armed.task?.cancel()
        armed.timer?.cancel()
        armed.signal?.remove(armed.signalToken)
        if let waiter = armed.waiter {
            clock.beginActivity()
            waiter.resume()
        }
    }

    /// Waits for the decision; returns it with the work's value when the work won.
    func decided() async -> (Decision, Value?) {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.decision != nil { return true }
                state.armed?.waiter = continuation
                return false
            }
            if ready {
                continuation.resume()
            } else {
                clock.endActivity()
            }
        }
        return state.withLock { state in
            let decision = state.decision ?? .cancelled
            return (decision, Self.winnings(of: decision, &state))
        }
    }

    /// Waits until the work has ended, but at most `limit` on the clock.
    func windDown(atMost limit: Duration) async {
        let clock = self.clock
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state -> Bool in
                if state.endTold { return false }
                state.windDownWaiter = continuation
                return true
            }
            guard waiting else {
                continuation.resume()
                return
            }
            let timer = clock.scheduleTimer(after: limit) { [self] in
                let waiter = state.withLock { $0.windDownWaiter.take() }
                if let waiter {
                    clock.beginActivity()
                    waiter.resume()
                }
            }
            state.withLock { $0.windDownTimer = timer }
            clock.endActivity()
        }
        let leftover = state.withLock { $0.windDownTimer.take() }
        leftover?.cancel()
    }
}
