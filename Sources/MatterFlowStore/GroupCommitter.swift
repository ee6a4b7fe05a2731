import MatterFlow
import MatterFlowJSON
import MatterFlowJournal

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes the journal records of every run of a process to PostgreSQL in batches: one transaction carries the
/// records that piled up while the previous one committed, whatever runs they belong to (group commit), so
/// durability costs one round trip per batch rather than one per record.
///
/// Runs hand records to ``append(_:runID:sync:)``, which never waits: a record goes with the next batch, at the
/// latest ``idleFlush`` later, and a side-effect record starts that batch at once. A run that needs its records
/// durable (before the hub sees a call) awaits ``flush(runID:)``, which suspends the run's task, not a thread, until
/// the batch holding its last record has committed; so however many runs wait, their records share one
/// transaction, and the threads of Swift's pool go on with other runs. Batches are written by one thread of the committer's own,
/// over its own connection, which it opens again (for up to ``reconnectLimit``) when the server restarts; a
/// batch whose commit was lost with the connection is written again, and records already there are skipped.
///
/// A batch that runs wait for is held back, at most ``gatherLimit``, until every run of the worker in progress
/// (``runBegan()``) waits for it too, so that one commit carries them all.
///
/// The store commands a run waits for (its fleet session lock taken and given back, its final status:
/// ``StoreCommand``) ride the same transaction after the records, through ``perform(_:runID:)``.
///
/// Fencing: a record is written only while the run's lease belongs to this worker (`worker_id`); records of a
/// run another worker took over are refused, and the run's writes fail from then on.
public final class GroupCommitter: @unchecked Sendable {
    // Safety of @unchecked Sendable: every stored property is either immutable (`let`) or touched only while
    // `monitor` is locked (`pending`, `commands`, `committed`, `nextTicket`, `lastTicket`, `waiters`, `waitsOfRun`,
    // `failures`, `syncRequested`, `activeRuns`, `gathering`, `stopping`, `stopped`, `committerWaits`, `thread`, the
    // counts, `committedThrough`, `losses`), or touched only by the committer's own thread (`connectedBefore`); the
    // pthread mutex and condition are themselves safe to use from any thread.

    private struct Pending {
        var ticket: UInt64
        var runID: String
        var record: EncodedJournalRecord
    }

    /// A command a run's task waits for, suspended in ``perform(_:runID:)``.
    private struct PendingCommand {
        var command: StoreCommand
        var runID: String?
        /// Nil for a command nobody waits for (``post(_:runID:)``).
        var continuation: CheckedContinuation<Result<StoreCommandAnswer, StoreError>, Never>?
    }

    /// A run's task suspended in ``flush(runID:)`` until the record with `ticket` has committed.
    private struct Waiter {
        var ticket: UInt64
        var runID: String
        var continuation: CheckedContinuation<Result<Void, StoreError>, Never>
    }

    /// The longest a record that is not a side-effect boundary waits before it is written (for `watch`).
    public static let idleFlush: Int = 50
    /// The longest a batch a run waits for is held back, in microseconds, for the worker's other runs in progress to
    /// reach a point where they wait too (``runBegan()``): it is written as soon as every one of them waits, or
    /// after this long. A commit costs the server more than the rows it carries, so fewer, fuller batches cost
    /// less for the same runs.
    public static let gatherLimit: Int = 4000
    /// How long a stopping committer keeps trying to reach the server before it fails the waiting records.
    public static let reconnectLimit: Duration = .seconds(30)
    /// How long a running committer keeps trying to reach the server before it fails the waiting records: an
    /// outage this long (a server restarted after a crash, a failover) holds the worker's runs where they are, and
    /// they go on once the server is back, while the leases fence out any other worker that took one of them.
    public static let outageLimit: Duration = .seconds(600)

    /// How long a batch is written again after a failure, from the first: ``outageLimit`` while the worker runs,
    /// ``reconnectLimit`` once it stops (its drain is bounded).
    static func retryLimit(stopping: Bool) -> Duration {
        stopping ? reconnectLimit : outageLimit
    }

