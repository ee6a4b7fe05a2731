import Synchronization

/// A run's subscription to its hub's events, made while the run may be cancelled. The run waits for the hub's answer
/// unless it is cancelled first: it then goes on to its cancel path at once, the call is cancelled (a hub's answer
/// within the cancel's grace still counts), and a subscription the hub makes joins the run when it comes, so that
/// waits on the cancel path still hear events. A subscription the hub refuses or fails is told to the run's inbox,
/// whose first wait warns of it.
final class RunSubscription: HubEventSubscription {
    private struct State {
        var subscription: (any HubEventSubscription)?
        /// The call, while the hub has not answered it.
        var call: Task<Void, Never>?
        /// The run has ended: a subscription that comes now is cancelled at once.
        var ended = false
    }

    private let state = Mutex(State())
    private let inbox: EventInbox

    private init(inbox: EventInbox) {
        self.inbox = inbox
    }

    /// Subscribes the run's inbox to `structure`'s events on `hub`; returns once the hub has answered or `signal`
    /// (the run's cancel) has fired.
    static func subscribe(
        on hub: any Hub, structure: StructureID, inbox: EventInbox, signal: CancellationSignal, clock: any WorkflowClock
    ) async -> RunSubscription {
        let run = RunSubscription(inbox: inbox)
        await clock.waitOffClock { (waker: ClockWaker<Void>) in
            let race = FirstResult(waker)
            let call = clock.task {
                run.attach(await hub.subscribe(structure: structure) { inbox.deliver($0) })
                race.offer(())
            }
            run.state.withLock { state in
                if state.subscription == nil { state.call = call }
            }
            let token = signal.onCancel {
                call.cancel()
                race.offer(())
            }
            race.onDecided { signal.remove(token) }
        }
        return run
    }

    /// The hub's answer: kept for the run unless it has ended; a failure is told to the inbox.
    private func attach(_ subscription: any HubEventSubscription) {
        let ended = state.withLock { state -> Bool in
            state.call = nil
            if !state.ended { state.subscription = subscription }
            return state.ended
        }
        if ended { return subscription.cancel() }
        if let failure = subscription.failure { inbox.subscriptionFailed(failure) }
        subscription.whenLost { [inbox] reason in inbox.subscriptionLost(reason) }
    }

    /// Ends the subscription, or the call that would have made it.
    func cancel() {
        let (subscription, call) = state.withLock { state in
            state.ended = true
            defer { (state.subscription, state.call) = (nil, nil) }
            return (state.subscription, state.call)
        }
        subscription?.cancel()
        call?.cancel()
    }
}
