import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator

/// Opens the simulated home the way `run` does: the state directory's saved home, else `--home`, else the
/// built-in home.
struct SimulatedHomeOpener {
    let homePath: String?
    let stateDirectory: String?
    /// Save a `--home` file to a state directory that holds no home yet as soon as it is opened (`run`,
    /// `hub serve`), so the next process on the directory starts from it even when this one changes nothing;
    /// otherwise (`recover`) the directory is written only by a change.
    var seedsState = false

    /// The hub and its structure, plus a note when `--home` is ignored because the state directory has a home, and
    /// the `--home` file's warnings when it is used.
    func open(clock: any WorkflowClock) throws(DiagnosticsError) -> (hub: SimulatedHub, structureID: StructureID, note: String?, warnings: [Diagnostic]) {
        let loaded = try homePath.map { path throws(DiagnosticsError) in try HomeDescription.loadWithWarnings(path: path) }
        let initial = loaded?.home ?? HomeDescription.defaultHome
        let warnings = loaded?.warnings ?? []
        do {
            if let stateDirectory {
                let store = try HomeStateStore(directory: stateDirectory, startingFrom: initial)
                if seedsState, homePath != nil, !store.restored {
                    // The --home file seeds the directory now, not at the first change: a run that changes nothing
                    // still leaves the home for the next run on this directory.
                    do {
                        try store.seed()
                    } catch {
                        throw DiagnosticsError([
                            Diagnostic(
                                severity: .error, code: HomeStateStore.unusableDirectoryCode,
                                message: error.message,
                                file: stateDirectory)
                        ])
                    }
                }
                let note = store.restored && homePath != nil
                    ? "note: using the saved home in \(store.path); --home only seeds an empty state directory" : nil
                return (try SimulatedHub(stateStore: store, clock: clock), store.structureID, note, store.restored ? [] : warnings)
            }
            return (try SimulatedHub(home: initial, clock: clock), initial.structure.id, nil, warnings)
        } catch let error as DiagnosticsError {
            throw error
        } catch {
            throw DiagnosticsError([
                Diagnostic(severity: .error, code: DiagnosticCode.invalidValue, message: "\(error)", file: homePath ?? stateDirectory)
            ])
        }
    }
}
