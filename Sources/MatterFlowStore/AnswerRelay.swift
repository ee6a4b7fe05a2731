import Dispatch
import MatterFlow
import MatterFlowJSON
import Synchronization

/// Hands the answers given to a worker's runs after submit (`matterflow answer`, ``PostgresRunStore/answer(runID:name:value:secret:)``)
/// to the runs themselves: the question waiting takes its answer at once, and an answer to a question not asked yet
/// is kept for when the run asks it (``RunHandle/give(_:to:)``).
///
/// A run is attached with the number of the last answer its claim already held (``ClaimedRun/answeredThrough``);
/// the relay then reads the answers past it, and again each time the store announces one for the run
/// (`NOTIFY matterflow_answers`, heard by the worker's listener: ``announced(_:)``). Reads are made one at a time on a queue of the
/// relay's own, never on the caller's thread (a read may wait out a store outage), so each answer reaches its run
/// once, in the order given; a read that fails is made again a second later while the run is attached.
///
/// A secret answer's value waits in the worker's secrets directory (``SecretInbox``), which may be a copy that is
/// brought up to date later than the store announces the answer (a synchronised volume): one not there yet is looked
/// for again every second while the run is attached, and handed over when it appears.
final class AnswerRelay: Sendable {
    private struct Attached {
        let handle: RunHandle
        /// The number of the last answer read for the run.
        var through: Int64
        /// Secret answers read whose values were not in the secrets directory yet, in the order given.
        var missingSecrets: [GivenAnswer] = []
        /// Whether a look for them again is due (one at a time).
        var lookAgainDue = false
    }

    private let store: PostgresRunStore
    private let secrets: SecretInbox?
    private let log: WorkerLog
    /// The runs attached; nil once closed.
    private let runs = Mutex<[String: Attached]?>([:])
    /// Where answers are read and handed over, one run at a time.
    private let queue = DispatchQueue(label: "matterflow.answers")
    /// How long a failed read waits before it is made again.
    static let retryMilliseconds = 1000

    init(store: PostgresRunStore, secrets: SecretInbox?, log: @escaping WorkerLog) {
        self.store = store
        self.secrets = secrets
        self.log = log
    }

    /// The store announced answers to these runs (`NOTIFY matterflow_answers`); nil after the worker's listener
    /// reconnected, when announcements may have been lost: every attached run's answers are read again.
    func announced(_ runIDs: Set<String>?) {
        let reading = runIDs ?? runs.withLock { Set($0.map { Array($0.keys) } ?? []) }
        for runID in reading.sorted() { queue.async { self.deliver(to: runID) } }
    }

    /// Lets answers given to the run reach it through `handle`, starting after answer number `through`, and hands
    /// it those given since (on the relay's queue: this returns at once). `missingSecrets` names secret answers its
    /// claim holds whose values were not in the secrets directory then: they are looked for again.
    func attach(_ handle: RunHandle, to runID: String, through: Int64, missingSecrets: [String] = []) {
        let missing = missingSecrets.map { GivenAnswer(sequence: 0, name: $0, value: .string(RunOptions.redacted), secret: true) }
        guard runs.withLock({ runs -> Bool in
            runs?[runID] = Attached(handle: handle, through: through, missingSecrets: missing)
            return runs != nil
        }) else { return }
        if !missing.isEmpty {
            log(.warning, runID, "run \(runID): the answers to \(missingSecrets.joined(separator: ", ")) are secret and not in this worker's --secrets directory yet; the directory is looked at again every second")
        }
        queue.async { self.deliver(to: runID) }
    }

    /// Hands nothing more to any run, now or later (the worker is stopping: its runs park where they wait and go
    /// back to the queue, and the answers wait in the store for the worker that claims them next).
    func close() {
        runs.withLock { $0 = nil }
    }

    /// The run has ended: answers given to it now are not read.
    func detach(_ runID: String) {
        _ = runs.withLock { $0?.removeValue(forKey: runID) }
    }