    private let conninfo: String
    private let applicationName: String?
    private let workerID: String
    /// How long the server lets the committer's connection sit inside a transaction between statements
    /// (`idle_in_transaction_session_timeout`); nil: the server's setting.
    private let idleInTransactionLimit: Duration?
    /// Called inside each transaction, after its commands and before its commit: a test's stand-in for a worker
    /// held up there (stopped, its VM frozen).
    private let beforeCommit: (@Sendable () -> Void)?
    private let connectivity: StoreConnectivity
    /// How long a batch runs wait for is held back for the others (``gatherLimit`` unless a test says otherwise).
    private let gatherMicroseconds: Int
    private let monitor = Monitor()
    private var pending: [Pending] = []
    private var nextTicket: UInt64 = 0
    private var committed: UInt64 = 0
    /// The ticket of each run's last record not yet committed.
    private var lastTicket: [String: UInt64] = [:]
    private var waiters: [Waiter] = []
    private var commands: [PendingCommand] = []
    /// For each run waiting for the next batch, how many of `waiters` and of the awaited `commands` are its.
    private var waitsOfRun: [String: Int] = [:]
    private var failures: [String: StoreError] = [:]
    private var syncRequested = false
    /// The worker's runs in progress (``runBegan()``), each of which will soon wait for a batch.
    private var activeRuns = 0
    /// Whether batches are held back for the runs in progress (until ``stopGathering()``).
    private var gathering = true
    private var stopping = false
    private var stopped = false
    /// What the committer's thread waits for now; nil while it works, or once it has been woken.
    private var committerWaits: CommitterWait?
    private var thread: pthread_t?
    /// Batches and records written, for benchmarks and tests.
    private var batchCount = 0
    private var recordCount = 0
    /// Runs of which a store reached again had lost something (``StoreLoss``), and the records it had lost of them.
    private var lostRunCount = 0
    private var lostRecordCount = 0
    /// The last record of each run in progress this committer has committed: what a store reached again must hold.
    private var committedThrough: [String: Int] = [:]
    /// What a store reached again had lost, by run (``StoreLoss``).
    private var losses: [String: StoreLoss] = [:]
    /// Whether the committer's thread had a connection before the one it opens now.
    private var connectedBefore = false
    /// Told what a store reached again had lost.
    private let storeLost: (@Sendable ([StoreLoss]) -> Void)?

    /// Starts the committer's thread. It connects on its first batch.
    /// - Parameter gatherMicroseconds: The longest a batch runs wait for is held back for the other runs in
    ///   progress to wait too.
    /// - Parameter connectivity: Told when the committer's connection fails and when it works again (a worker
    ///   passes its store's, so that its log says when the store is unreachable).
    /// - Parameter idleInTransactionLimit: How long the server lets the committer sit inside a transaction between
    ///   statements before it ends the connection. A worker held up there (stopped, its VM frozen) holds row locks on
    ///   its runs, which takeovers skip (`FOR UPDATE SKIP LOCKED`): a worker passes half its lease, so that its runs
    ///   can be taken over when their leases run out. The batch is written again on a new connection, fenced by the
    ///   leases, once the worker goes on.
    public convenience init(
        conninfo: String, applicationName: String? = nil, workerID: String, gatherMicroseconds: Int = GroupCommitter.gatherLimit,
        connectivity: StoreConnectivity = StoreConnectivity(), idleInTransactionLimit: Duration? = nil
    ) {
        self.init(
            conninfo: conninfo, applicationName: applicationName, workerID: workerID, gatherMicroseconds: gatherMicroseconds,
            connectivity: connectivity, idleInTransactionLimit: idleInTransactionLimit, beforeCommit: nil)
    }

    /// - Parameter storeLost: Told, on the committer's thread, what a store reached again after its connection broke
    ///   had lost of the runs in progress (``StoreLoss``), before their next records are written.
    init(
        conninfo: String, applicationName: String?, workerID: String, gatherMicroseconds: Int, connectivity: StoreConnectivity,
        idleInTransactionLimit: Duration?, beforeCommit: (@Sendable () -> Void)?, storeLost: (@Sendable ([StoreLoss]) -> Void)? = nil
    ) {
        self.storeLost = storeLost
        self.conninfo = conninfo
        self.applicationName = applicationName
        self.workerID = workerID
        self.idleInTransactionLimit = idleInTransactionLimit
        self.beforeCommit = beforeCommit
        self.connectivity = connectivity
        self.gatherMicroseconds = gatherMicroseconds
        // The thread may already run when these are set: under the lock, as everywhere else.
        monitor.lock()
        defer { monitor.unlock() }
        if let created = StoreThread.start({ self.loop() }) {
            thread = created
        } else {
            stopped = true
        }
    }

