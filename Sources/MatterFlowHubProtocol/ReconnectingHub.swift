import MatterFlow

/// The hub of a long-lived client (a fleet worker given `--hub`): one connection, made again when it was lost (the
/// hub restarted, the connection was reset, or it was closed for silence), so the client outlives its hub's restarts.
///
/// Runs that ask for the hub while a new connection is being made wait for that one: however many ask at once, one
/// connection replaces the lost one. A connection that cannot be made now throws, which a worker takes as "no hub
/// for this structure" and hands the run back to be claimed again later; the next run that asks tries again.
public actor ReconnectingHub {
    private let connect: @Sendable () async throws -> RemoteHub
    private var current: RemoteHub
    /// The connection being made to replace a lost one, which every run asking meanwhile waits for.
    private var replacing: Task<RemoteHub, any Error>?
    /// How many connections were made, the first included.
    public private(set) var connections = 1
    /// ``close()`` was called: no connection is made any more, and one that was being made is closed as it comes.
    private var closed = false

    /// - Parameters:
    ///   - first: The connection made already (its handshake done).
    ///   - connect: Makes a new connection, its handshake done.
    public init(first: RemoteHub, connect: @escaping @Sendable () async throws -> RemoteHub) {
        current = first
        self.connect = connect
    }

    /// The hub to give a run: the current connection's, or, when it is lost, a new connection's.
    /// - Throws: ``FlowError`` `hubUnreachable` after ``close()``, or when no new connection can be made now.
    public func hub() async throws -> any Hub {
        guard !closed else { throw FlowError(.hubUnreachable, "the hub's connection was closed (the client is stopping)") }
        guard current.connectionLost else { return current.hub }
        let task: Task<RemoteHub, any Error>
        if let replacing {
            task = replacing
        } else {
            task = Task { [connect] in try await connect() }
            replacing = task
        }
        let connected: RemoteHub
        do {
            connected = try await task.value
        } catch {
            if replacing == task { replacing = nil }
            throw error
        }
        // A connection made while the client closed goes too (``close()`` closes it when no run waits for it).
        if closed {
            if replacing == task {
                replacing = nil
                await connected.close()
            }
            throw FlowError(.hubUnreachable, "the hub's connection was closed (the client is stopping)")
        }
        // The first run to resume puts the new connection in place; the others find it there.
        if replacing == task {
            replacing = nil
            let lost = current
            current = connected
            connections += 1
            await lost.close()
        }
        return current.hub
    }

    /// Closes the current connection, and one being made (its making is cancelled; one made all the same is closed);
    /// later calls of ``hub()`` throw.
    public func close() async {
        closed = true
        await current.close()
        if let making = replacing {
            replacing = nil
            making.cancel()
            if let made = try? await making.value { await made.close() }
        }
    }
}