    /// Reads the run's answers past the last read, and hands them over with the secret ones still missing. Called
    /// on ``queue`` only.
    private func deliver(to runID: String) {
        guard let attached = runs.withLock({ $0?[runID] }) else { return }
        let given: [GivenAnswer]
        do throws(StoreError) {
            given = try store.answers(of: runID, after: attached.through)
        } catch {
            log(.warning, runID, "run \(runID): could not read the answers given to it (\(error.message)); trying again")
            queue.asyncAfter(deadline: .now() + .milliseconds(Self.retryMilliseconds)) { self.deliver(to: runID) }
            return
        }
        runs.withLock { runs in
            if let last = given.last { runs?[runID]?.through = last.sequence }
        }
        // A secret answer still missing yields to a newer answer to the same question, read now or before.
        let combined = attached.missingSecrets + given
        let kept = Self.lastOfEachName(combined)
        hand(kept.map { combined[$0] }, to: runID, handle: attached.handle, firstSeen: kept.filter { $0 < attached.missingSecrets.count }.count)
    }

    /// The positions of the last answer given to each name, in the order given.
    static func lastOfEachName(_ answers: [GivenAnswer]) -> [Int] {
        var last: [String: Int] = [:]
        for (index, answer) in answers.enumerated() { last[answer.name] = index }
        return answers.indices.filter { last[answers[$0].name] == $0 }
    }

    /// Hands answers to the run in order; a secret one whose value is not in the secrets directory is kept to be
    /// looked for again (answers from `firstSeen` on are new: a missing one is logged once).
    private func hand(_ answers: [GivenAnswer], to runID: String, handle: RunHandle, firstSeen: Int) {
        guard !answers.isEmpty else { return }
        var secretValues: JSONObject?
        var missing: [GivenAnswer] = []
        for (index, answer) in answers.enumerated() {
            var value = answer.value
            if answer.secret {
                guard secrets != nil else {
                    log(.warning, runID, "run \(runID): the answer to \(answer.name) is secret and this worker has no --secrets directory; it cannot reach the run")
                    continue
                }
                if secretValues == nil { secretValues = readSecrets(of: runID, quietly: index < firstSeen) }
                guard let secret = secretValues?[answer.name] else {
                    if index >= firstSeen {
                        log(.warning, runID, "run \(runID): the answer to \(answer.name) is secret and not in this worker's --secrets directory yet; the question waits on, and the directory is looked at again every second")
                    }
                    missing.append(answer)
                    continue
                }
                value = secret
            }
            do throws(AnswerError) {
                switch try handle.give(value, to: answer.name) {
                case .answered: log(.info, runID, "run \(runID): answered \(answer.name)")
                case .kept: log(.info, runID, "run \(runID): the answer to \(answer.name) waits until the run asks it")
                }
            } catch {
                log(.warning, runID, "run \(runID): the answer to \(answer.name) was not taken: \(error.message)")
            }
        }
        let lookAgain = runs.withLock { runs -> Bool in
            guard var attached = runs?[runID] else { return false }
            attached.missingSecrets = missing
            let due = !missing.isEmpty && !attached.lookAgainDue
            if due { attached.lookAgainDue = true }
            runs?[runID] = attached
            return due
        }
        if lookAgain {
            queue.asyncAfter(deadline: .now() + .milliseconds(Self.retryMilliseconds)) { self.lookAgain(for: runID) }
        }
    }

    /// Looks for the run's missing secret answers in the secrets directory again. Called on ``queue`` only.
    private func lookAgain(for runID: String) {
        let found = runs.withLock { runs -> Attached? in
            runs?[runID]?.lookAgainDue = false
            return runs?[runID]
        }
        guard let attached = found else { return }
        hand(attached.missingSecrets, to: runID, handle: attached.handle, firstSeen: attached.missingSecrets.count)
    }

    /// The run's answers to secret questions in the secrets directory; none when the file is not there, or cannot
    /// be read (said in the log unless `quietly`).
    private func readSecrets(of runID: String, quietly: Bool) -> JSONObject {
        guard let secrets else { return [:] }
        do throws(StoreError) {
            return try secrets.takeIfPresent(runID: runID, kind: .answers) ?? [:]
        } catch {
            if !quietly { log(.warning, nil, error.message) }
            return [:]
        }
    }
}
