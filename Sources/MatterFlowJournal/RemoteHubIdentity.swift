import MatterFlowJSON

/// The hub a run called over the hub protocol (`--hub`), as its `runStarted` record names it: recovery settles the
/// run only against that hub, since its session and devices are there and nowhere else.
///
/// Two hubs are told apart by what can be known of them: the instance ID a hub keeps with its state and gives in its
/// handshake (`hub.instance`), where it was reached (`unix:PATH`, `tcp:HOST:PORT`, or the program of a hub command,
/// whose arguments may hold tokens and are not recorded) and the name it gave. When both the run's hub and this
/// recovery's give an instance ID, it decides: the same ID reached elsewhere is the same hub (a note names both
/// places), another ID is another hub even at the same place (the run's moved, or was replaced). Otherwise a
/// recovery on the simulated home, or on a hub that gives another name, is deferred; so is one on a hub reached
/// elsewhere when either gave no name. One on a hub of the same name reached elsewhere (a socket moved, a host named
/// by its address) goes on, with a note naming both: a name says what software a hub is, so two instances of one
/// product that give no instance ID are told apart only by where they are reached.
public struct RemoteHubIdentity: Sendable, Hashable {
    /// Where the hub was reached: `unix:PATH` or `tcp:HOST:PORT` as given, or a hub command's program followed by
    /// ` …` when it had arguments.
    public var endpoint: String
    /// The name from the hub's handshake; nil when it gave none.
    public var name: String?
    /// The instance ID from the hub's handshake (`hub.instance`); nil when it gave none.
    public var instance: String?

    /// The hub recorded as `endpoint`, whose handshake named it `name` and gave the instance ID `instance`.
    public init(endpoint: String, name: String?, instance: String? = nil) {
        self.endpoint = endpoint
        self.name = name
        self.instance = instance
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
        if let instance, let other = current.instance {
            guard instance == other else {
                return "the run acted on \(described) (instance \(instance)), and this recovery asks \(current.described), "
                    + "instance \(other): another hub, where its session and devices are not; recover with the --hub at "
                    + "which the hub of instance \(instance) answers now"
            }
            if current.endpoint != endpoint {
                note = "the run acted on \(described); this recovery asks the hub at \(current.endpoint), the same hub "
                    + "(instance \(instance))"
            }
            return nil
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
