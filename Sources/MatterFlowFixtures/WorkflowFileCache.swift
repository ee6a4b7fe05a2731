import MatterFlow
import Synchronization

/// Workflow files a fixture loader has already loaded and validated, by resolved path.
///
/// A fixture library names the same few workflows many times (118 fixtures, 15 workflows); loading each once
/// per ``FixtureLoader`` keeps `matterflow test` from parsing and verifying them again for every fixture.
final class WorkflowFileCache: Sendable {
    private let outcomes = Mutex<[String: WorkflowLoader.Outcome]>([:])

    /// The outcome of loading `path`, loading it on first use.
    func outcome(path: String, catalog: OperationCatalog) -> WorkflowLoader.Outcome {
        if let cached = outcomes.withLock({ $0[path] }) { return cached }
        let outcome = WorkflowLoader(catalog: catalog).load(path: path)
        outcomes.withLock { $0[path] = outcome }
        return outcome
    }
}
