import Synchronization

/// The hub events a run has received and not yet consumed, and the wait state waiting for one.
///
/// A run subscribes when it starts (if it has wait states), so an event that happens before the run reaches its
/// wait state (a key used at once, say) is kept, not lost. An event handed to a wait that has just ended (its
/// timeout or the cancel decided it first) is kept too, for the run's next wait.
final class EventInbox: Sendable {
    private struct Waiter {
        var matches: @Sendable (HubEvent) -> Bool
        /// Offers the event to the wait; false when the wait had already ended.
        var deliver: @Sendable (HubEvent) -> Bool
        /// Ends the wait: no events will come, for the reason given.
        var lose: @Sendable (String) -> Void
    }

    private struct State {
        var events: [HubEvent] = []
        var waiter: Waiter?
        /// Why no events reach the run (its subscription failed), until a wait has warned of it.
        var subscriptionFailure: String?
        /// Why events stopped reaching the run after its subscription was made (its hub's connection was lost).
        var lost: String?
    }

    private let state = Mutex(State())

    /// The most events a run keeps that no wait has taken: past it the oldest go, so that a hub's stream of events
    /// the run never waits for (another device's, say) cannot grow a run that waits long (for an answer) without
    /// bound.
    static let keptLimit = 1_000

    /// Keeps `event` among those not yet taken, the oldest dropped past ``keptLimit``.
    static func keep(_ event: HubEvent, in events: inout [HubEvent]) {
        if events.count >= keptLimit { events.removeFirst(events.count - keptLimit + 1) }
        events.append(event)
    }

    /// The run's subscription failed: no events will come.
    func subscriptionFailed(_ reason: String) {
        state.withLock { $0.subscriptionFailure = reason }
    }

    /// The run's subscription stopped delivering events: the wait going on ends, and so does every later one once
    /// the events kept for it are taken.
    func subscriptionLost(_ reason: String) {
        let waiter = state.withLock { state -> Waiter? in
            guard state.lost == nil else { return nil }
            state.lost = reason
            return state.waiter.take()
        }
        waiter?.lose(reason)
    }

    /// The warning of a wait that events stopped reaching (`reason` says why), as its run and a pool's runs give it.
    static func lostWarning(_ reason: String, event: String) -> String {
        "the hub's events stopped reaching this run (\(reason)): the wait for \(event) ends by its timeout path"
    }

    /// Why no events reach the run, the first time it is asked (a run warns once).
    func takeSubscriptionFailure() -> String? {
        state.withLock { $0.subscriptionFailure.take() }
    }

    /// Called by the hub's subscription, from the task that caused the event.
    func deliver(_ event: HubEvent) {
        // A waiter taken here may lose its race to the timeout or the cancel before it gets the event: the event
        // is then offered again, to the next wait if one has started meanwhile, or else queued.
        while true {
            let waiter = state.withLock { state -> Waiter? in
                if let waiter = state.waiter, waiter.matches(event) {
                    state.waiter = nil
                    return waiter
                }
                Self.keep(event, in: &state.events)
                return nil
            }
            guard let waiter, !waiter.deliver(event) else { return }
        }
    }

    /// Waits for the first matching event (possibly one that already arrived), the timeout, or the run's cancel;
    /// `.failed` (`hubUnreachable`) at once when the run's events stopped coming (``subscriptionLost(_:)``).
    func wait(
        for matches: @escaping @Sendable (HubEvent) -> Bool, timeout: Duration, clock: any WorkflowClock,
        signal: CancellationSignal?
    ) async -> RaceOutcome<HubEvent> {
        await clock.waitOffClock { (waker: ClockWaker<RaceOutcome<HubEvent>>) in
            let race = FirstResult(waker)
            let early = state.withLock { state -> RaceOutcome<HubEvent>? in
                if let index = state.events.firstIndex(where: matches) { return .finished(state.events.remove(at: index)) }
                if let lost = state.lost { return .failed(FlowError(.hubUnreachable, lost)) }
                state.waiter = Waiter(
                    matches: matches, deliver: { race.offer(.finished($0)) },
                    lose: { race.offer(.failed(FlowError(.hubUnreachable, $0))) })
                return nil
            }
            if let early {
                race.offer(early)
            } else {
                let timer = clock.scheduleTimer(after: timeout) { race.offer(.timedOut) }
                race.onDecided { timer.cancel() }
                if let signal {
                    let token = signal.onCancel { race.offer(.cancelled(late: nil)) }
                    race.onDecided { signal.remove(token) }
                }
                race.onDecided { [self] in state.withLock { $0.waiter = nil } }
            }
        }
    }
}