    /// Whether ``shutdown()`` was asked for.
    private var isStopping: Bool {
        monitor.lock()
        defer { monitor.unlock() }
        return stopping
    }

    /// Keeps one record of a run, to be written with the next batch; never waits. A side-effect record (`sync`)
    /// starts that batch at once; ``flush(runID:)`` waits for it.
    /// - Throws: ``StoreError`` when the run's records can no longer be written (server unreachable for longer
    ///   than ``reconnectLimit``, or the run's lease passed to another worker).
    public func append(_ record: EncodedJournalRecord, runID: String, sync: Bool) throws(StoreError) {
        monitor.lock()
        defer { monitor.unlock() }
        if let failure = failures[runID] { throw failure }
        guard !stopped else {
            // Recorded as the run's failure, so that the fleet's guard refuses the run's further hub calls.
            let failure = StoreError(.storeUnavailable, "the store's writer has stopped")
            failures[runID] = failure
            throw failure
        }
        nextTicket += 1
        pending.append(Pending(ticket: nextTicket, runID: runID, record: record))
        lastTicket[runID] = nextTicket
        if sync { syncRequested = true }
        wakeCommitter()
    }

    /// Waits until every record of the run appended so far has committed, suspending the calling task (not its
    /// thread) meanwhile; returns at once when nothing of the run is pending.
    /// - Throws: ``StoreError`` when they cannot be written (see ``append(_:runID:sync:)``).
    public func flush(runID: String) async throws(StoreError) {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Void, StoreError>, Never>) in
            monitor.lock()
            if let failure = failures[runID] {
                monitor.unlock()
                continuation.resume(returning: .failure(failure))
                return
            }
            guard let ticket = lastTicket[runID], committed < ticket else {
                monitor.unlock()
                continuation.resume(returning: .success(()))
                return
            }
            guard !stopped else {
                let failure = StoreError(.storeUnavailable, "the store's writer stopped before the records of \(runID) were written")
                failures[runID] = failure
                monitor.unlock()
                continuation.resume(returning: .failure(failure))
                return
            }
            waiters.append(Waiter(ticket: ticket, runID: runID, continuation: continuation))
            waitsOfRun[runID, default: 0] += 1
            syncRequested = true
            wakeCommitter()
            monitor.unlock()
        }
        try outcome.get()
    }

    /// Performs a store command in the next batch's transaction, after the records appended before it, and
    /// returns its answer; suspends the calling task (not its thread) meanwhile. A command of a run whose records
    /// can no longer be written (`runID`'s failure) is refused, except a session release, which is always tried.
    /// - Throws: ``StoreError`` when the batch cannot be written (see ``append(_:runID:sync:)``).
    func perform(_ command: StoreCommand, runID: String?) async throws(StoreError) -> StoreCommandAnswer {
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<Result<StoreCommandAnswer, StoreError>, Never>) in
            monitor.lock()
            if let refusal = refusal(of: command, runID: runID) {
                monitor.unlock()
                continuation.resume(returning: .failure(refusal))
                return
            }
            guard !stopped else {
                monitor.unlock()
                continuation.resume(returning: .failure(StoreError(.storeUnavailable, "the store's writer has stopped")))
                return
            }
            commands.append(PendingCommand(command: command, runID: runID, continuation: continuation))
            if let runID { waitsOfRun[runID, default: 0] += 1 }
            syncRequested = true
            wakeCommitter()
            monitor.unlock()
        }
        return try outcome.get()
    }

    /// Hands a command to the next batch without waiting for it: it is performed in the transaction that carries
    /// the records appended before it, or a later one, and before any command handed over after it. For a session
    /// release, which nothing the run does next depends on and whose failure the run could not act on anyway.
    func post(_ command: StoreCommand, runID: String?) {
        monitor.lock()
        defer { monitor.unlock() }
        guard !stopped, refusal(of: command, runID: runID) == nil else { return }
        commands.append(PendingCommand(command: command, runID: runID, continuation: nil))
        wakeCommitter()
    }

    /// Counts a run of the worker as in progress until ``runEnded()``: a batch that runs wait for is held back (at
    /// most ``gatherLimit``) until every run in progress waits for it, so that it carries all of them.
    public func runBegan() {
        monitor.lock()
        activeRuns += 1
        monitor.unlock()
    }

    /// Writes every batch as soon as a run waits for it from now on, without holding it back for the others: for a
    /// worker that is stopping, whose runs park at checkpoints (and are never counted out) or end.
    public func stopGathering() {
        monitor.lock()
        gathering = false
        wakeCommitter()
        monitor.unlock()
    }

    /// The run counted by ``runBegan()`` has ended: it will not wait for a batch any more.
    public func runEnded() {
        monitor.lock()
        activeRuns -= 1
        wakeCommitter()
        monitor.unlock()
    }

    /// Whether every run in progress waits for the next batch (its records flushed, or a command answered), so
    /// holding the batch back for more would only delay it. Called with `monitor` locked.
    private var everyRunWaits: Bool {
        !gathering || activeRuns <= 0 || waitsOfRun.count >= activeRuns
    }

    /// How many runs wait for the next batch, for tests.
    var waitingRunCount: Int {
        monitor.lock()
        defer { monitor.unlock() }
        return waitsOfRun.count
    }

    /// Counts off one of the things `runID` waits for in the next batch, taken from `waiters` or `commands`. Called
    /// with `monitor` locked.
    private func endWait(of runID: String) {
        guard let count = waitsOfRun[runID] else { return }
        waitsOfRun[runID] = count > 1 ? count - 1 : nil
    }

    /// What the committer's thread waits for, while it waits.
    private enum CommitterWait {
        /// Anything to write: a record, a command, a run waiting, or the stop.
        case work
        /// A run waiting (or the stop), for at most ``idleFlush``, with records already pending.
        case sync
        /// Every run in progress waiting for the batch (``everyRunWaits``), or the stop, for at most the gather limit.
        case everyRun
    }

    /// Wakes the committer's thread once what it waits for has come, and only then: the runs' threads change the
    /// state far more often than the committer has a reason to look at it, and every needless wake-up costs both
    /// sides a context switch. Called with `monitor` locked after every change the committer may wait for.
    private func wakeCommitter() {
        let ready: Bool
        switch committerWaits {
        case nil: return
        case .work: ready = syncRequested || !pending.isEmpty || !commands.isEmpty || stopping
        case .sync: ready = syncRequested || stopping
        case .everyRun: ready = stopping || everyRunWaits
        }
        guard ready else { return }
        committerWaits = nil
        monitor.signal()
    }

    /// Why a command must not be performed: its run's records can no longer be written. Called with `monitor` locked.
    private func refusal(of command: StoreCommand, runID: String?) -> StoreError? {
        switch command {
        case .releaseSession: return nil
        case .acquireSession, .finish, .confirmLease: return runID.flatMap { failures[$0] }
        }
    }

    /// Fences runs this worker no longer holds (their leases passed to another worker, or were handed back): from
    /// now on their records and commands are refused, and so (``FleetSessionGuard``) are their hub calls, as for a
    /// run whose records the store refused. Runs waiting for their records are woken with the failure.
    func fence(_ runIDs: [String], because reason: String) {
        monitor.lock()
        for runID in runIDs where failures[runID] == nil { failures[runID] = StoreError(.leaseLost, reason) }
        for runID in runIDs { committedThrough[runID] = nil }
        let fenced = Set(runIDs)
        let woken = takeWaiters { fenced.contains($0.runID) }
        monitor.unlock()
        resume(woken)
    }

    /// Lets a run's records be written again, and forgets what was committed and lost of it: for a run this worker
    /// claims anew (to settle it after a takeover) once nothing of its earlier task here is left, and for a run that
    /// ended here.
    func unfence(_ runID: String) {
        monitor.lock()
        failures[runID] = nil
        committedThrough[runID] = nil
        losses[runID] = nil
        monitor.unlock()
    }

    /// Why a run's records can no longer be written (its lease passed to another worker, or the store stayed out of
    /// reach); nil while they can.
    public func failure(of runID: String) -> StoreError? {
        monitor.lock()
        defer { monitor.unlock() }
        return failures[runID]
    }

    /// Writes what is pending, then stops the thread (waiting for it). Only the first of several calls joins the
    /// thread; the others return at once.
    public func shutdown() {
        monitor.lock()
        stopping = true
        syncRequested = true
        wakeCommitter()
        let running = thread
        thread = nil
        monitor.unlock()
        if let running { pthread_join(running, nil) }
    }

    /// Batches and records written so far.
    public var statistics: (batches: Int, records: Int) {
        monitor.lock()
        defer { monitor.unlock() }
        return (batchCount, recordCount)
    }

    /// Since the committer started: the runs of which a store reached again had lost records it had committed, or the
    /// run itself, and the records it had lost of them. (A claim no longer shown with every record there is not
    /// counted: it may be a takeover after this worker was cut off for longer than its lease.)
    public var lossStatistics: (runs: Int, records: Int) {
        monitor.lock()
        defer { monitor.unlock() }
        return (lostRunCount, lostRecordCount)
    }

    // MARK: - The committer's thread

    private func loop() {
        var connection: PostgresConnection?
        while true {
            monitor.lock()
            while !syncRequested && pending.isEmpty && commands.isEmpty && !stopping {
                committerWaits = .work
                monitor.wait()
            }
            if !syncRequested && !stopping {
                committerWaits = .sync
                monitor.wait(milliseconds: Self.idleFlush)
            }
            if syncRequested && !stopping && !everyRunWaits {
                let deadline = Monitor.deadline(microseconds: gatherMicroseconds)
                repeat {
                    committerWaits = .everyRun
                } while monitor.wait(until: deadline) && !stopping && !everyRunWaits
            }
            committerWaits = nil
            let batch = pending
            pending.removeAll(keepingCapacity: true)
            let (carried, refused) = takeCommands()
            syncRequested = !commands.isEmpty
            let finishing = stopping
            monitor.unlock()
            for (command, failure) in refused { command.continuation?.resume(returning: .failure(failure)) }

            if !batch.isEmpty || !carried.isEmpty {
                let outcome = write(batch, commands: carried.map(\.command), connection: &connection)
                monitor.lock()
                var answers: Result<[StoreCommandAnswer], StoreError>
                switch outcome {
                case .success(let written):
                    for runID in written.refused where failures[runID] == nil {
                        failures[runID] = StoreError(
                            .leaseLost, "run \(runID) is no longer leased to this worker (\(workerID)); another worker took it over")
                    }
                    for entry in batch where !written.refused.contains(entry.runID) && failures[entry.runID] == nil {
                        committedThrough[entry.runID] = max(committedThrough[entry.runID] ?? 0, entry.record.sequence)
                    }
                    answers = .success(written.answers)
                case .failure(let error):
                    for entry in batch where failures[entry.runID] == nil { failures[entry.runID] = error }
                    answers = .failure(error)
                }
                committed = batch.last?.ticket ?? committed
                batchCount += 1
                recordCount += batch.count
                lastTicket = lastTicket.filter { $0.value > committed }
                let woken = takeWaiters { $0.ticket <= committed || failures[$0.runID] != nil }
                monitor.unlock()
                resume(woken)
                for (index, command) in carried.enumerated() {
                    command.continuation?.resume(returning: answers.map { $0[index] })
                }
            }
            if finishing {
                monitor.lock()
                if pending.isEmpty && commands.isEmpty {
                    stopped = true
                    let left = takeWaiters { _ in true }
                    monitor.unlock()
                    resume(left)
                    connection?.close()
                    return
                }
                monitor.unlock()
            }
        }
    }

    /// Takes the commands for the next batch: all of them, but those of runs whose records failed meanwhile are
    /// refused. Called with `monitor` locked.
    private func takeCommands() -> (carried: [PendingCommand], refused: [(PendingCommand, StoreError)]) {
        guard !commands.isEmpty else { return ([], []) }
        var carried: [PendingCommand] = []
        var refused: [(PendingCommand, StoreError)] = []
        carried.reserveCapacity(commands.count)
        for command in commands {
            if command.continuation != nil, let runID = command.runID { endWait(of: runID) }
            if let failure = refusal(of: command.command, runID: command.runID) {
                refused.append((command, failure))
            } else {
                carried.append(command)
            }
        }
        commands.removeAll(keepingCapacity: true)
        return (carried, refused)
    }

    /// Removes the waiters that `done` selects; called with `monitor` locked.
    private func takeWaiters(_ done: (Waiter) -> Bool) -> [(Waiter, Result<Void, StoreError>)] {
        var woken: [(Waiter, Result<Void, StoreError>)] = []
        var staying: [Waiter] = []
        for waiter in waiters {
            guard done(waiter) else {
                staying.append(waiter)
                continue
            }
            endWait(of: waiter.runID)
            if let failure = failures[waiter.runID] {
                woken.append((waiter, .failure(failure)))
            } else if waiter.ticket <= committed {
                woken.append((waiter, .success(())))
            } else {
                woken.append((waiter, .failure(StoreError(.storeUnavailable, "the store's writer stopped before the records of \(waiter.runID) were written"))))
            }
        }
        waiters = staying
        return woken
    }

    /// Resumes waiting runs, outside the lock.
    private func resume(_ woken: [(Waiter, Result<Void, StoreError>)]) {
        for (waiter, result) in woken { waiter.continuation.resume(returning: result) }
    }

    /// Writes one batch in one transaction, its records first, then its commands; returns the runs whose records
    /// were refused (not leased to us) and the commands' answers.
    private func write(
        _ batch: [Pending], commands: [StoreCommand], connection: inout PostgresConnection?
    ) -> Result<(refused: Set<String>, answers: [StoreCommandAnswer]), StoreError> {
        let rows = RecordBatchRows(batch.map(\.runID), batch.map(\.record))
        let runIDs = Set(rows.runs)
        var firstFailure: ContinuousClock.Instant?
        var delay = 10
        while true {
            do {
                var reconnected = false
                if connection == nil || connection?.isOpen == false {
                    connection = try opened()
                    reconnected = connectedBefore
                    connectedBefore = true
                }
                guard let open = connection else { continue }
                if reconnected { try lookForLosses(on: open) }
                if !commands.isEmpty { try open.execute("BEGIN") }
                let leased = try batch.isEmpty ? [] : writeRecords(rows, on: open)
                let answers = try StoreCommand.perform(commands, workerID: workerID, on: open)
                if !commands.isEmpty {
                    beforeCommit?()
                    try open.execute("COMMIT")
                }
                connectivity.reached(via: open)
                return .success((runIDs.subtracting(leased), answers))
            } catch {
                connection?.close()
                connection = nil
                // The batch is one transaction, rolled back whole on failure, and records already written are
                // skipped, sessions taken again by the same run kept, releases repeated harmlessly: writing it
                // again is safe. (A final status whose commit's answer was lost is found recorded the second time,
                // by the claim count it carries: ``RunConclusion/claims``.)
                // A batch the server cancelled (a statement_timeout) waited on a lock, as the statement itself is
                // short: it is tried again within the same bound, so its runs' records are not lost to it.
                if !error.isTransient && !error.isCancelled {
                    return .failure(StoreError.from(error, doing: "writing journal records"))
                }
                if error.isOutage {
                    connectivity.failed(
                        error.message, doing: "writing journal records", readOnly: error.isReadOnlyOutage, serverLost: error.serverLost)
                }
                // Counted from the first failure: a worker held up inside the transaction comes back to one.
                let failedAt = firstFailure ?? ContinuousClock.now
                firstFailure = failedAt
                if ContinuousClock.now - failedAt >= Self.retryLimit(stopping: isStopping) {
                    return .failure(StoreError.from(error, doing: "writing journal records"))
                }
                usleep(UInt32(delay * 1000))
                delay = min(delay * 2, 500)
            }
        }
    }

    /// Compares what the store reached again holds of the runs in progress with what this committer committed of
    /// them, and says what it lost (``StoreLoss``), once per run.
    private func lookForLosses(on connection: PostgresConnection) throws(PostgresError) {
        monitor.lock()
        // A fenced run is another worker's, or ended: what the store holds of it is no longer this worker's to vouch for.
        let expected = committedThrough.filter { losses[$0.key] == nil && failures[$0.key] == nil }
        monitor.unlock()
        guard !expected.isEmpty else { return }
        let runIDs = expected.keys.sorted()
        // Batches of a run do not overlap: the last by first_seq holds its last record (one probe of the key each).
        let rows = try connection.execute(
            """
            SELECT k.run_id, r.run_id IS NOT NULL, r.worker_id IS NOT DISTINCT FROM $2 AND r.status = 'running',
                (SELECT b.last_seq FROM matterflow_record_batches b WHERE b.run_id = k.run_id ORDER BY b.first_seq DESC LIMIT 1)
            FROM unnest($1::text[]) AS k(run_id) LEFT JOIN matterflow_runs r ON r.run_id = k.run_id
            """, [PostgresRunStore.textArrayLiteral(runIDs), workerID])
        var found: [StoreLoss] = []
        for row in rows.rows {
            guard let runID = row[0] ?? nil, let committed = expected[runID] else { continue }
            let held = (row[3] ?? nil).flatMap { Int($0) } ?? 0
            let kind: StoreLoss.Kind = row[1] != "t" ? .run : row[2] != "t" ? .claim : .records
            guard held < committed || kind != .records else { continue }
            found.append(StoreLoss(runID: runID, records: held < committed ? (held + 1)...committed : nil, kind: kind))
        }
        guard !found.isEmpty else { return }
        monitor.lock()
        for loss in found {
            losses[loss.runID] = loss
            // A claim shown no longer, with every record there, may be a takeover after this worker was cut off for
            // longer than its lease: not counted as a loss.
            if loss.kind == .run || loss.records != nil { lostRunCount += 1 }
            lostRecordCount += loss.records?.count ?? 0
            // Nothing more of a run whose row or claim is gone can be written: its task ends here, making no further call.
            if loss.kind != .records, failures[loss.runID] == nil { failures[loss.runID] = StoreError(.runNotFound, loss.description) }
        }
        monitor.unlock()
        storeLost?(found)
    }

    /// What a store reached again had lost of the run, if anything (``StoreLoss``).
    func loss(of runID: String) -> StoreLoss? {
        monitor.lock()
        defer { monitor.unlock() }
        return losses[runID]
    }

    /// A new connection for the committer, with its limit on time idle inside a transaction.
    private func opened() throws(PostgresError) -> PostgresConnection {
        let connection = try PostgresConnection(conninfo, applicationName: applicationName)
        connectivity.connected(connection)
        if let idleInTransactionLimit {
            let milliseconds = max(1, Int((idleInTransactionLimit.secondsValue * 1000).rounded(.up)))
            try connection.execute("SELECT set_config('idle_in_transaction_session_timeout', $1, false)", ["\(milliseconds)ms"])
        }
        return connection
    }

    /// Inserts the batch's records (fenced by the runs' leases) and announces those of watched runs
    /// (``PostgresRunStore/beginWatching(_:on:)``); returns the runs leased to
    /// this worker. Each run's records of the batch are one row (``RecordBatchRows``); the rows travel as four
    /// arrays in PostgreSQL's binary format, which the server takes as they are (`unnest`): one statement for the
    /// whole batch, no JSON parsed on the server.
    private func writeRecords(_ rows: RecordBatchRows, on connection: PostgresConnection) throws(PostgresError) -> Set<String> {
        let written = try connection.execute(
            prepared:
            """
            WITH batch AS (
                SELECT b.run_id, b.first_seq, b.last_seq, b.records
                FROM unnest($1::text[], $2::int4[], $3::int4[], $4::text[]) AS b(run_id, first_seq, last_seq, records)
            ), leased AS (
                SELECT run_id FROM matterflow_runs
                WHERE run_id = ANY ($1::text[]) AND worker_id = $5
                FOR SHARE
            ), inserted AS (
                INSERT INTO matterflow_record_batches (run_id, first_seq, last_seq, records)
                SELECT run_id, first_seq, last_seq, records FROM batch WHERE run_id IN (SELECT run_id FROM leased)
                ON CONFLICT (run_id, first_seq) DO NOTHING
                RETURNING run_id
            ), notified AS (
                SELECT pg_notify('matterflow_records', run_id) FROM inserted
                WHERE run_id IN (SELECT run_id FROM matterflow_watchers)
            )
            SELECT run_id, (SELECT count(*) FROM notified) FROM leased
            """,
            binary: [rows.runIDs.bytes, rows.firstSequences.bytes, rows.lastSequences.bytes, rows.records.bytes, Array(workerID.utf8)])
        return Set(written.rows.compactMap { $0[0] })
    }
}
