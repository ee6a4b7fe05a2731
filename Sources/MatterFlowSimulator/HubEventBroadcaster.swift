import MatterFlow
import Synchronization

/// The simulated hub's event subscribers, per structure.
///
/// ``publish(_:)`` calls every handler of the event's structure synchronously, on the task that caused the event
/// (the hub call, the expiry timer or the scripted commissioner), as ``Hub/subscribe(structure:_:)`` requires for
/// virtual time. Handlers must not call back into the hub.
final class HubEventBroadcaster: Sendable {
    private struct Subscriber {
        var id: UInt64
        var structure: StructureID
        var handler: @Sendable (HubEvent) -> Void
    }

    private struct State {
        var nextID: UInt64 = 0
        var subscribers: [Subscriber] = []
    }

    private let state = Mutex(State())

    /// Adds a handler for a structure's events until the returned subscription is cancelled.
    func subscribe(structure: StructureID, _ handler: @escaping @Sendable (HubEvent) -> Void) -> any HubEventSubscription {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.subscribers.append(Subscriber(id: state.nextID, structure: structure, handler: handler))
            return state.nextID
        }
        return Subscription(broadcaster: self, id: id)
    }

    /// Delivers an event to its structure's handlers, in the order they subscribed.
    func publish(_ event: HubEvent) {
        let handlers = state.withLock { state in
            state.subscribers.filter { $0.structure == event.structureID }.map(\.handler)
        }
        for handler in handlers { handler(event) }
    }

    /// How many handlers are subscribed (all structures).
    var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    private func remove(_ id: UInt64) {
        state.withLock { $0.subscribers.removeAll { $0.id == id } }
    }

    private struct Subscription: HubEventSubscription {
        let broadcaster: HubEventBroadcaster
        let id: UInt64

        func cancel() { broadcaster.remove(id) }
    }
}
