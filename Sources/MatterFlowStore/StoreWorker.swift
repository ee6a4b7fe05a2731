import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import Synchronization

/// How a worker runs.
public struct WorkerOptions: Sendable {
    /// The worker's ID in the store (`host-pid-xxxx` by default in the CLI).
    public var workerID: String
    /// Starts runs while fewer than this many work: a run waiting for an answer, a delay or a hub event (its last
    /// event began the wait) takes no slot, up to ``maxWaiting`` such runs more. A waiting run that wakes works even
    /// when every slot is taken, so for a moment more may work.
    public var concurrency: Int
    /// How many runs beyond ``concurrency`` the worker holds at most while they wait (each a suspended task of a few
    /// tens of KB): past it, a waiting run keeps its slot.
    public var maxWaiting: Int
    /// How long a claim lasts without a heartbeat; another worker takes the runs over after it.
    public var leaseSeconds: Double
    /// The lease length a worker has unless told otherwise.
    public static let defaultLeaseSeconds: Double = 10
    /// The safety net: how often an idle worker looks for work when the store has announced none (it listens
    /// for `NOTIFY matterflow_queue`, and wakes when the earliest lease of another worker's run runs out).
    public var pollMilliseconds: Int
    /// Resume taken-over runs where that is safe (`matterflow recover --resume`), instead of taking their cancel path.
    public var resume: Bool
    /// Where the runs' secret inputs wait (``SecretInbox``); nil when the runs have none.
    public var secrets: SecretInbox?
    /// Stop once the store has no queued and no running run left (tests and batch jobs).
    public var exitWhenIdle: Bool
    /// How long graceful shutdown waits for running runs before it hands them back.
    public var drainSeconds: Double
    /// Loads workflows; its catalog is the one runs use (wrapped for the fleet's session lock).
    public var engine: WorkflowEngine
    /// The clock of the runs' timeouts and retries.
    public var clock: any WorkflowClock
    /// The clock the runs' questions time out on: people answer in real time, whatever clock the runs use. A run
    /// waiting for an answer does not hold ``clock`` meanwhile, so the worker's other runs go on in virtual time.
    public var questionClock: any WorkflowClock
    /// Told what the worker does, one line per event (the CLI prints them); nil for silence.
    public var log: (@Sendable (String) -> Void)?
    /// Called each time the worker found nothing to claim and starts waiting (tests).
    public var idle: (@Sendable () -> Void)?
    /// Whether the answer to the worker's n-th claim (1, 2, ...) is dropped after the store has committed it, as when
    /// the connection breaks then (tests of a lost reply).
    var dropsClaimReply: (@Sendable (Int) -> Bool)? = nil

    public init(
        workerID: String, concurrency: Int = 32, maxWaiting: Int = 1000, leaseSeconds: Double = defaultLeaseSeconds, pollMilliseconds: Int = 5000,
        resume: Bool = false, secrets: SecretInbox? = nil, exitWhenIdle: Bool = false, drainSeconds: Double = 30,
        engine: WorkflowEngine = WorkflowEngine(), clock: any WorkflowClock = SystemClock(),
        questionClock: any WorkflowClock = SystemClock(),
        log: (@Sendable (String) -> Void)? = nil, idle: (@Sendable () -> Void)? = nil
    ) {
        self.workerID = workerID
        self.concurrency = concurrency
        self.maxWaiting = maxWaiting
        self.leaseSeconds = leaseSeconds
        self.pollMilliseconds = pollMilliseconds
        self.resume = resume
        self.secrets = secrets
        self.exitWhenIdle = exitWhenIdle
        self.drainSeconds = drainSeconds
        self.engine = engine
        self.clock = clock
        self.questionClock = questionClock
        self.log = log
        self.idle = idle
    }
}

/// What a worker did before it stopped.
public struct WorkerSummary: Sendable, Hashable {
    /// Runs it started and finished, by final status.
    public var finished: [String: Int] = [:]
    /// Runs whose worker died that it settled (recovery) or started afresh (they had not begun).
    public var takenOver: Int = 0
    /// Runs it handed back at shutdown.
    public var handedBack: Int = 0
    /// Journal records it wrote, and the transactions (group commits) that carried them.
    public var records: Int = 0
    public var transactions: Int = 0
}

/// A member of a fleet: claims queued runs from a ``PostgresRunStore``, runs them through the journal's public API
/// with their records in the store, heartbeats their leases, and settles the runs of workers whose leases ran out
/// with the same reconcile-then-cancel-or-resume logic as `matterflow recover` (see `docs/store.md`).
public final class StoreWorker: Sendable {
    public typealias HubProvider = @Sendable (StructureID) async throws -> any Hub

    private struct State {
        var active: [String: Task<Void, Never>] = [:]
        /// The active runs waiting for an answer, a delay or a hub event (``RunIdleness``): they take no slot.
        var waiting: Set<String> = []
        /// Runs claimed ahead, not started yet: started, in the order claimed, as slots free (``prefetch``).
        var claimedAhead: [ClaimedRun] = []
        /// The pause switch of each run the worker started or settles (recovery parks only a run it resumes).
        var pauses: [String: RunPause] = [:]
        /// Active runs whose lease passed to another worker (``GroupCommitter/fence(_:because:)``): their tasks still
        /// end here, making no call and writing nothing; the run is the other worker's.
        var fenced: Set<String> = []
        /// The claim count of each active run's claim here: which task of the run a heartbeat saw.
        var claims: [String: Int] = [:]
        var summary = WorkerSummary()
        var stopping = false
        /// ``run(host:pid:)`` began and got past its start: the worker cannot run again.
        var started = false
    }

    public let store: PostgresRunStore
    public let options: WorkerOptions
    private let hubs: HubProvider
    private let committer: GroupCommitter
    private let engine: WorkflowEngine
    /// Hands the answers given to the worker's runs after submit (`matterflow answer`) to them.
    private let answerRelay: AnswerRelay
    /// Cancels the worker's runs whose cancel is asked for (`matterflow cancel`).
    private let cancelRelay: CancelRelay
    /// The key of the runs' secret digests: the secrets directory's (made there on first use), which every worker
    /// of the fleet reads; none without a secrets directory, whose runs have no secrets to digest. A key that cannot
    /// be read or made stops ``run(host:pid:)`` before it claims anything.
    private let digestKey: Result<SecretDigestKey?, JournalError>
    private let state = Mutex(State())
    /// Wakes the idle loop: work announced, a slot freed, stop asked.
    private let wake = WorkSignal()
    /// Runs whose release call failed (``FleetSessionGuard``), looked at again as they end.
    private let unconfirmedReleases = UnconfirmedReleases()
    /// How many queued runs a claim takes beyond the free slots, kept leased and started as slots free: a run ends
    /// (and a slot frees) at a time, so without it every run would cost a claim statement of its own.
    private var prefetch: Int { options.concurrency / 2 }

