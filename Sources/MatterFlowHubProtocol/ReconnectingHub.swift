import MatterFlow

/// The hub of a long-lived client (a fleet worker given `--hub`): one connection, made again when it was lost (the
/// hub restarted, the connection was reset, or it was closed for silence), so the client outlives its hub's restarts.
///
/// A connection that cannot be made now throws, which a worker takes as "no hub for this structure" and hands the run
/// back to be claimed again later. A run whose calls failed because the connection went is settled from its records
/// once a connection is back (``ConnectedHub/connectionLost`` tells its worker so).
public actor ReconnectingHub {
    private let connect: @Sendable () async throws -> RemoteHub
    private var current: RemoteHub
    /// How many connections were made, the first included.
    public private(set) var connections = 1

    /// - Parameters:
    ///   - first: The connection made already (its handshake done).
    ///   - connect: Makes a new connection, its handshake done.
    public init(first: RemoteHub, connect: @escaping @Sendable () async throws -> RemoteHub) {
        current = first
        self.connect = connect
    }

    /// The hub to give a run: the current connection's, or a new connection's when the current one is lost.
    public func hub() async throws -> any Hub {
        if current.connectionLost {
            let lost = current
            current = try await connect()
            connections += 1
            await lost.close()
        }
        return current.hub
    }

    /// Closes the current connection.
    public func close() async {
        await current.close()
    }
}
