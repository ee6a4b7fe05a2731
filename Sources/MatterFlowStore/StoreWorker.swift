import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import Synchronization

/// A member of a fleet: claims queued runs from a ``PostgresRunStore``, runs them through the journal's public API
/// with their records in the store, heartbeats their leases, and settles the runs of workers whose leases ran out
/// with the same reconcile-then-cancel-or-resume logic as `matterflow recover` (see `docs/store.md`).
public final class StoreWorker: Sendable {
    /// Gives the hub for a structure's runs. A throw means no hub for it: the run is handed back to be claimed again
    /// later, and one that has not begun fails `hubUnreachable` without a call after repeated failures.
    public typealias HubProvider = @Sendable (StructureID) async throws -> any Hub

    struct State {
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
        /// Marking itself stopping found the store out of reach: marking itself stopped is not tried (it would wait out
        /// the same outage again, keeping a stopping worker seconds longer).
        var stopUnrecorded = false
        /// Asked to stop again while stopping: the drain hands the runs back without waiting for them to park.
        var hurried = false
        /// ``run(host:pid:)`` began and got past its start: the worker cannot run again.
        var started = false
        /// When the worker last swept its secrets directory (``sweepSecrets()``).
        var lastSweep: ContinuousClock.Instant?
        /// Whether this machine's clock was last found too far from the store's (``measureClock()``).
        var clockSkewed = false
        /// Whether claims may take over runs whose leases ran out (not for a lease after the store was in trouble).
        var takeovers: TakeoverHold
    }

    /// The store whose runs the worker claims, runs and settles.
    public let store: PostgresRunStore
    /// How the worker runs, fixed for its life.
    public let options: WorkerOptions
    let hubs: HubProvider
    let committer: GroupCommitter
    let engine: WorkflowEngine
    /// Hands the answers given to the worker's runs after submit (`matterflow answer`) to them.
    let answerRelay: AnswerRelay
    /// Cancels the worker's runs whose cancel is asked for (`matterflow cancel`).
    let cancelRelay: CancelRelay
    /// The key of the runs' secret digests: the secrets directory's (made there on first use), which every worker
    /// of the fleet reads; none without a secrets directory, whose runs have no secrets to digest. A key that cannot
    /// be read or made stops ``run(host:pid:)`` before it claims anything.
    let digestKey: Result<SecretDigestKey?, JournalError>
    let state: Mutex<State>
    /// The store's clock, read through this machine's: it stamps the runs' records and counts their waits.
    let storeClock: StoreClock
    /// Wakes the idle loop: work announced, a slot freed, stop asked.
    let wake = WorkSignal()
    /// When the worker was made, by this machine's wall clock (``WorkerMetrics/startedAt``).
    let startedAt: Double
    /// Runs whose release call failed (``FleetSessionGuard``), looked at again as they end.
    let unconfirmedReleases = UnconfirmedReleases()
    /// When the worker last knew it held each run's lease, for the calls of a run whose worker was paused.
    let leases: LeaseConfirmations
    /// How many queued runs a claim takes beyond the free slots, kept leased and started as slots free: a run ends
    /// (and a slot frees) at a time, so without it every run would cost a claim statement of its own.
    var prefetch: Int { options.concurrency / 2 }

