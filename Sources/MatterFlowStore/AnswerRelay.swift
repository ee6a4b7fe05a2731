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
/// (`NOTIFY matterflow_answers`, on a connection of the relay's own). Reads are made one at a time on a queue of the
/// relay's own, never on the caller's thread (a read may wait out a store outage), so each answer reaches its run
/// once, in the order given; a read that fails is made again a second later while the run is attached.
final class AnswerRelay: Sendable {
    private struct Attached {
        let handle: RunHandle
        /// The number of the last answer handed to the run.
        var through: Int64
    }

    private let store: PostgresRunStore
    private let secrets: SecretInbox?
    private let log: @Sendable (String) -> Void
    private let runs = Mutex<[String: Attached]>([:])
    /// Where answers are read and handed over, one run at a time.
    private let queue = DispatchQueue(label: "matterflow.answers")
    private let listener = Mutex<QueueListener?>(nil)
    /// How long a failed read waits before it is made again.
    static let retryMilliseconds = 1000

    init(store: PostgresRunStore, secrets: SecretInbox?, log: @escaping @Sendable (String) -> Void) {
        self.store = store
        self.secrets = secrets
        self.log = log
    }

    /// Starts listening for answers: from then on, none announced is missed (after a reconnection every attached
    /// run's answers are read again, as announcements may have been lost meanwhile).
    func start() {
        let started = QueueListener(conninfo: store.conninfo, channel: "matterflow_answers") { [weak self] notifications in
            guard let self else { return }
            let runIDs = notifications.map { Set($0.map(\.payload)) } ?? Set(self.runs.withLock { Array($0.keys) })
            for runID in runIDs.sorted() { self.queue.async { self.deliver(to: runID) } }
        }
        listener.withLock { $0 = started }
    }

    func stop() {
        listener.withLock { listener in
            defer { listener = nil }
            return listener
        }?.stop()
    }

    /// Lets answers given to the run reach it through `handle`, starting after answer number `through`, and hands
    /// it those given since (on the relay's queue: this returns at once).
    func attach(_ handle: RunHandle, to runID: String, through: Int64) {
        runs.withLock { $0[runID] = Attached(handle: handle, through: through) }
        queue.async { self.deliver(to: runID) }
    }

    /// The run has ended: answers given to it now are not read.
    func detach(_ runID: String) {
        _ = runs.withLock { $0.removeValue(forKey: runID) }
    }

    /// Reads the run's answers past the last it was handed, and hands them over. Called on ``queue`` only.
    private func deliver(to runID: String) {
        guard let attached = runs.withLock({ $0[runID] }) else { return }
        let given: [GivenAnswer]
        do throws(StoreError) {
            given = try store.answers(of: runID, after: attached.through)
        } catch {
            log("run \(runID): could not read the answers given to it (\(error.message)); trying again")
            queue.asyncAfter(deadline: .now() + .milliseconds(Self.retryMilliseconds)) { self.deliver(to: runID) }
            return
        }
        guard let last = given.last else { return }
        var secretValues: JSONObject?
        for answer in given {
            var value = answer.value
            if answer.secret {
                if secretValues == nil { secretValues = readSecrets(of: runID) }
                guard let secret = secretValues?[answer.name] else {
                    log("run \(runID): the answer to \(answer.name) is secret and not in this worker's --secrets directory; the question waits on")
                    continue
                }
                value = secret
            }
            do throws(AnswerError) {
                switch try attached.handle.give(value, to: answer.name) {
                case .answered: log("run \(runID): answered \(answer.name)")
                case .kept: log("run \(runID): the answer to \(answer.name) waits until the run asks it")
                }
            } catch {
                log("run \(runID): the answer to \(answer.name) was not taken: \(error.message)")
            }
        }
        runs.withLock { runs in
            if runs[runID] != nil { runs[runID]?.through = last.sequence }
        }
    }

    private func readSecrets(of runID: String) -> JSONObject {
        guard let secrets else { return [:] }
        do throws(StoreError) {
            return try secrets.take(runID: runID, kind: .answers)
        } catch {
            log(error.message)
            return [:]
        }
    }
}
