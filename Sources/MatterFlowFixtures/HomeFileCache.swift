import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization

/// Home files a fixture loader has already decoded, by resolved path.
///
/// Fixtures of one library share a few homes; decoding each once per ``FixtureLoader`` keeps `matterflow test` from
/// holding a decoded copy per fixture (400 fixtures on one 5,000-device home took 914 MB and 20 s; the fixtures'
/// homes share one copy's storage now).
final class HomeFileCache: Sendable {
    private let homes = Mutex<[String: Result<HomeDescription, DiagnosticsError>]>([:])

    /// The home at `path`, decoded on first use; the same findings again for a file that has errors.
    func home(path: String) throws(DiagnosticsError) -> HomeDescription {
        let result: Result<HomeDescription, DiagnosticsError>
        if let cached = homes.withLock({ $0[path] }) {
            result = cached
        } else {
            do {
                result = .success(try HomeDescription.load(path: path))
            } catch {
                result = .failure(error)
            }
            homes.withLock { $0[path] = result }
        }
        return try result.get()
    }
}