    /// - Parameter hubs: The hub for a structure (each run asks for its own structure's).
    public init(store: PostgresRunStore, hubs: @escaping HubProvider, options: WorkerOptions) {
        self.store = store
        self.options = options
        self.hubs = hubs
        committer = GroupCommitter(conninfo: store.conninfo, workerID: options.workerID)
        engine = WorkflowEngine(
            catalog: FleetSessionGuard(committer: committer, unconfirmed: unconfirmedReleases).wrapping(options.engine.catalog))
        let log: @Sendable (String) -> Void = { [log = options.log, id = options.workerID] line in log?("worker \(id): \(line)") }
        answerRelay = AnswerRelay(store: store, secrets: options.secrets, log: log)
        cancelRelay = CancelRelay(store: store, log: log)
        do throws(JournalError) {
            digestKey = .success(try options.secrets.map { inbox throws(JournalError) in try SecretDigestKey.loadOrCreate(inDirectory: inbox.directory) })
        } catch {
            digestKey = .failure(error)
        }
    }

    deinit {
        // A worker that never ran (or whose start failed) still has its committer's thread.
        committer.shutdown()
    }

    /// The key of the runs' secret digests (see ``digestKey``).
    private var key: SecretDigestKey? {
        if case .success(let key) = digestKey { key } else { nil }
    }

    /// Asks the worker to stop: it claims nothing more, asks its runs to park at their next checkpoint
    /// (``RunPause``), waits up to ``WorkerOptions/drainSeconds`` for each to end or park, hands the parked ones back
    /// to the queue with their position in their records, and hands the rest back for takeover.
    public func stop() {
        let pauses = state.withLock { state -> [RunPause] in
            state.stopping = true
            return Array(state.pauses.values)
        }
        for pause in pauses { pause.request() }
        wake.raise()
    }

    /// The group commit's batches and records so far.
    public var commitStatistics: (batches: Int, records: Int) { committer.statistics }

    /// Works until ``stop()`` (or, with ``WorkerOptions/exitWhenIdle``, until the store has nothing left to do).
    /// - Throws: ``StoreError`` when the store cannot be reached at start (the worker may be run again),
    ///   `invalidOptions` when an option is out of its range (``WorkerOptions/problem``), `workerUsed` when the
    ///   worker runs or ran already.
    ///
    /// It leaves the caller's actor (`@concurrent`): the store's commands block their thread for a round trip.
    @concurrent public func run(host: String, pid: Int) async throws(StoreError) -> WorkerSummary {
        let fresh = state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard fresh else {
            throw StoreError(.workerUsed, "worker \(options.workerID) runs or ran already; a StoreWorker runs once: make a new one")
        }
        do throws(StoreError) {
            if let problem = options.problem { throw StoreError(.invalidOptions, problem) }
            if case .failure(let error) = digestKey {
                throw StoreError(.secretsUnavailable, "the secrets directory's digest key: \(error.message)")
            }
            if let exposure = options.secrets.flatMap({ SecretDigestKey.exposure(inDirectory: $0.directory) }) {
                options.log?("warning: \(exposure)")
            }
            try store.registerWorker(options.workerID, host: host, pid: pid, leaseSeconds: options.leaseSeconds)
        } catch {
            // Nothing was claimed: the worker may be run again (once the store is back), its committer kept for it.
            state.withLock { $0.started = false }
            throw error
        }
        options.log?("worker \(options.workerID): claiming runs from \(store.name)")
        if options.secrets == nil {
            options.log?(
                "worker \(options.workerID): no --secrets directory: queued runs with secret inputs or answers are left to workers that have one")
        }
        // Heartbeats run on a thread of their own: the store's commands block their thread for a round trip, and
        // a busy pool must not delay the leases.
        let heartbeat = LeaseKeeper(intervalMilliseconds: Int(options.leaseSeconds * 1000 / 3)) { [self] in
            do throws(StoreError) {
                let seen = state.withLock { state in
                    var seen: [String: Int] = [:]
                    for runID in state.active.keys where !state.fenced.contains(runID) { seen[runID] = state.claims[runID] }
                    for run in state.claimedAhead { seen[run.runID] = run.claims }
                    return seen
                }
                let renewed = try store.heartbeat(options.workerID, running: Array(seen.keys), leaseSeconds: options.leaseSeconds)
                let notRenewed = seen.keys.filter { !renewed.contains($0) }
                if !notRenewed.isEmpty { leasesLost(try store.heldElsewhere(notRenewed, notBy: options.workerID), seen: seen) }
            } catch {
                options.log?("worker \(options.workerID): heartbeat failed: \(error.message)")
            }
        }
        defer { heartbeat.stop() }
        let listener = QueueListener(conninfo: store.conninfo, channel: "matterflow_queue", signal: wake)
        defer { listener.stop() }
        // Answers and cancels for the worker's runs, on a connection of their own: a busy queue does not delay them.
        let runMessages = QueueListener(conninfo: store.conninfo, channels: ["matterflow_answers", "matterflow_cancels"]) {
            [answerRelay, cancelRelay] notifications in
            guard let notifications else {
                answerRelay.announced(nil)
                cancelRelay.announced(nil)
                return
            }
            let answered = Set(notifications.filter { $0.channel == "matterflow_answers" }.map(\.payload))
            let cancelled = Set(notifications.filter { $0.channel == "matterflow_cancels" }.map(\.payload))
            if !answered.isEmpty { answerRelay.announced(answered) }
            if !cancelled.isEmpty { cancelRelay.announced(cancelled) }
        }
        defer { runMessages.stop() }
        var tokens = ClaimTokens(random: SystemRandomSource())
        var claims = 0
        while !state.withLock({ $0.stopping }) {
            // Runs claimed ahead start first; a claim is made only when none is left.
            let (ahead, free) = state.withLock { state -> ([ClaimedRun], Int) in
                let open = openSlots(state)
                let starting = min(open, state.claimedAhead.count)
                defer { state.claimedAhead.removeFirst(starting) }
                return (Array(state.claimedAhead.prefix(starting)), open - starting)
            }
            for run in ahead { launch(run) }
            var claimed: [ClaimedRun] = []
            if free > 0 {
                let token = tokens.next()
                claims += 1
                do throws(StoreError) {
                    claimed = try store.claim(
                        by: options.workerID, limit: free + prefetch, leaseSeconds: options.leaseSeconds, token: token,
                        unanswered: tokens.unanswered, takesSecrets: options.secrets != nil)
                    if options.dropsClaimReply?(claims) == true {
                        claimed = []
                        throw StoreError(.storeUnavailable, "the answer to claim \(claims) was lost (dropped for a test)")
                    }
                    tokens.answered()
                } catch {
                    // It may have claimed runs all the same: the next claim asks for them.
                    tokens.unanswered(token)
                    options.log?("worker \(options.workerID): claiming failed: \(error.message); trying again")
                }
            }
            claimed = claimedAgain(claimed)
            cancelRelay.hold(claimed.map(\.runID))
            for run in claimed.prefix(free) { launch(run) }
            state.withLock { $0.claimedAhead += claimed.dropFirst(free) }
            if claimed.isEmpty && ahead.isEmpty {
                if options.exitWhenIdle, state.withLock({ $0.active.isEmpty }), (try? store.isIdle(takesSecrets: options.secrets != nil)) == true {
                    break
                }
                options.idle?()
                await wake.wait(atMost: nextLook(free: free))
            } else {
                await Task.yield()
            }
        }
        await drain()
        committer.shutdown()
        do throws(StoreError) {
            try store.markStopped(options.workerID)
        } catch {
            options.log?("worker \(options.workerID): could not mark itself stopped (\(error.message)); `matterflow workers` shows it silent once its lease has passed")
        }
        let written = committer.statistics
        return state.withLock { state in
            state.summary.records = written.records
            state.summary.transactions = written.batches
            return state.summary
        }
    }

