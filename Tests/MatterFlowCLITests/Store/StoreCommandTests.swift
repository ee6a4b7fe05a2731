import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
@testable import MatterFlowStore
import Synchronization
import Testing

/// The store commands that ride the group committer's transactions: the fleet's session lock and a run's final
/// status, answered as the store's own commands would.
extension PostgresStoreTests {
    @Test("session takes in the committer's batches: of runs racing for one structure exactly one gets it, the others learn who")
    func batchedSessionTakes() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try TestPostgres.insertRunning((0..<8).map { ("run-\($0)", $0 < 6 ? "home-a" : "home-\($0)", "me") }, into: store)
        let committer = GroupCommitter(conninfo: conninfo, workerID: "me")
        defer { committer.shutdown() }
        // Six runs take home-a at once (their takes reach the committer together); two take structures of their own.
        let answers = try await withThrowingTaskGroup(of: (String, StoreCommandAnswer).self) { group in
            for index in 0..<8 {
                group.addTask {
                    let runID = "run-\(index)"
                    let structure = index < 6 ? "home-a" : "home-\(index)"
                    return (runID, try await committer.perform(.acquireSession(structure: structure, runID: runID), runID: runID))
                }
            }
            var answers: [String: StoreCommandAnswer] = [:]
            for try await (runID, answer) in group { answers[runID] = answer }
            return answers
        }
        let winners = (0..<6).map { "run-\($0)" }.filter { answers[$0] == .acquired }
        #expect(winners.count == 1, "\(answers)")
        let winner = try #require(winners.first)
        for index in 0..<6 where "run-\(index)" != winner {
            #expect(answers["run-\(index)"]?.brief == "busy \(winner)")
        }
        #expect(answers["run-6"] == .acquired)
        #expect(answers["run-7"] == .acquired)
        let held = try store.sessions()
        #expect(held.map(\.structure) == ["home-6", "home-7", "home-a"])
        #expect(held.first { $0.structure == "home-a" }?.runID == winner)

