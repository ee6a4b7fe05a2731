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
        /// The first four bytes of every form of every secret kept (and of some no longer kept, until the set is made
        /// again): a line with none of them needs no run's search.
        var quads: Set<UInt32> = []
        /// Each kept run's ``SecretValues/generation`` when its quads were taken, by its ``SecretValues/serial``.
        var seen: [UInt64: Int] = [:]
        /// The kept runs with a secret holding a character outside ASCII, which a line may spell with other bytes
        /// than its quads: while there is one, every line is searched.
        var outsideASCII: Set<UInt64> = []
        /// The kept runs with a secret that may be a setup passcode: while there is one, a line that may hold a
        /// setup code is searched (``SecretValues/mayHoldSetupCode(_:)``).
        var readingSetupCodes: Set<UInt64> = []
        /// Runs whose quads are in ``quads`` but which are kept no more: the set is made again past a number of them.
        var dropped = 0
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

    /// `text` with every secret of the runs kept here replaced by ``RunOptions/redacted``, all runs' in one pass: a
    /// secret of one run that overlaps another's, or lies inside it, leaves no part of either.
    ///
    /// A line is searched for the runs' secrets only when four of its neighbouring bytes begin some run's secret (or
    /// it is short enough to be a short secret whole): a hub's ordinary lines cost one pass, however many runs are kept.
    public func redacting(_ text: String) -> String {
        let (all, known) = state.withLock { state -> ([SecretValues], [UInt64: Int]) in
            var unique = Set<UInt64>()
            var all: [SecretValues] = []
            for secrets in state.running.compactMap(\.secrets) + state.recent where unique.insert(secrets.serial).inserted {
                all.append(secrets)
            }
            return (all, state.seen)
        }
        // The runs whose secrets grew since their quads were taken (taken outside the lock: each run has its own).
        var grown: [(UInt64, Int, (quads: [UInt32], outsideASCII: Bool, readsSetupCodes: Bool))] = []
        for secrets in all {
            let generation = secrets.generation
            if known[secrets.serial] != generation { grown.append((secrets.serial, generation, secrets.leadingQuads())) }
        }
        let mayHold = state.withLock { state -> Bool in
            let kept = Set(all.map(\.serial))
            let gone = state.seen.keys.filter { !kept.contains($0) }
            if !gone.isEmpty {
                state.dropped += gone.count
                for id in gone {
                    state.seen.removeValue(forKey: id)
                    state.outsideASCII.remove(id)
                    state.readingSetupCodes.remove(id)
                }
            }
            if state.dropped > 1024 {
                // Made again from the runs kept: their quads are taken anew at the next line.
                state.quads = []
                state.seen = [:]
                state.outsideASCII = []
                state.readingSetupCodes = []
                state.dropped = 0
                return true
            }
            for (id, generation, taken) in grown {
                state.quads.formUnion(taken.quads)
                state.seen[id] = generation
                if taken.outsideASCII { state.outsideASCII.insert(id) } else { state.outsideASCII.remove(id) }
                if taken.readsSetupCodes { state.readingSetupCodes.insert(id) } else { state.readingSetupCodes.remove(id) }
            }
            return !state.outsideASCII.isEmpty || Self.mayHold(text, quads: state.quads)
                || (!state.readingSetupCodes.isEmpty && text.utf8.withContiguousStorageIfAvailable(SecretValues.mayHoldSetupCode) != false)
        }
        let redacted = mayHold ? SecretValues.redacting(text, across: all) : text
        return members.redacting(redacted)
    }

    /// Whether `text` may hold a form whose first four bytes are one of `quads`, is short enough to be a short
    /// secret whole, or holds a character outside ASCII (which may spell a secret's character with other bytes: a
    /// Kelvin sign for `K`, a composed `é` for a decomposed one).
    private static func mayHold(_ text: String, quads: Set<UInt32>) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count > 16, bytes.allSatisfy({ $0 < 0x80 }) else { return true }
        for index in 0...(bytes.count - 4) where quads.contains(SecretValues.quad(bytes, at: index)) { return true }
        return false
    }
}
