import Synchronization

/// What a fixture loader made of files it read before (a workflow's load outcome, a home file's decoding), by
/// resolved path.
///
/// A fixture library names the same few workflows and homes many times (118 fixtures, 15 workflows); making each
/// once per ``FixtureLoader`` keeps `matterflow test` from parsing and verifying workflows again for every fixture,
/// and from holding a decoded home per fixture (400 fixtures on one 5,000-device home took 914 MB and 20 s; they
/// share one copy's storage now).
final class FileOutcomeCache<Outcome: Sendable>: Sendable {
    private let outcomes = Mutex<[String: Outcome]>([:])

    /// What `make` gives for `path`, made on first use.
    func outcome(path: String, make: (String) -> Outcome) -> Outcome {
        if let cached = outcomes.withLock({ $0[path] }) { return cached }
        let outcome = make(path)
        outcomes.withLock { $0[path] = outcome }
        return outcome
    }
}
