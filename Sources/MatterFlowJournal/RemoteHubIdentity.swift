import MatterFlowJSON

/// The hub a run called over the hub protocol (`--hub`), as its `runStarted` record names it: recovery settles the
/// run only against that hub, since its session and devices are there and nowhere else.
///
/// Two hubs are told apart by what can be known of them: the endpoint as it was given (a command, `unix:PATH` or
/// `tcp:HOST:PORT`) and the name the hub gave in its handshake. A recovery on the simulated home, or on a hub that
/// gives another name, is deferred; one on a hub of the same name reached at another endpoint (a socket moved, a
/// host named by its address) goes on, with a note naming both endpoints.
public struct RemoteHubIdentity: Sendable, Hashable {
    /// The hub as it was given to the command (`--hub`).
    public var endpoint: String
    /// The name from the hub's handshake; nil when it gave none.
    public var name: String?

    /// The hub given as `endpoint`, whose handshake named it `name`.
    public init(endpoint: String, name: String?) {
        self.endpoint = endpoint
        self.name = name
    }

    /// `hub NAME at ENDPOINT`, or `the hub at ENDPOINT` when it gave no name.
    var described: String {
        name.map { "hub \($0) at \(endpoint)" } ?? "the hub at \(endpoint)"
    }

    /// Why a recovery acting on `current` (nil: the simulated home) must not settle a run that acted on this hub;
    /// nil when it may, with `note` set when it goes on against the same hub reached at another endpoint.
    func refusal(recoveringOn current: RemoteHubIdentity?, note: inout String?) -> String? {
        let again = "recover with --hub \(ShellWord.quoted(endpoint))"
        guard let current else {
            return "the run acted on \(described), and this recovery acts on the simulated home: its session and devices "
                + "are not there; \(again)"
        }
        if let name, let other = current.name, name != other {
            return "the run acted on \(described), and this recovery asks \(current.described): its session and devices "
                + "are not there; \(again)"
        }
        if current.endpoint != endpoint {
            note = "the run acted on \(described); this recovery asks the hub at \(current.endpoint), taken for the same hub "
                + "as it gives the same name"
        }
        return nil
    }
}