    /// How many runs the worker may start now: a slot for each run of ``WorkerOptions/concurrency`` not working
    /// (runs waiting for an answer, a delay or an event take none), while it holds at most
    /// ``WorkerOptions/maxWaiting`` runs more.
    private func openSlots(_ state: State) -> Int {
        let working = state.active.count - state.waiting.count
        return max(0, min(options.concurrency - working, options.concurrency + options.maxWaiting - state.active.count))
    }

    /// How long an idle worker waits for a signal before it looks again: the safety net, or less when a lease of
    /// another worker's run runs out sooner (a takeover is due then). A worker with no free slot waits for one of
    /// its runs to end.
    private func nextLook(free: Int) -> Duration {
        let safetyNet = Double(options.pollMilliseconds) / 1000
        var seconds = safetyNet
        if free > 0, let expiry = try? store.nextLeaseExpiry(excluding: options.workerID) {
            seconds = min(seconds, max(expiry, 0) + 0.02)
        }
        return .milliseconds(Int(max(seconds, 0.01) * 1000))
    }

    /// Runs whose lease passed to another worker (or back to the fleet) while their tasks still run here: their
    /// records, commands and hub calls are refused from now on, claimed runs not started are dropped, and the
    /// heartbeat leaves them out. A task ends as a run that lost the store does, without reaching the hub.
    /// Only the claims the heartbeat saw (`seen`: run ID and claim count) are fenced, under the state's lock: a
    /// run claimed here again since is left alone.
    private func leasesLost(_ runIDs: [String], seen: [String: Int]) {
        guard !runIDs.isEmpty else { return }
        let fenced = state.withLock { state -> [String] in
            let ahead = runIDs.filter { runID in state.claimedAhead.contains { $0.runID == runID && $0.claims == seen[runID] } }
            state.claimedAhead.removeAll { run in ahead.contains(run.runID) }
            for runID in ahead { cancelRelay.release(runID) }
            let running = runIDs.filter { state.active[$0] != nil && state.claims[$0] == seen[$0] && !state.fenced.contains($0) }
            state.fenced.formUnion(running)
            committer.fence(ahead + running, because: "this worker's lease of the run passed to another worker")
            return ahead + running
        }
        guard !fenced.isEmpty else { return }
        options.log?("worker \(options.workerID): lost the lease of run(s) \(fenced.sorted().joined(separator: ", ")) to another worker; they make no further call here")
    }

    /// The claimed runs to start. A run this worker holds and nobody claimed since (its lease ran out while the
    /// store was out of reach, and this claim, the next one, renewed it) goes on where it is. A run whose task here
    /// still ends though the run was claimed elsewhere meanwhile, or was fenced, is fenced (no further call from that
    /// task) and handed back to be claimed again a lease later, once the task has ended.
    private func claimedAgain(_ claimed: [ClaimedRun]) -> [ClaimedRun] {
        let (ours, waitFor, fenced) = state.withLock { state -> (Set<String>, [String], [String]) in
            var ours = Set<String>()
            var waitFor: [String] = []
            var fenced: [String] = []
            for run in claimed {
                if let index = state.claimedAhead.firstIndex(where: { $0.runID == run.runID }) {
                    if state.claimedAhead[index].claims + 1 == run.claims {
                        ours.insert(run.runID)
                        state.claimedAhead[index].claims = run.claims
                    } else {
                        // Claimed elsewhere meanwhile: this claim stands, the one kept ahead is stale.
                        state.claimedAhead.remove(at: index)
                    }
                    continue
                }
                guard state.active[run.runID] != nil else { continue }
                if !state.fenced.contains(run.runID), let held = state.claims[run.runID], held + 1 == run.claims {
                    ours.insert(run.runID)
                    state.claims[run.runID] = run.claims
                } else {
                    if state.fenced.insert(run.runID).inserted { fenced.append(run.runID) }
                    waitFor.append(run.runID)
                }
            }
            if !fenced.isEmpty { committer.fence(fenced, because: "another worker claimed the run while this worker's lease had run out") }
            return (ours, waitFor, fenced)
        }
        guard !ours.isEmpty || !waitFor.isEmpty else { return claimed }
        if !fenced.isEmpty {
            options.log?("worker \(options.workerID): run(s) \(fenced.joined(separator: ", ")) were claimed elsewhere while this worker's lease had run out; they make no further call here")
        }
        if !ours.isEmpty {
            options.log?("worker \(options.workerID): claimed its own run(s) \(ours.sorted().joined(separator: ", ")) again (their lease had run out): they go on here")
        }
        handBackForTakeover(waitFor, which: "whose earlier task here has not ended", after: options.leaseSeconds)
        return claimed.filter { !ours.contains($0.runID) && !waitFor.contains($0.runID) }
    }

