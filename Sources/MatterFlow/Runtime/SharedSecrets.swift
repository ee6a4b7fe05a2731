import Synchronization

/// The secrets of the runs of one process, to take out of text that no one run produced: the lines a hub command
/// writes on its standard error, which a worker logs while many runs share the hub.
///
/// A run given this object (``RunOptions/sharedSecrets``; a recovered run, its recovery options' `sharedSecrets`) adds
/// its secrets to it as it learns them: its secret inputs and answers, secret arguments, and secret result and event
/// fields once it has read them, with every other spelling of each that the run's own redaction knows (an onboarding
/// payload's manual code and passcode, a dataset's Network Key and PSKc). ``redacting(_:)`` replaces them all with
/// ``RunOptions/redacted``. A run's secrets are kept while the run goes on, and for those of the last ``recentRuns``
/// runs started, after it ended too: a hub may log a call after it answered it.
///
/// A secret the hub makes (an ePSKc) may be in a line the hub writes before the run has read the answer carrying it,
/// or in the answer to a call the run gave up on: no run knows it then. So the values written after the names of
/// secret members (``OperationCatalog/secretNames``: `"epskc": "..."`, `epskc=...`) are taken out too, whoever's
/// they are.
public final class SharedSecrets: Sendable {
    /// How many of the runs started last keep their secrets here after they end.
    public let recentRuns: Int

    private struct Registered: Sendable {
        weak var secrets: SecretValues?
    }

    private struct State {
        /// Every run's secrets that may still be going on (released ones are dropped as more come).
        var running: [Registered] = []
        /// The secrets of the runs started last, kept whether or not the run ended.
        var recent: [SecretValues] = []
        var nextRecent = 0
    }

    private let state = Mutex(State())
    private let members: SecretMembers

    /// Secrets of no run yet; `recentRuns` of them are kept after their runs end (256 by default); the values after
    /// `secretNames` are taken out of any text (``OperationCatalog/secretNames`` of the runs' catalog).
    public init(recentRuns: Int = 256, secretNames: Set<String> = []) {
        self.recentRuns = max(0, recentRuns)
        members = SecretMembers(secretNames)
    }

    /// Takes in the secrets of a run that starts or resumes.
    func add(_ secrets: SecretValues) {
        state.withLock { state in
            // Runs that ended are dropped once they outnumber the running ones, so the list stays as long as the
            // number of runs at once.
            if state.running.count >= 64, state.running.count.isMultiple(of: 64) {
                state.running.removeAll { $0.secrets == nil }
            }
            state.running.append(Registered(secrets: secrets))
            guard recentRuns > 0 else { return }
            if state.recent.count < recentRuns {
                state.recent.append(secrets)
            } else {
                state.recent[state.nextRecent] = secrets
            }
            state.nextRecent = (state.nextRecent + 1) % recentRuns
        }
    }

    /// `text` with every secret of the runs kept here replaced by ``RunOptions/redacted``.
    public func redacting(_ text: String) -> String {
        let all = state.withLock { state -> [SecretValues] in
            var seen = Set<ObjectIdentifier>()
            var all: [SecretValues] = []
            for secrets in state.running.compactMap(\.secrets) + state.recent where seen.insert(ObjectIdentifier(secrets)).inserted {
                all.append(secrets)
            }
            return all
        }
        return members.redacting(all.reduce(text) { text, secrets in secrets.redacting(text) })
    }
}