        // The winner gives the session up; a loser then gets it in a later batch.
        #expect(try await committer.perform(.releaseSession(structure: "home-a", runID: winner, by: winner), runID: winner) == .released)
        let loser = winner == "run-0" ? "run-1" : "run-0"
        #expect(try await committer.perform(.acquireSession(structure: "home-a", runID: loser), runID: loser) == .acquired)
    }

    /// Performs `commands` as one batch of the committer does: in one transaction on a connection of its own.
    static func performInOneBatch(_ commands: [StoreCommand], conninfo: String) throws -> [StoreCommandAnswer] {
        let connection = try PostgresConnection(conninfo)
        defer { connection.close() }
        try connection.execute("BEGIN")
        let answers = try StoreCommand.perform(commands, workerID: "me", on: connection)
        try connection.execute("COMMIT")
        return answers
    }

    @Test("takes of one structure in one batch: the first gets it, the others are told who holds it, in the same batch")
    func takesOfOneStructureInOneBatch() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try TestPostgres.insertRunning((0..<8).map { ("run-\($0)", $0 < 6 ? "home-a" : "home-\($0)", "me") }, into: store)
        let answers = try Self.performInOneBatch(
            (0..<8).map { .acquireSession(structure: $0 < 6 ? "home-a" : "home-\($0)", runID: "run-\($0)") }, conninfo: conninfo)
        #expect(answers.map(\.brief) == ["acquired"] + Array(repeating: "busy run-0", count: 5) + ["acquired", "acquired"])
        // A take that lost to one of the same batch learns the holder as well as one refused by an older row.
        guard case .busy(let raced) = answers[1] else { Issue.record("\(answers[1])"); return }
        #expect(raced?.status == "running")
        #expect(raced?.workerID == "me")
        #expect(raced.map { abs(($0.since ?? 0) - Date().timeIntervalSince1970) < 600 } == true, "\(String(describing: raced))")
        #expect(try store.sessions().map { "\($0.structure)=\($0.runID)" } == ["home-6=run-6", "home-7=run-7", "home-a=run-0"])

        // The holder gives home-a up and two runs take it in the batch: the first gets it. Two takes of a structure
        // another run holds are both told who.
        let next = try Self.performInOneBatch(
            [
                .acquireSession(structure: "home-a", runID: "run-3"), .releaseSession(structure: "home-a", runID: "run-0", by: "run-0"),
                .acquireSession(structure: "home-a", runID: "run-4"), .acquireSession(structure: "home-6", runID: "run-1"),
                .acquireSession(structure: "home-6", runID: "run-2"),
            ], conninfo: conninfo)
        #expect(next.map(\.brief) == ["acquired", "released", "busy run-3", "busy run-6", "busy run-6"])
        guard case .busy(let older) = next[3] else { Issue.record("\(next[3])"); return }
        #expect(older?.status == "running")
        #expect(older?.workerID == "me")
        #expect(older?.since != nil)
        #expect(try store.sessions().map { "\($0.structure)=\($0.runID)" } == ["home-6=run-6", "home-7=run-7", "home-a=run-3"])
    }

    @Test("final statuses and a release in one batch: each keeps output, error and notes; sessions go; a run not leased is refused and gives its session up neither with its end nor alone; each end is announced")
    func finalStatusesInOneBatch() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try TestPostgres.insertRunning(
            [("run-ok", "run-ok", "me"), ("run-failed", "run-failed", "me"), ("run-theirs", "run-theirs", "someone-else"),
             ("run-other", "home-x", "me")], into: store)
        try store.execute(
            "INSERT INTO matterflow_sessions (structure_id, run_id) SELECT structure_id, run_id FROM matterflow_runs",
            doing: "test setup")
        let listener = try PostgresConnection(conninfo)
        defer { listener.close() }
        try listener.listen("matterflow_records")
        // A watch whose server process is gone (no process has PID 0): the next watch to begin removes its row.
        try store.execute("INSERT INTO matterflow_watchers (run_id, backend_pid) VALUES ('run-gone', 0)", doing: "test setup")
        for run in ["run-ok", "run-failed", "run-theirs"] { try PostgresRunStore.beginWatching(run, on: listener) }
        #expect(try store.execute("SELECT run_id FROM matterflow_watchers ORDER BY run_id", doing: "test").rows.map { $0[0] }
            == ["run-failed", "run-ok", "run-theirs"])

        let succeeded = RunConclusion(
            runID: "run-ok", status: "succeeded", output: ["deviceIDs": ["device-1"]], error: nil, recovered: false, notes: [], claims: 0)
        let failed = RunConclusion(
            runID: "run-failed", status: "failed", output: nil, error: ["code": "sessionBusy", "message": "busy"], recovered: true,
            notes: ["settled after takeover", "a \"quoted\" note"], claims: 0)
        let theirs = RunConclusion(runID: "run-theirs", status: "succeeded", output: nil, error: nil, recovered: false, notes: [], claims: 0)
        // A succeeded run keeps its session (release nil), as a workflow that ends holding it on purpose does.
        let answers = try Self.performInOneBatch(
            [
                .finish(succeeded, release: nil), .releaseSession(structure: "home-x", runID: "run-other", by: "run-other"),
                .finish(failed, release: "run-failed"), .finish(theirs, release: "run-theirs"),
                // A run another worker took over gives up nothing, even whoever's: its row is the new worker's run.
                .releaseSession(structure: "run-theirs", runID: nil, by: "run-theirs"),
            ], conninfo: conninfo)
        #expect(answers == [.finished(recorded: true), .released, .finished(recorded: true), .finished(recorded: false), .released])

        let rows = try store.execute(
            """
            SELECT run_id, status, output::text, error IS NULL, error->>'code', recovered, notes, worker_id IS NULL
            FROM matterflow_runs ORDER BY run_id
            """, doing: "reading the runs")
        let byRun = Dictionary(uniqueKeysWithValues: rows.rows.map { ($0[0] ?? "", $0) })
        #expect(byRun["run-ok"]?[1] == "succeeded")
        #expect(byRun["run-ok"]?[2] == #"{"deviceIDs": ["device-1"]}"#)
        #expect(byRun["run-ok"]?[3] == "t")
        #expect(byRun["run-ok"]?[7] == "t")
        #expect(byRun["run-failed"]?[1] == "failed")
        #expect(byRun["run-failed"]?[2] == nil)
        #expect(byRun["run-failed"]?[4] == "sessionBusy")
        #expect(byRun["run-failed"]?[5] == "t")
        #expect(PostgresRunStore.textArray(byRun["run-failed"]?[6]) == ["settled after takeover", "a \"quoted\" note"])
        #expect(byRun["run-theirs"]?[1] == "running")
        #expect(byRun["run-other"]?[1] == "running")
        #expect(try store.sessions().map(\.structure) == ["run-ok", "run-theirs"])
        // The runs that ended are watched no longer; the one whose end was refused still is.
        #expect(try store.execute("SELECT run_id FROM matterflow_watchers", doing: "test").rows.map { $0[0] } == ["run-theirs"])

        var announced: Set<String> = []
        let deadline = ContinuousClock.now + .seconds(60)
        while !announced.isSuperset(of: ["run-ok", "run-failed"]), ContinuousClock.now < deadline {
            announced.formUnion(try listener.notifications(timeoutMilliseconds: 100).map(\.payload))
        }
        #expect(announced.isSuperset(of: ["run-ok", "run-failed"]), "\(announced)")
    }

    @Test("a hub's text holding U+0000 (which jsonb refuses) does not fail the batch: it is kept with U+FFFD, and the batch's other runs end too")
    func nulInAFinalStatus() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try TestPostgres.insertRunning([("run-nul", "home-n", "me"), ("run-next", "home-x", "me")], into: store)
        let nul = RunConclusion(
            runID: "run-nul", status: "failed", output: ["name\u{0}": "lamp\u{0}1"],
            error: ["code": "unavailable", "message": "the hub said \u{0}"], recovered: false, notes: ["note \u{0}"], claims: 0)
        let next = RunConclusion(runID: "run-next", status: "succeeded", output: ["deviceIDs": ["d"]], error: nil, recovered: false, notes: [], claims: 0)
        let answers = try Self.performInOneBatch([.finish(nul, release: "home-n"), .finish(next, release: nil)], conninfo: conninfo)
        #expect(answers == [.finished(recorded: true), .finished(recorded: true)])
        let rows = try store.execute(
            "SELECT run_id, status, output->>'name\u{FFFD}', error->>'message', notes[1] FROM matterflow_runs ORDER BY run_id", doing: "reading")
        #expect(rows.rows.map { $0.map { $0 ?? "-" } } == [
            ["run-next", "succeeded", "-", "-", "-"],
            ["run-nul", "failed", "lamp\u{FFFD}1", "the hub said \u{FFFD}", "note \u{FFFD}"],
        ])
    }

    @Test("a final status written again after its commit's answer was lost is found recorded; one another worker recorded is not")
    func finalStatusWrittenAgain() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try TestPostgres.insertRunning([("run-mine", "home-m", "me"), ("run-taken", "home-t", "me")], into: store)
        // This worker's claim was each run's first.
        try store.execute("UPDATE matterflow_runs SET claims = 1", doing: "test setup")
        let mine = RunConclusion(
            runID: "run-mine", status: "cancelled", output: nil, error: ["code": "cancelled", "message": "released"],
            recovered: false, notes: [], claims: 1)
        #expect(try Self.performInOneBatch([.finish(mine, release: "home-m")], conninfo: conninfo) == [.finished(recorded: true)])
        let read = "SELECT status, worker_id IS NULL, finished_at::text FROM matterflow_runs WHERE run_id = 'run-mine'"
        let recorded = try store.execute(read, doing: "reading the run").rows

        // The committer writes the batch again when the answer to its COMMIT was lost (the commit went through).
        #expect(try Self.performInOneBatch([.finish(mine, release: "home-m")], conninfo: conninfo) == [.finished(recorded: true)])
        #expect(try store.execute(read, doing: "reading the run").rows == recorded, "the row is left as first recorded")
        // A status this worker did not record is not taken for its own.
        var other = mine
        other.status = "succeeded"
        #expect(try Self.performInOneBatch([.finish(other, release: nil)], conninfo: conninfo) == [.finished(recorded: false)])

        // run-taken: this worker's lease ran out; another worker claimed it (the second claim) and ended it.
        try store.execute(
            """
            UPDATE matterflow_runs SET status = 'cancelled', worker_id = NULL, claims = 2, finished_at = now(), recovered = true
            WHERE run_id = 'run-taken'
            """, doing: "test setup")
        let late = RunConclusion(runID: "run-taken", status: "cancelled", output: nil, error: nil, recovered: false, notes: [], claims: 1)
        #expect(try Self.performInOneBatch([.finish(late, release: nil)], conninfo: conninfo) == [.finished(recorded: false)])
        #expect(try store.execute("SELECT recovered FROM matterflow_runs WHERE run_id = 'run-taken'", doing: "reading").rows == [["t"]])
    }

    @Test("a run leased to another worker: its runFinished and then its final status, in the committer, are both refused")
    func finishOfRunNotLeasedRefused() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try TestPostgres.insertRunning([("run-theirs", "home", "someone-else")], into: store)
        let committer = GroupCommitter(conninfo: conninfo, workerID: "me")
        defer { committer.shutdown() }
        let record = encoded(payload: ["seq": .int(1), "type": .string("runFinished"), "outcome": "succeeded"])
        try committer.append(record, runID: "run-theirs", sync: false)
        let theirs = RunConclusion(runID: "run-theirs", status: "succeeded", output: nil, error: nil, recovered: false, notes: [], claims: 0)
        let answer: StoreCommandAnswer?
        do {
            answer = try await committer.perform(.finish(theirs, release: "home"), runID: "run-theirs")
        } catch {
            answer = nil
        }
        // Refused in the batch that carried the record (fenced by the lease), or before a later one.
        #expect(answer == nil || answer == .finished(recorded: false), "\(String(describing: answer))")
        #expect(committer.failure(of: "run-theirs") != nil, "the run's records were refused")
        await #expect(throws: StoreError.self) { try await committer.flush(runID: "run-theirs") }
        #expect(try store.records(of: "run-theirs").isEmpty)
        let row = try store.execute("SELECT status, worker_id FROM matterflow_runs", doing: "reading the run")
        #expect(row.rows.first == ["running", "someone-else"])
    }
}

