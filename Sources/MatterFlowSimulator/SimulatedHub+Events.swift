import MatterFlow

/// Hub events: `epskcModeDeactivated` when a border router's ePSKc mode ends.
extension SimulatedHub {
    /// Delivers the structure's events to `handler`, synchronously from the task that causes each one (a hub call,
    /// a key's expiry timer, a scripted commissioner), until the subscription is cancelled.
    public func subscribe(structure: StructureID, _ handler: @escaping @Sendable (HubEvent) -> Void) async
        -> any HubEventSubscription
    {
        hubEvents.subscribe(structure: structure, handler)
    }

    /// How many event subscriptions are open (for tests that check runs close theirs).
    public var eventSubscriberCount: Int { hubEvents.subscriberCount }
}