    /// Ends this worker's leases of runs another worker must take over and settle (`which` says which runs, for
    /// the log), at once or `seconds` from now; when the store refuses, the leases run out instead. A run whose lease
    /// is no longer this worker's is its holder's: it is neither handed back nor counted.
    private func handBackForTakeover(_ runIDs: [String], which: String, after seconds: Double = 0) {
        guard !runIDs.isEmpty else { return }
        do {
            let handed = try store.handBack(runIDs, by: options.workerID, retryAfter: seconds)
            guard !handed.isEmpty else { return }
            options.log?("worker \(options.workerID): handed back \(handed.count) run(s) \(which), for takeover: \(handed.joined(separator: ", "))")
            state.withLock { $0.summary.handedBack += handed.count }
        } catch {
            options.log?("worker \(options.workerID): could not hand runs back (\(error.message)); their leases run out instead")
        }
    }

    /// Gives runs back to the queue as they are (`which` says which runs, for the log); when the store refuses,
    /// their leases run out and they are taken over instead.
    private func handBack(_ runIDs: [String], which: String) {
        guard !runIDs.isEmpty else { return }
        do {
            try store.handBack(parked: runIDs, by: options.workerID)
            options.log?("worker \(options.workerID): handed back \(runIDs.count) run(s) \(which): \(runIDs.joined(separator: ", "))")
            state.withLock { $0.summary.handedBack += runIDs.count }
        } catch {
            options.log?("worker \(options.workerID): could not hand runs back (\(error.message)); their leases run out instead")
        }
    }