/// A release of a session the hub opened late has no intent whose commit the lease fences: the fleet's catalog asks
/// the store first.
extension PostgresStoreTests {
    @Test("a late session's release reaches the hub only while this worker holds the run's lease")
    func lateReleaseIsFencedByTheLease() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try TestPostgres.insertRunning([("run-kept", "home-kept", "me"), ("run-taken", "home-taken", "other")], into: store)
        let committer = GroupCommitter(conninfo: conninfo, workerID: "me")
        defer { committer.shutdown() }
        // Both leases known held just now: only the late release's own look at the store can refuse.
        let leases = LeaseConfirmations(leaseSeconds: 3600)
        leases.confirmed(["run-kept", "run-taken"], sentAt: .now)
        let catalog = FleetSessionGuard(committer: committer, leases: leases, leaseSeconds: 3600, unconfirmed: UnconfirmedReleases())
            .wrapping(.standard)
        let release = try #require(catalog["cancelCommissioning"])
        for (runID, held) in [("run-kept", true), ("run-taken", false)] {
            var home = HomeDescription.defaultHome
            home.structure.id = "home-\(runID.dropFirst(4))"
            let hub = try SimulatedHub(home: home, clock: ManualClock())
            let session = try await HubCallContext.$current.withValue(HubCallContext(runID: runID, idempotencyKey: "\(runID)/1")) {
                try await hub.prepareCommissioning(structure: home.structure.id)
            }
            let context = HubCallContext(
                runID: runID, idempotencyKey: HubCallContext.lateReleaseKey(runID: runID, sessionID: session), expectedSessionID: session)
            #expect(context.releasesLateSession)
            let outcome: Result<JSONValue, any Error> = await HubCallContext.$current.withValue(context) {
                do {
                    return .success(try await release.call(hub: hub, structure: home.structure.id, arguments: [:]))
                } catch {
                    return .failure(error)
                }
            }
            let active = try await hub.activeSession(structure: home.structure.id)
            if held {
                #expect(try outcome.get()["released"] == true)
                #expect(active == nil, "released on the hub while the lease is this worker's")
            } else {
                #expect(throws: FlowError.self) { try outcome.get() }
                #expect(active?.sessionID == session, "not released: the run is another worker's")
            }
        }
        // An ordinary release (its intent's commit fenced it) does not ask.
        #expect(!HubCallContext(runID: "r", idempotencyKey: "r/4", expectedSessionID: "s").releasesLateSession)
    }
}

