extension Hub {
    /// The structure's ePSKc deactivation events as they happen, for embedders: the Home APIs'
    /// `epskcModeDeactivatedEvent.stream()`.
    ///
    /// The subscription is in place when this returns, so an event caused afterwards is never missed. The stream
    /// buffers every event until it is read and ends its subscription when it is dropped or its task is cancelled.
    ///
    /// ```swift
    /// for await event in await hub.epskcModeDeactivatedEvents(structure: "maple-street") {
    ///     print(event.deviceID, event.reason, event.time)
    /// }
    /// ```
    ///
    /// On a ``VirtualClock``, reading the stream is a task of your own that the clock does not know about: the
    /// clock may move on while it reads. Workflows wait with `wait` states instead, which are accounted for.
    public func epskcModeDeactivatedEvents(structure: StructureID) async -> AsyncStream<EpskcModeDeactivatedEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: EpskcModeDeactivatedEvent.self, bufferingPolicy: .unbounded)
        let subscription = await subscribe(structure: structure) { event in
            if let deactivation = EpskcModeDeactivatedEvent(event) { continuation.yield(deactivation) }
        }
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }
}