    /// - Parameter hubs: The hub for a structure (each run asks for its own structure's).
    public init(store: PostgresRunStore, hubs: @escaping HubProvider, options: WorkerOptions) {
        self.store = store
        self.options = options
        self.hubs = hubs
        state = Mutex(State(takeovers: TakeoverHold(lease: options.leaseSeconds)))
        committer = GroupCommitter(
            conninfo: store.conninfo, applicationName: store.applicationName, workerID: options.workerID,
            gatherMicroseconds: GroupCommitter.gatherLimit, connectivity: store.connectivity,
            idleInTransactionLimit: .seconds(rounding: max(options.leaseSeconds / 2, Self.idleInTransactionFloor)), beforeCommit: nil
        ) { [log = options.log, id = options.workerID] losses in
            for loss in losses { log?(WorkerLogLine(level: .error, workerID: id, runID: loss.runID, message: loss.description)) }
        }
        storeClock = StoreClock(local: options.localWallClock, monotonic: options.monotonicClock)
        startedAt = options.localWallClock()
        leases = LeaseConfirmations(leaseSeconds: options.leaseSeconds, now: options.monotonicClock)
        engine = WorkflowEngine(
            catalog: FleetSessionGuard(committer: committer, leases: leases, leaseSeconds: options.leaseSeconds, unconfirmed: unconfirmedReleases)
                .wrapping(options.engine.catalog))
        let log: WorkerLog = { [log = options.log, id = options.workerID] level, runID, message in
            log?(WorkerLogLine(level: level, workerID: id, runID: runID, message: message))
        }
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
    var key: SecretDigestKey? {
        if case .success(let key) = digestKey { key } else { nil }
    }

    /// Asks the worker to stop: it claims nothing more, asks its runs to park at their next checkpoint
    /// (``RunPause``), waits up to ``WorkerOptions/drainSeconds`` for each to end or park, hands the parked ones back
    /// to the queue with their position in their records, and hands the rest back for takeover. Asking again
    /// changes nothing (``hurry()`` ends the wait). It lowers the store's ``PostgresRunStore/retryLimit`` for good
    /// (``PostgresRunStore/limitRetries(to:)``): a store given to a worker is the worker's.
    public func stop() {
        let (pauses, first, working) = state.withLock { state -> ([RunPause], Bool, Int) in
            defer { state.stopping = true }
            return (Array(state.pauses.values), !state.stopping, state.active.count)
        }
        if first {
            log(.info, "stopping: claims no more runs; gives its \(working) run\(working == 1 ? "" : "s") in progress "
                    + "up to \(Duration.seconds(rounding: options.drainSeconds).secondsText) s to end or park")
            // Its bookkeeping from now on (heartbeats, marking itself stopping and stopped) tries a store out of reach
            // for a few seconds, not a reconnect limit each; hand-backs keep the full limit, as a run not handed back
            // is taken over (and, without --resume, cancelled).
            store.limitRetries(to: Self.stoppingRetryLimit)
        }
        for pause in pauses { pause.request() }
        wake.raise()
    }

    /// How long each store command of a stopping worker tries a store out of reach: longer than a server's restart.
    static let stoppingRetryLimit: Duration = .seconds(5)

    /// Stops the worker as ``stop()`` does, without waiting for its runs to park: what has parked goes back to the
    /// queue, the rest back for takeover at once (a run taking its cancel path to withdraw a secret still has its
    /// time). What a second SIGTERM asks for.
    public func hurry() {
        let first = state.withLock { state in
            defer { state.hurried = true }
            return !state.hurried
        }
        if first { log(.info, "asked again to stop: hands its runs back now, without waiting for them to park") }
        stop()
    }

    /// The store was migrated to another schema while the worker ran: it stops claiming and drains, as on SIGTERM,
    /// since what it would write may not be what the new schema means (a newer MatterFlow's claims follow rules this
    /// one does not know). Once.
    func schemaChanged(to version: Int) {
        let error = StoreError(
            .schemaNewer,
            "the store \(store.name) was migrated to schema version \(version) while this worker ran (it was built for "
                + "\(StoreMigrations.latest)); it stopped claiming and handed its runs back: start the MatterFlow that migrated it")
        let first = state.withLock { state -> Bool in
            guard state.summary.schemaChanged == nil else { return false }
            state.summary.schemaChanged = error
            return true
        }
        guard first else { return }
        log(.warning, "\(error.message)")
        stop()
    }

    /// The group commit's batches and records so far.
    public var commitStatistics: (batches: Int, records: Int) { committer.statistics }

    /// What the worker's start line says of it, for whoever reads a log after the fact: its MatterFlow version and
    /// schema, lease, concurrency, and the hub it reached when not the built-in one.
    var settings: String {
        let hub = options.remoteHub.map { "; hub \($0.endpoint)\($0.name.map { " (\($0))" } ?? "")" } ?? ""
        return "matterflow \(MatterFlowVersion.current), schema \(StoreMigrations.latest); lease \(JSONWriter.compact(.double(options.leaseSeconds))) s, "
            + "\(options.concurrency) runs at once, \(options.maxWaiting) more waiting\(hub)"
    }

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
            for exposure in [options.secrets?.exposure, options.secrets.flatMap({ SecretDigestKey.exposure(inDirectory: $0.directory) })] {
                if let exposure { log(.warning, exposure) }
            }
            try store.registerWorker(options.workerID, host: host, pid: pid, leaseSeconds: options.leaseSeconds) { [self] wait in
                log(.warning, "a worker had this ID within its lease (one restarted, or another one running); "
                        + "watching its heartbeat for \(wait.secondsText) s "
                        + "before taking the ID")
                PostgresRunStore.pause(wait)
            }
        } catch {
            // Nothing was claimed: the worker may be run again (once the store is back), its committer kept for it.
            state.withLock { $0.started = false }
            throw error
        }
        log(.info, "claiming runs from \(store.name)\(store.server.map { " (\($0))" } ?? "") (\(settings))")
        let listening = store.connectivity.listen { [log = options.log, id = options.workerID, self] reachable, line, lostServer in
            self.state.withLock { state in
                // A failover shows as connections that could not be made; an idle connection the server or a pooler
                // closed, made again at once, does not.
                if reachable {
                    if lostServer { state.takeovers.troubleSeen(at: .now, outage: true) }
                    state.takeovers.answered(at: .now)
                } else {
                    state.takeovers.troubleSeen(at: .now)
                }
            }
            log?(WorkerLogLine(level: reachable ? .info : .warning, workerID: id, message: line))
            // At once, not after the heartbeat that is retrying: a monitoring system sees the store lost as it is.
            self.reportMetrics()
        }
        defer { store.connectivity.stopListening(listening) }
        measureClock()
        if options.secrets == nil {
            log(.warning, "no --secrets directory: queued runs with secret inputs or answers are left to workers that have one")
        }
        sweepSecrets()
        // Heartbeats run on a thread of their own: the store's commands block their thread for a round trip, and
        // a busy pool must not delay the leases.
        let trouble = Mutex(HeartbeatTrouble(leaseSeconds: options.leaseSeconds))
        let heartbeat = LeaseKeeper(intervalMilliseconds: Int(options.leaseSeconds * 1000 / 3)) { [self] in
            do throws(StoreError) {
                let seen = state.withLock { state in
                    var seen: [String: Int] = [:]
                    for runID in state.active.keys where !state.fenced.contains(runID) { seen[runID] = state.claims[runID] }
                    for run in state.claimedAhead { seen[run.runID] = run.claims }
                    return seen
                }
                let started = ContinuousClock.now
                let sent = leases.now()
                let (renewed, schema) = try store.heartbeatReadingSchema(options.workerID, running: Array(seen.keys), leaseSeconds: options.leaseSeconds)
                leases.confirmed(renewed, sentAt: sent)
                leases.dropStale()
                let took = ContinuousClock.now - started
                answered(after: started)
                measureClock()
                if let schema, schema != StoreMigrations.latest { schemaChanged(to: schema) }
                let lost = store.connectivity.wasLost(since: started)
                for (level, line) in trouble.withLock({ $0.succeeded(took: took, storeWasLost: lost) }) { log(level, line) }
                let notRenewed = seen.keys.filter { !renewed.contains($0) }
                if !notRenewed.isEmpty { leasesLost(try store.heldElsewhere(notRenewed, notBy: options.workerID), seen: seen) }
            } catch {
                state.withLock {
                    $0.summary.heartbeatFailures += 1
                    $0.takeovers.troubleSeen(at: .now)
                }
                if let line = trouble.withLock({ $0.failed(error.message) }) { log(.warning, line) }
            }
            reportMetrics()
        }
        defer { heartbeat.stop() }
        let listener = QueueListener(conninfo: store.conninfo, applicationName: store.applicationName, channel: "matterflow_queue", signal: wake)
        defer { listener.stop() }
        // Answers and cancels for the worker's runs, on a connection of their own: a busy queue does not delay them.
        let runMessages = QueueListener(conninfo: store.conninfo, applicationName: store.applicationName, channels: ["matterflow_answers", "matterflow_cancels"]) {
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
        var failures = ClaimFailures()
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
            // When the claim whose answer holds these runs was sent.
            var claimSent: ContinuousClock.Instant?
            if free > 0 {
                let token = tokens.next()
                claims += 1
                let (takesOver, holdStarted) = state.withLock { state in
                    var started = false
                    let may = state.takeovers.mayTakeOver(at: .now) { started = true }
                    return (may, started)
                }
                if holdStarted {
                    log(.info, "the store was out of reach or failing: runs whose leases ran out meanwhile are taken over only "
                            + "after \(Duration.seconds(rounding: options.leaseSeconds).secondsText) s (a lease), so that live workers renew theirs first")
                }
                let started = ContinuousClock.now
                let sent = leases.now()
                do throws(StoreError) {
                    claimed = try store.claim(
                        by: options.workerID, limit: free + prefetch, leaseSeconds: options.leaseSeconds, token: token,
                        unanswered: tokens.unanswered, takesSecrets: options.secrets != nil, takesOver: takesOver)
                    claimSent = sent
                    if options.dropsClaimReply?(claims) == true {
                        claimed = []
                        throw StoreError(.storeUnavailable, "the answer to claim \(claims) was lost (dropped for a test)")
                    }
                    tokens.answered()
                    answered(after: started)
                    if let line = failures.succeeded() { log(.info, line) }
                } catch {
                    // It may have claimed runs all the same: the next claim asks for them.
                    tokens.unanswered(token)
                    state.withLock {
                        $0.summary.claimFailures += 1
                        $0.takeovers.troubleSeen(at: .now)
                    }
                    if let line = failures.failed(error.message) { log(.warning, line) }
                }
            }
            let claimedNow = claimed
            claimed = claimedAgain(claimed)
            // Only once the tasks of an earlier claim of a run were fenced: the leases this claim holds.
            if let claimSent {
                leases.confirmed(claimedNow.map(\.runID).filter { committer.failure(of: $0) == nil }, sentAt: claimSent)
            }
            cancelRelay.hold(claimed.map(\.runID))
            for run in claimed.prefix(free) { launch(run) }
            state.withLock { $0.claimedAhead += claimed.dropFirst(free) }
            if claimed.isEmpty && ahead.isEmpty {
                sweepSecretsWhenDue()
                if options.exitWhenIdle, state.withLock({ $0.active.isEmpty }), (try? store.isIdle(takesSecrets: options.secrets != nil)) == true {
                    break
                }
                options.idle?()
                // After failed claims the next waits, however soon other workers' leases run out.
                await wake.wait(atMost: failures.inARow > 0 ? failures.wait : nextLook(free: free))
            } else {
                await Task.yield()
            }
        }
        await drain()
        committer.shutdown()
        if state.withLock({ $0.stopUnrecorded }) {
            log(.warning, "not marked stopped either: the store was out of reach; `matterflow workers` shows it silent once its lease has passed (`matterflow store prune --workers` forgets it)")
        } else {
            do throws(StoreError) {
                try store.markStopped(options.workerID)
            } catch {
                log(.warning, "could not mark itself stopped (\(error.message)); `matterflow workers` shows it silent once its lease has passed (`matterflow store prune --workers` forgets it)")
            }
        }
        // The last report is the last word: no heartbeat's report may follow it.
        heartbeat.stop()
        reportMetrics()
        return state.withLock { state in
            fillCounts(in: &state.summary)
            return state.summary
        }
    }

    /// The shortest time the server lets the committer's connection sit idle inside a transaction, in seconds,
    /// however short the lease: round trips to a distant server, or a throttled CPU, between a transaction's
    /// statements must not end it.
    static let idleInTransactionFloor = 1.0

    /// Tells the takeover hold that a statement of this worker begun at `started` came back: one that took half a
    /// lease or more (a lock, a store slow to answer) counts as trouble from its start, as a failed one does, so that
    /// runs whose leases other workers could not renew meanwhile are not taken over at once.
    func answered(after started: ContinuousClock.Instant) {
        let now = ContinuousClock.now
        state.withLock { state in
            if (now - started).secondsValue >= options.leaseSeconds / 2 { state.takeovers.troubleSeen(at: started) }
            state.takeovers.answered(at: now)
        }
    }

    /// Sets in `summary` the counts kept outside the worker's state: the committer's (records and transactions
    /// written, what a store reached again had lost) and the lease confirmations sent.
    private func fillCounts(in summary: inout WorkerSummary) {
        let written = committer.statistics
        let lost = committer.lossStatistics
        summary.records = written.records
        summary.transactions = written.batches
        summary.storeLosses = lost.runs
        summary.recordsLost = lost.records
        summary.leaseConfirmations = leases.sentCount
    }

    /// Gives ``WorkerOptions/metrics`` what the worker did and holds now.
    func reportMetrics() {
        guard let report = options.metrics else { return }
        let metrics = state.withLock { state in
            var summary = state.summary
            fillCounts(in: &summary)
            return WorkerMetrics(
                workerID: options.workerID, startedAt: startedAt, summary: summary, active: state.active.count,
                waiting: state.waiting.count, claimedAhead: state.claimedAhead.count, storeReachable: store.connectivity.isReachable,
                stopping: state.stopping, reportedAt: options.localWallClock())
        }
        report(metrics)
    }

    /// How many runs the worker may start now: a slot for each run of ``WorkerOptions/concurrency`` not working
    /// (runs waiting for an answer, a delay or an event take none), while it holds at most
    /// ``WorkerOptions/maxWaiting`` runs more.
    func openSlots(_ state: State) -> Int {
        let working = state.active.count - state.waiting.count
        return max(0, min(options.concurrency - working, options.concurrency + options.maxWaiting - state.active.count))
    }

    /// How long an idle worker waits for a signal before it looks again: the safety net, or less when a lease of
    /// another worker's run runs out sooner (a takeover is due then). A worker with no free slot waits for one of
    /// its runs to end.
    func nextLook(free: Int) -> Duration {
        let safetyNet = Double(options.pollMilliseconds) / 1000
        var seconds = safetyNet
        if free > 0, let expiry = try? store.nextLeaseExpiry(excluding: options.workerID) {
            // While takeovers are held, a lease that ran out is looked at again when the hold ends.
            let held = state.withLock { $0.takeovers.until }.map { ContinuousClock.now.duration(to: $0).secondsValue } ?? 0
            seconds = min(seconds, max(expiry, held, 0) + 0.02)
        }
        return .milliseconds(Int(max(seconds, 0.01) * 1000))
    }
}