    /// Waits (bounded) for each running run to end or park at a checkpoint; hands the parked runs back to the
    /// queue, their records committed (another worker resumes them from their last checkpoint), and the others back
    /// for takeover (another worker settles them as if this one had died).
    private func drain() async {
        // Parked runs stay counted as in progress: batches must not wait for them.
        committer.stopGathering()
        do throws(StoreError) {
            try store.markStopping(options.workerID)
        } catch {
            options.log?("worker \(options.workerID): could not mark itself stopping (\(error.message))")
        }
        // Runs claimed ahead and never started go back as they were, before the wait for the others: a queued run
        // to the queue, a dead worker's run to be taken over again.
        let unstarted = state.withLock { state -> [ClaimedRun] in
            defer { state.claimedAhead.removeAll() }
            return state.claimedAhead
        }
        handBack(unstarted.filter { !$0.takeover }.map(\.runID), which: "it had not started")
        handBackForTakeover(unstarted.filter(\.takeover).map(\.runID), which: "claimed for takeover and not started")
        let deadline = ContinuousClock.now + .milliseconds(Int(options.drainSeconds * 1000))
        while ContinuousClock.now < deadline {
            let settled = state.withLock { state in state.active.keys.allSatisfy { state.pauses[$0]?.isParked == true } }
            if settled { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        await cancelUnresumableRuns()
        // A cancel ends a run's park (an answer does not: the parked run does not take it): no cancel may reach a run
        // from the moment it is counted parked, or it would take its cancel path here while the next worker resumes
        // it. One asked for from now on waits in the store for the next worker.
        cancelRelay.close()
        answerRelay.close()
        let (left, pauses) = state.withLock { state -> ([String: Task<Void, Never>], [String: RunPause]) in
            defer {
                state.active.removeAll()
                state.pauses.removeAll()
            }
            return (state.active, state.pauses)
        }
        guard !left.isEmpty else { return }
        var parked: [String] = []
        for runID in left.keys.sorted() where pauses[runID]?.isParked == true {
            if await durable(runID) { parked.append(runID) }
        }
        let others = left.keys.filter { !parked.contains($0) }.sorted()
        handBack(parked, which: "at a checkpoint")
        // A run in progress may have a call in flight, which the next worker must not take for abandoned: its lease
        // runs on as if this worker had died. Nothing of these runs reaches the hub from here any more.
        committer.fence(others, because: "the worker stopped and handed the run back")
        handBackForTakeover(others, which: "in progress", after: options.leaseSeconds)
        // A parked run stays parked (its task suspended) until the process ends: it makes no further call.
        for runID in others { left[runID]?.cancel() }
    }

    /// Runs still going at the end of the drain that hold a secret a hub call returned (an ePSKc share's key) could
    /// only be cancelled by the next worker, the key active meanwhile: they take their cancel path here (withdrawing
    /// the key), as `matterflow run` does on SIGTERM, within the drain time once more, their leases kept by the
    /// heartbeat. One still going then is handed back with the others.
    private func cancelUnresumableRuns() async {
        let unresumable = state.withLock { state in
            state.active.filter { state.pauses[$0.key]?.holdsSecretNoOtherProcessCouldResume == true }
        }
        guard !unresumable.isEmpty else { return }
        options.log?(
            "worker \(options.workerID): cancelling \(unresumable.count) run\(unresumable.count == 1 ? "" : "s") holding a secret no other worker could resume (\(unresumable.keys.sorted().joined(separator: ", "))): their cancel path runs here")
        cancelRelay.cancelHere(unresumable.keys)
        let deadline = ContinuousClock.now + .milliseconds(Int(options.drainSeconds * 1000))
        while ContinuousClock.now < deadline, state.withLock({ state in unresumable.keys.contains { state.active[$0] != nil } }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    private func launch(_ claimed: ClaimedRun) {
        committer.runBegan()
        let idleness = RunIdleness()
        // Made under the lock, with its entries: the task's own clean-up (which takes the lock) cannot come first.
        state.withLock { state in
            // A run claimed anew after it was fenced here: the earlier task has ended (``claimedAgain(_:)``).
            committer.unfence(claimed.runID)
            state.fenced.remove(claimed.runID)
            state.claims[claimed.runID] = claimed.claims
            state.active[claimed.runID] = task(running: claimed, idleness: idleness)
        }
    }

    /// The task that runs or settles a claimed run, then lets go of it here.
    private func task(running claimed: ClaimedRun, idleness: RunIdleness) -> Task<Void, Never> {
        Task { [self] in
            await execute(claimed, idleness: idleness)
            // A run that ended waiting (it ended without a last event) was counted out of the group commit then.
            if !idleness.isIdle { committer.runEnded() }
            cancelRelay.release(claimed.runID)
            state.withLock { state in
                state.active[claimed.runID] = nil
                state.pauses[claimed.runID] = nil
                state.waiting.remove(claimed.runID)
                state.fenced.remove(claimed.runID)
                state.claims[claimed.runID] = nil
                // Nothing of the run is written from here any more: its refusal is no longer needed.
                committer.unfence(claimed.runID)
            }
            wake.raise()
        }
    }

    /// Runs or settles one claimed run and records its final status.
    private func execute(_ claimed: ClaimedRun, idleness: RunIdleness) async {
        let runID = claimed.runID
        if let damage = claimed.damage {
            // Run on the defaults of what could not be read, it would do what nobody asked: a person looks.
            options.log?("worker \(options.workerID): run \(runID): \(damage); it needs attention")
            await conclude(
                runID, status: "needsAttention", output: nil,
                error: Self.errorJSON(.dataLoss, cause: "damagedRecords", message: "run \(runID): \(damage); it was not run"),
                recovered: false, notes: ["\(damage); it was not run"], structure: claimed.structureID, claims: claimed.claims,
                keepSession: true)
            return
        }
        let sink = PostgresJournalSink(runID: runID, committer: committer, store: store)
        // A cancel asked for before the run started here (`matterflow cancel`).
        let cancelAsked = claimed.cancelRequested || cancelRelay.takePending(runID)
        var secrets: JSONObject = [:]
        var answers = claimed.answers
        var missingAnswers: [String] = []
        var secretsProblem: StoreError?
        do throws(StoreError) {
            (secrets, answers, missingAnswers) = try takeSecrets(of: claimed)
        } catch {
            // Without its secrets a run that has not begun cannot; one that has is settled on its cancel path, given
            // none of its secret answers rather than their placeholders.
            options.log?("worker \(options.workerID): \(error.message)")
            secretsProblem = error
            for name in claimed.secretAnswers { answers[name] = nil }
        }
        let hub: any Hub
        do {
            hub = try await hubs(claimed.structureID)
        } catch {
            await noHub(for: claimed, because: error)
            return
        }
        // A run claimed before (taken over, or handed back at a checkpoint) may have begun: its records say.
        // Records that cannot be read (the server restarting) are not "no records": starting such a run afresh would
        // repeat its calls, its records colliding with its first worker's. It is handed back and claimed again after
        // a delay that grows with the run's claims (``HandBackBackoff``), so a worker does not spin on it.
        var records: [JournalRecord] = []
        if claimed.takeover || claimed.claims > 1 {
            do throws(StoreError) {
                records = try store.records(of: runID, after: 0)
            } catch where error.code != .damagedRecords {
                let delay = HandBackBackoff.delay(afterClaims: claimed.claims)
                options.log?("worker \(options.workerID): could not read the records of run \(runID) (\(error.message)); it is handed back, to be claimed again in \(delay) s")
                _ = try? store.handBack([runID], by: options.workerID, retryAfter: delay)
                return
            } catch {
                // Rows MatterFlow did not write, or that overlap: no claim will read them better. What the run did is
                // unknown, so it keeps its session, and a person settles it.
                options.log?("worker \(options.workerID): the records of run \(runID) cannot be read (\(error.message)); it needs attention")
                await conclude(
                    runID, status: "needsAttention", output: nil, error: Self.errorJSON(.dataLoss, cause: error.code.rawValue, message: error.message),
                    recovered: true, notes: ["its records cannot be read: \(error.message)"], structure: claimed.structureID,
                    claims: claimed.claims, keepSession: true)
                return
            }
        }
        // A run that has begun takes its cancel path when its cancel was asked for or its secrets are missing; one that
        // has not ends without a call.
        if records.contains(where: { $0.type == JournalEntry.Kind.runStarted.rawValue }) {
            let cancelBecause = cancelAsked ? "cancel asked for" : secretsProblem.map { _ in "its secrets are not in this worker's --secrets directory" }
            await settle(
                claimed, records: records, hub: hub, sink: sink, secrets: secrets, answers: answers, missingAnswers: missingAnswers,
                handedBack: !claimed.takeover, cancelBecause: cancelBecause, idleness: idleness)
            return
        }
        if let secretsProblem, !cancelAsked {
            // Another worker's --secrets directory may hold them (this one's may be the wrong one, or not mounted
            // yet): the run goes back, and fails only once it has come back as often as a run without a hub does.
            await cannotStart(
                claimed, problem: "its secrets are unavailable here (\(secretsProblem.message))",
                failure: (.failedPrecondition, "secretsUnavailable", secretsProblem.message))
            return
        }
        if cancelAsked {
            options.log?("worker \(options.workerID): run \(runID) was cancelled before it began")
            await conclude(
                runID, status: "cancelled", output: nil, error: PostgresRunStore.cancelledBeforeItBegan, recovered: false, notes: [],
                structure: claimed.structureID, claims: claimed.claims)
            return
        }
        if claimed.takeover {
            state.withLock { $0.summary.takenOver += 1 }
            options.log?("worker \(options.workerID): run \(runID) had not begun on its first worker; starting it")
        }
        let workflow: Workflow
        do {
            workflow = try engine.load(path: claimed.workflowFile)
        } catch {
            let message = error.diagnostics.first?.description ?? "invalid workflow"
            await conclude(runID, status: "failed", output: nil, error: Self.errorJSON(.failedPrecondition, cause: "invalidWorkflow", message: message), recovered: false, notes: [], structure: claimed.structureID, claims: claimed.claims)
            return
        }
        if let submitted = claimed.workflowHash, submitted != workflow.contentHash {
            // Its states, inputs and checks may not be what submit validated: the run is not started on them.
            let message = "the workflow file \(claimed.workflowFile) (or one of its sub-workflows) changed since run \(runID) was submitted; submit the run again to run the files as they are now"
            options.log?("worker \(options.workerID): \(message)")
            await conclude(
                runID, status: "failed", output: nil, error: Self.errorJSON(.failedPrecondition, cause: "workflowChanged", message: message),
                recovered: false, notes: [], structure: claimed.structureID, claims: claimed.claims)
            return
        }
        var inputs = claimed.inputs
        for name in claimed.secretInputs { inputs[name] = secrets[name] }
        let pause = registerPause(of: runID)
        var runOptions = RunOptions(structureID: claimed.structureID, clock: options.clock, runID: runID)
        runOptions.pause = pause
        runOptions.answers = answers
        runOptions.observer = { [self] event in followWaits(of: runID, idleness: idleness, event) }
        runOptions.questionClock = options.questionClock
        runOptions.questionHoldsClock = false
        let handle: RunHandle
        do {
            handle = try SinkJournal.start(workflow, inputs: inputs, on: hub, options: runOptions, engine: engine, sink: sink, digestKey: key)
        } catch {
            await conclude(runID, status: "failed", output: nil, error: Self.errorJSON(.invalidArgument, cause: "invalidInput", message: "\(error)"), recovered: false, notes: [], structure: claimed.structureID, claims: claimed.claims)
            return
        }
        // A run that may ask questions hears the answers given to it since its claim, and those given while it runs.
        let asks = workflow.hasAsk { _ in true }
        if asks { answerRelay.attach(handle, to: runID, through: claimed.answeredThrough, missingSecrets: missingAnswers) }
        cancelRelay.attach(handle, to: runID)
        let result = await withTaskCancellationHandler {
            await handle.result
        } onCancel: {
            handle.cancel()
        }
        if asks { answerRelay.detach(runID) }
        // The final status rides the committer's batches behind the run's records (its runFinished among them):
        // written in the same transaction as the last of them, or a later one, and refused with them.
        guard !Task.isCancelled else { return }
        if let connected = hub as? any ConnectedHub, connected.connectionLost, await !journalEnded(runID) {
            // The hub's connection went during one of the run's calls: its journal stopped at that call, in doubt (a
            // lost connection is a crash to it), so the run's records, not its result, say what it did. It goes back
            // for takeover a lease later, to be settled once a connection is back.
            handBackForTakeover([runID], which: "whose hub connection was lost during a call", after: options.leaseSeconds)
            return
        }
        let redacted = result.redactedOutput
        if let output = result.output { keepSecretOutput(output, redacted: redacted, of: runID) }
        if unconfirmedReleases.take(runID) { await releaseRowEndedOnHub(by: runID, structure: claimed.structureID, hub: hub) }
        await conclude(
            runID, status: result.outcome.rawValue, output: redacted,
            error: result.error?.jsonValue, recovered: false,
            notes: [], structure: claimed.structureID, claims: claimed.claims,
            keepSession: result.outcome == .succeeded && result.holdsSession)
    }

    /// A run whose structure has no hub here (the hub unreachable, a simulated home that cannot be made): handed
    /// back, its failure counted in the store, to be claimed again after a delay growing with its failures
    /// (``HandBackBackoff``). At its ``HandBackBackoff/hubFailuresBeforeFailing``th failure, a run that has not begun
    /// fails without a call; one that has begun is handed back again, since only its hub can settle it.
    private func noHub(for claimed: ClaimedRun, because error: any Error) async {
        let problem = "no hub for structure \(claimed.structureID) (\(error))"
        await cannotStart(claimed, problem: problem, failure: (.unavailable, "hubUnreachable", problem))
    }

    /// A run this worker cannot start or settle (no hub for its structure, its secrets not here): handed back, the
    /// failure counted in the store, to be claimed again (by any worker) after a delay growing with its failures
    /// (``HandBackBackoff``). At its ``HandBackBackoff/hubFailuresBeforeFailing``th failure, a run that has not
    /// begun fails without a call, with `failure`; one that has begun is handed back again.
    private func cannotStart(
        _ claimed: ClaimedRun, problem: String, failure: (code: ErrorCode, cause: String, message: String)
    ) async {
        let runID = claimed.runID
        let failures = claimed.hubFailures + 1
        if failures >= HandBackBackoff.hubFailuresBeforeFailing,
            let records = try? store.records(of: runID, after: 0),
            !records.contains(where: { $0.type == JournalEntry.Kind.runStarted.rawValue })
        {
            options.log?("worker \(options.workerID): \(problem), failure \(failures) of the run; run \(runID) fails without a call")
            await conclude(
                runID, status: "failed", output: nil,
                error: Self.errorJSON(failure.code, cause: failure.cause, message: "\(failure.message), \(failures) times; the run made no call"),
                recovered: false, notes: [], structure: claimed.structureID, claims: claimed.claims)
            return
        }
        let delay = HandBackBackoff.delay(afterFailures: failures)
        options.log?("worker \(options.workerID): \(problem); run \(runID) is handed back, to be claimed again in \(delay) s")
        _ = try? store.handBack([runID], by: options.workerID, retryAfter: delay, hubFailure: true)
    }

    /// The store keeps a run's output redacted; an output holding secrets goes whole to the secrets directory, the
    /// one place where a fleet's secrets are kept.
    private func keepSecretOutput(_ output: JSONValue, redacted: JSONValue?, of runID: String) {
        guard output != redacted else { return }
        guard let inbox = options.secrets else {
            options.log?("worker \(options.workerID): run \(runID)'s output holds secrets; the store keeps it redacted, and without --secrets this worker keeps it nowhere")
            return
        }
        do {
            try inbox.keep(output: output, runID: runID)
        } catch {
            options.log?("worker \(options.workerID): run \(runID)'s output holds secrets and could not be kept: \(error.message); the store keeps it redacted")
        }
    }

    /// A pause switch for the run, kept where ``stop()`` and the drain find it; already asked to park when the worker
    /// is stopping.
    private func registerPause(of runID: String) -> RunPause {
        let pause = RunPause()
        let stopping = state.withLock { state -> Bool in
            state.pauses[runID] = pause
            return state.stopping
        }
        if stopping { pause.request() }
        return pause
    }

    /// Follows a run's waits: while it waits for an answer, a delay or an event it takes no slot (the worker may
    /// start another) and the group commit does not hold batches back for it.
    private func followWaits(of runID: String, idleness: RunIdleness, _ event: RunEvent) {
        guard let waits = idleness.note(event) else { return }
        if waits { committer.runEnded() } else { committer.runBegan() }
        state.withLock { state in
            if waits { state.waiting.insert(runID) } else { state.waiting.remove(runID) }
        }
        if waits { wake.raise() }
    }

    /// The run's secret inputs and its answers with the secret ones filled in, from the worker's secrets directory
    /// (``SecretInbox``): the store keeps neither. A secret answer not there (yet: the directory may be a copy brought
    /// up to date later) is left out and named in `missing`, for the answer relay to look for again.
    private func takeSecrets(
        of claimed: ClaimedRun
    ) throws(StoreError) -> (inputs: JSONObject, answers: [String: JSONValue], missing: [String]) {
        var answers = claimed.answers
        guard !claimed.secretInputs.isEmpty || !claimed.secretAnswers.isEmpty else { return ([:], answers, []) }
        guard let inbox = options.secrets else {
            let what = (claimed.secretInputs.map { "input \($0)" } + claimed.secretAnswers.map { "answer \($0)" }).joined(separator: ", ")
            throw StoreError(.secretsUnavailable, "run \(claimed.runID) has secrets (\(what)) and this worker has no --secrets directory")
        }
        let inputs = claimed.secretInputs.isEmpty ? [:] : try inbox.take(runID: claimed.runID)
        var missing: [String] = []
        if !claimed.secretAnswers.isEmpty {
            let given = try inbox.takeIfPresent(runID: claimed.runID, kind: .answers) ?? [:]
            for name in claimed.secretAnswers {
                answers[name] = given[name]
                if given[name] == nil { missing.append(name) }
            }
        }
        return (inputs, answers, missing)
    }

    /// Settles a run whose worker died, from its records; or resumes one handed back at a checkpoint (its records
    /// end at a checkpoint with no call in doubt), whatever ``WorkerOptions/resume`` says. With `cancelBecause`, the
    /// run takes its cancel path for that reason.
    private func settle(
        _ claimed: ClaimedRun, records: [JournalRecord], hub: any Hub, sink: PostgresJournalSink, secrets: JSONObject,
        answers: [String: JSONValue], missingAnswers: [String], handedBack: Bool, cancelBecause: String?, idleness: RunIdleness
    ) async {
        state.withLock { $0.summary.takenOver += 1 }
        if let cancelBecause {
            options.log?("worker \(options.workerID): taking the cancel path of run \(claimed.runID) (\(cancelBecause))")
        } else if handedBack {
            options.log?("worker \(options.workerID): resuming run \(claimed.runID) from its last checkpoint (handed back by its worker)")
        } else {
            options.log?("worker \(options.workerID): settling run \(claimed.runID) (its worker's lease ran out)")
        }
        var recoveryOptions = recoveryOptions(resume: cancelBecause == nil && (options.resume || handedBack), inputs: secrets, answers: answers)
        // A resumed run's questions wait for answers given through the store, as those of a run started here do, and
        // a cancel asked for while it runs reaches it.
        recoveryOptions.answering = { [answerRelay, cancelRelay] handle in
            answerRelay.attach(handle, to: claimed.runID, through: claimed.answeredThrough, missingSecrets: missingAnswers)
            cancelRelay.attach(handle, to: claimed.runID)
        }
        recoveryOptions.observer = { [self] event in followWaits(of: claimed.runID, idleness: idleness, event) }
        // A run resumed on its normal path parks when the worker stops, as a run it started does, and goes back to be
        // resumed again (a rolling restart must not turn it into a takeover).
        recoveryOptions.pause = registerPause(of: claimed.runID)
        let recovery = await SinkJournal.recover(runID: claimed.runID, records: records, sink: sink, on: hub, options: recoveryOptions)
        answerRelay.detach(claimed.runID)
        if recovery.action == .deferred, claimed.claims < HandBackBackoff.claimsBeforeRecoveryGivesUp {
            // Recovery could not finish (the hub unreadable for a moment, a record not written): it is tried again,
            // by this worker or another, after a delay that grows with the run's claims, up to
            // ``HandBackBackoff/claimsBeforeRecoveryGivesUp`` claims. The run keeps its session row and its secrets
            // meanwhile; recorded needsAttention at once, no worker would look at it again, and the session and any
            // ePSKc key it left would only lapse on the hub.
            let delay = HandBackBackoff.delay(afterClaims: claimed.claims)
            _ = await durable(claimed.runID)
            let reason = recovery.notes.last ?? "recovery deferred"
            do {
                if try store.handBack([claimed.runID], by: options.workerID, retryAfter: delay).isEmpty {
                    options.log?("worker \(options.workerID): could not settle run \(claimed.runID) (\(reason)); its lease is no longer this worker's, so the worker that holds it settles it")
                } else {
                    options.log?("worker \(options.workerID): could not settle run \(claimed.runID) (\(reason)); it is handed back, to be settled again in \(delay) s")
                }
            } catch {
                options.log?("worker \(options.workerID): could not settle run \(claimed.runID) (\(reason)), nor hand it back (\(error.message)); its lease runs out instead")
            }
            return
        }
        let status: String
        switch recovery.status {
        case .succeeded, .failed, .cancelled: status = recovery.status.rawValue
        case .running, .interrupted, .notStarted, .needsAttention, .unreadable: status = "needsAttention"
        }
        let stored = recovery.finished?.output.flatMap { $0.isNull ? nil : $0 }
        if let output = recovery.output { keepSecretOutput(output, redacted: stored, of: claimed.runID) }
        if unconfirmedReleases.take(claimed.runID) || records.contains(where: \.isSessionReleaseIntent) {
            await releaseRowEndedOnHub(by: claimed.runID, structure: claimed.structureID, hub: hub)
        }
        // As for a run this worker ran, the final status rides the committer's batches behind recovery's records:
        // written in the same transaction as the last of them, or a later one, and refused with them.
        await conclude(
            claimed.runID, status: status, output: stored,
            error: recovery.finished?.errorJSON, recovered: true,
            notes: recovery.notes + (status == "cancelled" ? cancelBecause.map { ["cancel path taken: \($0)"] } ?? [] : []),
            structure: claimed.structureID, claims: claimed.claims,
            // A run recovery carried to its end says itself whether it holds its session; the hub is asked too.
            keepSession: status == "succeeded" && recovery.holdsSession != false
                ? await Self.keepsSession(of: claimed.runID, on: hub, structure: claimed.structureID) : false)
    }

    /// Whether a settled run that ended `succeeded` keeps the structure's fleet session row: only while the hub shows
    /// a session of the run still active (as a `prepare.json` run's, handed on to the runs that continue in it). A
    /// run whose in-doubt release the hub had carried out (`completeCommissioning` applied before its worker died,
    /// the row's release never written) gives the row up; kept, it would refuse every later prepare of the structure
    /// across the fleet for good. A hub that cannot say whose session is active is taken to hold the run's.
    static func keepsSession(of runID: String, on hub: any Hub, structure: StructureID) async -> Bool {
        guard let recoverable = hub as? any RecoverableHub else { return true }
        do {
            guard let session = try await recoverable.activeSession(structure: structure) else { return false }
            return session.owner.map { $0 == runID } ?? true
        } catch {
            return true
        }
    }

    /// Gives up the structure's fleet row held by another run when this run's release may have ended that run's
    /// session on the hub without the row going too, or found it already ended: the release's answer was lost or
    /// came too late, the hub held no session (that run's lapsed), or this run's worker died (or lost the store)
    /// between the hub's release and the row's. That is the case of a `cancel.json` run releasing the
    /// session a `prepare.json` run left open, which ended `succeeded` holding the row: kept, the row would refuse
    /// every later prepare of the structure across the fleet. The row goes only when its run ended `succeeded` (a
    /// running one gives it up itself as it ends; one that failed or was cancelled blocks nothing) and this run's hub
    /// shows no session of that run active (``keepsSession(of:on:structure:)``: a hub that cannot say keeps it), and
    /// only while this worker holds this run's lease.
    private func releaseRowEndedOnHub(by runID: String, structure: StructureID, hub: any Hub) async {
        let found: (runID: String, status: String?)?
        do throws(StoreError) {
            found = try store.sessionHolder(of: structure)
        } catch {
            options.log?("worker \(options.workerID): could not read who holds the session row of structure \(structure) (\(error.message)); it is left as it is")
            return
        }
        guard let holder = found, holder.runID != runID, holder.status == "succeeded" else { return }
        guard await !Self.keepsSession(of: holder.runID, on: hub, structure: structure) else { return }
        do throws(StoreError) {
            _ = try await committer.perform(.releaseSession(structure: structure, runID: holder.runID, by: runID), runID: runID)
            options.log?(
                "worker \(options.workerID): run \(runID) released the session run \(holder.runID) had left open on structure "
                    + "\(structure) without the fleet's row going too; the row is given up, as the hub shows no such session")
        } catch {
            options.log?(
                "worker \(options.workerID): could not give up the row of run \(holder.runID) on structure \(structure) "
                    + "(\(error.message)), though the hub shows no such session; the next run that releases a session of the "
                    + "structure, or settles one, looks at it again")
        }
    }

    private func recoveryOptions(resume: Bool, inputs: JSONObject, answers: [String: JSONValue]) -> RecoveryOptions {
        var recovery = RecoveryOptions(resume: resume, inputs: inputs, engine: engine, clock: options.clock)
        recovery.answers = answers
        recovery.digestKey = key
        recovery.questionClock = options.questionClock
        recovery.questionHoldsClock = false
        return recovery
    }

    /// Whether the run's journal ended with its `runFinished` record, every record committed; false when it stopped
    /// earlier (at a call in doubt) or cannot be read now.
    private func journalEnded(_ runID: String) async -> Bool {
        guard await durable(runID), let records = try? store.records(of: runID, after: 0) else { return false }
        return records.contains { $0.type == JournalEntry.Kind.runFinished.rawValue }
    }

    /// Waits until every record of the run is committed (its `runFinished` among them), so that no final status is
    /// recorded for a run whose records are not all in the store. False when they cannot be: the run's lease then
    /// runs out and another worker settles it.
    private func durable(_ runID: String) async -> Bool {
        do {
            try await committer.flush(runID: runID)
            return true
        } catch {
            options.log?("worker \(options.workerID): the records of run \(runID) could not be written (\(error.message)); its lease will run out and another worker settles it")
            return false
        }
    }

    /// Records a final status (fenced by the lease) and lets go of what the run held in the store, in the
    /// committer's next transaction.
    private func conclude(
        _ runID: String, status: String, output: JSONValue?, error: JSONValue?, recovered: Bool, notes: [String],
        structure: StructureID, claims: Int, keepSession: Bool = false
    ) async {
        do throws(StoreError) {
            let conclusion = RunConclusion(
                runID: runID, status: status, output: output, error: error, recovered: recovered, notes: notes, claims: claims)
            let answer = try await committer.perform(.finish(conclusion, release: keepSession ? nil : structure), runID: runID)
            guard answer == .finished(recorded: true) else {
                options.log?("worker \(options.workerID): run \(runID) was taken over by another worker; its status is theirs to record")
                return
            }
            options.secrets?.remove(runID: runID)
            state.withLock { $0.summary.finished[status, default: 0] += 1 }
            options.log?("worker \(options.workerID): run \(runID) \(status)\(recovered ? " (settled after takeover)" : "")")
        } catch where error.code == .leaseLost {
            options.log?("worker \(options.workerID): run \(runID) was taken over by another worker; its status is theirs to record")
        } catch {
            options.log?("worker \(options.workerID): could not record the end of run \(runID) (\(error.message)); its lease will run out and another worker settles it")
        }
    }

    /// An error of the worker's own (a run it could not start or read), in the shape of a run's error.
    static func errorJSON(_ code: ErrorCode, cause: String, message: String) -> JSONValue {
        FlowError(code: code, cause: ErrorCause(rawValue: cause), message: message).jsonValue
    }
}

extension PostgresRunStore {
    /// Whether no run is queued or running (a worker with ``WorkerOptions/exitWhenIdle`` then stops); without
    /// `takesSecrets`, queued runs with secret inputs or answers do not count (such a worker claims none).
    public func isIdle(takesSecrets: Bool = true) throws(StoreError) -> Bool {
        // Two lookups in the indexes of queued and running runs, not a count over the whole table.
        let rows = try execute(
            """
            SELECT NOT EXISTS (SELECT 1 FROM matterflow_runs WHERE status = 'queued' AND \(Self.claimable("$1")))
               AND NOT EXISTS (SELECT 1 FROM matterflow_runs WHERE status = 'running')
            """, [takesSecrets ? "t" : "f"], doing: "looking for open runs")
        return rows.rows.first?.first == "t"
    }

    /// Seconds until the earliest lease of a running run held by another worker (or by none) runs out; negative
    /// when one has already; nil when there is none.
    func nextLeaseExpiry(excluding workerID: String) throws(StoreError) -> Double? {
        let rows = try execute(
            """
            SELECT EXTRACT(EPOCH FROM min(lease_until) - now()) FROM matterflow_runs
            WHERE status = 'running' AND worker_id IS DISTINCT FROM $1
            """, [workerID], doing: "looking for leases that run out")
        return rows.rows.first?.first.flatMap { $0 }.flatMap(Double.init)
    }
}