/// A worker paused between a call's intent and the call (stopped, frozen, starved of CPU) for longer than the lease
/// may wake to a run another worker took over, before its own heartbeat has said so.
extension PostgresStoreTests {
    @Test("a run whose lease the worker has not known held for half a lease confirms it before a call: no call once the run is another worker's, and a run still its own is renewed and called")
    func staleLeaseConfirmedBeforeACall() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try TestPostgres.insertRunning([("run-mine", "home-mine", "me"), ("run-gone", "home-gone", "other")], into: store)
        try store.execute("UPDATE matterflow_runs SET lease_until = now() - interval '1 minute'", doing: "test setup")
        let committer = GroupCommitter(conninfo: conninfo, workerID: "me")
        defer { committer.shutdown() }
        let paused = Mutex(Duration.zero)
        let leases = LeaseConfirmations(leaseSeconds: 30) { .now + paused.withLock { $0 } }
        leases.confirmed(["run-mine", "run-gone"], sentAt: leases.now())
        let catalog = FleetSessionGuard(committer: committer, leases: leases, leaseSeconds: 30, unconfirmed: UnconfirmedReleases())
            .wrapping(.standard)
        let rooms = try #require(catalog["fetchRooms"])
        // The process slept through a lease.
        paused.withLock { $0 = .seconds(60) }
        for runID in ["run-mine", "run-gone"] {
            #expect(leases.needsConfirming(runID))
            var home = HomeDescription.defaultHome
            home.structure.id = "home-\(runID.dropFirst(4))"
            let hub = CallCounting(simulated: try SimulatedHub(home: home, clock: ManualClock()))
            let outcome: Result<JSONValue, any Error> = await HubCallContext.$current.withValue(HubCallContext(runID: runID, idempotencyKey: "\(runID)/1")) {
                do {
                    return .success(try await rooms.call(hub: hub, structure: home.structure.id, arguments: [:]))
                } catch {
                    return .failure(error)
                }
            }
            if runID == "run-mine" {
                #expect(throws: Never.self) { try outcome.get() }
                #expect(hub.calls == ["fetchRooms"])
                #expect(!leases.needsConfirming(runID), "confirmed: the next call does not ask again")
            } else {
                #expect(throws: FlowError.self) { try outcome.get() }
                #expect(hub.calls.isEmpty, "no call of a run that is another worker's")
                #expect(committer.failure(of: runID)?.code == .leaseLost, "fenced: nothing more of it is written here")
            }
        }
        let rows = try store.execute(
            "SELECT run_id, worker_id, lease_until > now() + interval '20 seconds' FROM matterflow_runs ORDER BY run_id", doing: "reading the runs")
        #expect(rows.rows == [["run-gone", "other", "f"], ["run-mine", "me", "t"]], "the lease still its own is renewed; the other left alone")
    }
}

