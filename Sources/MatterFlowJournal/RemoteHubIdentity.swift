import MatterFlowJSON

/// The hub a run called over the hub protocol (`--hub`), as its `runStarted` record names it: recovery settles the
/// run only against that hub, since its session and devices are there and nowhere else.
///
/// Two hubs are told apart by what can be known of them: where the hub was reached (`unix:PATH`, `tcp:HOST:PORT`, or
/// the program of a hub command, whose arguments may hold tokens and are not recorded) and the name the hub gave in
/// its handshake. A recovery on the simulated home, or on a hub that gives another name, is deferred; so is one on a
/// hub reached elsewhere when either gave no name. One on a hub of the same name reached elsewhere (a socket moved,
/// a host named by its address) goes on, with a note naming both: a hub's name says what software it is, so two
/// instances of one product are told apart only by where they are reached.
public struct RemoteHubIdentity: Sendable, Hashable {
    /// Where the hub was reached: `unix:PATH` or `tcp:HOST:PORT` as given, or a hub command's program followed by
    /// ` …` when it had arguments.
    public var endpoint: String
    /// The name from the hub's handshake; nil when it gave none.
    public var name: String?

    /// The hub recorded as `endpoint`, whose handshake named it `name`.
    public init(endpoint: String, name: String?) {
        self.endpoint = endpoint
        self.name = name
    }

    /// `hub NAME at ENDPOINT`, or `the hub at ENDPOINT` when it gave no name.
    var described: String {
        name.map { "hub \($0) at \(endpoint)" } ?? "the hub at \(endpoint)"
    }

    /// What to give `recover`: the `--hub` itself, or, for a command, which one.
    private var again: String {
        endpoint.hasPrefix("unix:") || endpoint.hasPrefix("tcp:")
            ? "recover with --hub \(ShellWord.quoted(endpoint))"
            : "recover with the --hub the run was given (the command \(endpoint))"
    }

    /// Why a recovery acting on `current` (nil: the simulated home) must not settle a run that acted on this hub;
    /// nil when it may, with `note` set when it goes on against the same hub reached elsewhere.
    func refusal(recoveringOn current: RemoteHubIdentity?, note: inout String?) -> String? {
        guard let current else {
            return "the run acted on \(described), and this recovery acts on the simulated home: its session and devices "
                + "are not there; \(again)"
        }
        guard current.endpoint != endpoint else { return nil }
        guard let name, let other = current.name, name == other else {
            return "the run acted on \(described), and this recovery asks \(current.described): its session and devices "
                + "are not there; \(again)"
        }
        note = "the run acted on \(described); this recovery asks the hub at \(current.endpoint), taken for the same hub "
            + "as it gives the same name"
        return nil
    }
}
