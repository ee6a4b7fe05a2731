import MatterFlow

/// What a simulated hub keeps about ePSKc only in memory, never in saved state: each border router's ePSKc session,
/// with the tasks acting on its active key (the expiry timer and the scripted commissioner), and the source of
/// new keys.
///
/// Keys are not persisted: a key is valid for minutes of the hub's clock, and a later process starts a new clock,
/// so a saved key could never expire correctly. A border router seen by a new process has no active key.
struct EpskcRuntime {
    /// One border router's ePSKc mode.
    struct Router {
        var session: EpskcSession
        /// Counts activations, so that a timer or commissioner of an earlier key never acts on a later one.
        var activation = 0
        /// The expiry timer and the commissioner of the active key; cancelled when the key ends.
        var tasks: [Task<Void, Never>] = []
    }

    /// Per structure, per border-router device ID; created on first use from the router's capabilities.
    var routers: [StructureID: [String: Router]] = [:]
    /// Where new keys' digits come from: the system's secure generator unless a test sets another.
    var random: any RandomSource = SystemRandomSource()
    /// Commissioner scripts that replace the home's for every border router of a structure (`--commissioner`).
    var scriptOverrides: [StructureID: [HomeDescription.CommissionerStep]] = [:]
}