/// A simulated hub that notes which calls reach it.
final class CallCounting: SimulatedFront {
    let simulated: SimulatedHub
    private let made = Mutex<[String]>([])

    init(simulated: SimulatedHub) { self.simulated = simulated }

    /// The calls that reached the hub, in order.
    var calls: [String] { made.withLock { $0 } }

    func fetchRooms(structure: StructureID) async throws -> [Room] {
        made.withLock { $0.append("fetchRooms") }
        return try await simulated.fetchRooms(structure: structure)
    }

    func configureDevice(structure: StructureID, name: String, roomName: String?) async throws {
        made.withLock { $0.append("configureDevice") }
        try await simulated.configureDevice(structure: structure, name: name, roomName: roomName)
    }
}

extension StoreCommandAnswer {
    /// The answer as the tests compare it: `acquired`, `released`, `busy run-0` (the holding run; its status, worker
    /// and time are looked at apart).
    var brief: String {
        switch self {
        case .acquired: "acquired"
        case .busy(let holder): "busy \(holder?.runID ?? "?")"
        case .released: "released"
        case .finished(let recorded): "finished \(recorded)"
        case .leaseHeld(let held): "leaseHeld \(held)"
        }
    }
}

extension PostgresStoreTests {
    @Test("a worker held up inside its committer's transaction (stopped, its VM frozen) lets go of its runs' rows within its limit, so that takeovers, which skip locked rows, can take them")
    func heldUpInsideATransaction() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try TestPostgres.insertRunning([("run-held", "home-h", "me")], into: store)
        let pauses = Mutex((entered: 0, over: false))
        let committer = GroupCommitter(
            conninfo: conninfo, applicationName: nil, workerID: "me", gatherMicroseconds: GroupCommitter.gatherLimit,
            connectivity: StoreConnectivity(), idleInTransactionLimit: .milliseconds(300),
            beforeCommit: {
                // The first transaction's worker is held up for 3 s, its status update done and not committed.
                guard pauses.withLock({ state in defer { state.entered += 1 }; return state.entered == 0 }) else { return }
                usleep(3_000_000)
                pauses.withLock { $0.over = true }
            })
        defer { committer.shutdown() }
        let conclusion = RunConclusion(runID: "run-held", status: "succeeded", output: nil, error: nil, recovered: false, notes: [], claims: 0)
        let finishing = Task { try await committer.perform(.finish(conclusion, release: nil), runID: "run-held") }
        let other = try PostgresConnection(conninfo)
        defer { other.close() }
        // While the worker is held up, another worker's claim (FOR UPDATE SKIP LOCKED) finds the row free again.
        let entering = ContinuousClock.now + .seconds(30)
        while pauses.withLock({ $0.entered }) == 0 {
            try #require(ContinuousClock.now < entering, "the committer never wrote the batch")
            try await Task.sleep(for: .milliseconds(5))
        }
        let deadline = ContinuousClock.now + .milliseconds(2500)
        var freed = false
        while ContinuousClock.now < deadline, !freed {
            try other.execute("BEGIN")
            let locked = try other.execute("SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid) WHERE a.state = 'idle in transaction' AND a.datname = current_database() AND a.pid <> pg_backend_pid()")
            let seen = try other.execute("SELECT run_id FROM matterflow_runs WHERE run_id = 'run-held' FOR UPDATE SKIP LOCKED").rows
            try other.execute("ROLLBACK")
            freed = seen == [["run-held"]] && locked.rows == [["0"]]
            if !freed { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(freed, "the held-up transaction kept the run's row locked")
        #expect(pauses.withLock { $0.entered == 1 && !$0.over }, "still held up when the row was free")
        // Once the worker goes on, the batch is written again on a new connection.
        #expect(try await finishing.value == .finished(recorded: true))
        #expect(try store.run("run-held")?.status == "succeeded")
    }
}

extension PostgresStoreTests {
    @Test("a heartbeat waiting for a row the worker's batch holds holds no other run's row meanwhile, so the batch's own updates go on: no deadlock between them; a run taken over meanwhile is not renewed")
    func heartbeatHoldsNoRowWhileItWaits() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        // Run a sorts first, so a heartbeat going through the runs in order meets it before b and c.
        try TestPostgres.insertRunning(
            [("run-a", "home-a", "me"), ("run-b", "home-b", "me"), ("run-c", "home-c", "me"), ("run-d", "home-d", "other")], into: store)
        try store.execute("UPDATE matterflow_runs SET lease_until = now()", doing: "test setup")
        let batch = try PostgresConnection(conninfo)
        defer { batch.close() }
        // The worker's batch writes records of runs b and c: it holds their rows (the fence) until it commits.
        try batch.execute("BEGIN")
        try batch.execute("SELECT run_id FROM matterflow_runs WHERE run_id IN ('run-b', 'run-c') FOR SHARE")
        let heartbeat = Task.detached { try store.heartbeat("me", running: ["run-a", "run-b", "run-c", "run-d"], leaseSeconds: 600) }
        let watcher = try PostgresConnection(conninfo)
        defer { watcher.close() }
        #expect(await TestPostgres.anotherStatementWaitsForALock(seenFrom: watcher), "the heartbeat never waited for a row the batch holds")
        // The batch then updates run a (its final status, or its lease confirmed): a's row is free, where a heartbeat
        // holding it while waiting for b would make the server end one of the two as a deadlock.
        let free = try batch.execute("SELECT run_id FROM matterflow_runs WHERE run_id = 'run-a' FOR UPDATE NOWAIT")
        #expect(free.rows == [["run-a"]])
        try batch.execute("UPDATE matterflow_runs SET lease_until = now() + interval '1 hour' WHERE run_id = 'run-a'")
        // Meanwhile run b passes to another worker (as a takeover would), before the heartbeat, waiting for it, goes on.
        try batch.execute("UPDATE matterflow_runs SET worker_id = 'other' WHERE run_id = 'run-b'")
        try batch.execute("COMMIT")
        // The worker's runs are renewed, c once its row was free; b, taken over meanwhile, and another worker's d are not.
        #expect(try await heartbeat.value == ["run-a", "run-c"])
        let leases = try store.execute(
            "SELECT run_id FROM matterflow_runs WHERE lease_until > now() + interval '5 minutes' ORDER BY run_id", doing: "test")
        #expect(leases.rows == [["run-a"], ["run-c"]])
    }
}
