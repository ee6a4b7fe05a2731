import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
@testable import MatterFlowStore
import Synchronization
import Testing

/// Leases that run out under a worker still running the run, and runs handed back while a call is in flight.
extension PostgresStoreTests {
    /// A commission-device-interactive run submitted to a new database and started by worker w1 (virtual time),
    /// once it waits for its room, after commissioning.
    static func runWaitingForItsRoom(
        _ runID: String, leaseSeconds: Double, in directory: TemporaryDirectory
    ) async throws -> (conninfo: String, store: PostgresRunStore, worker: TestWorker) {
        let conninfo = try TestPostgres.database()
        let secrets = try secretsDirectory(in: directory)
        let submitted = await matterflow(
            ["submit", Repository.workflow("commission-device-interactive"), "--store", conninfo, "--secrets", secrets, "--run-id", runID,
             "--input", "onboardingPayload=\(Payloads.specQR)"])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo)
        let worker = TestWorker(
            store: store, options: WorkerOptions(workerID: "w1", leaseSeconds: leaseSeconds, secrets: SecretInbox(directory: secrets)),
            virtualTime: true)
        #expect(try await FleetAnswerTests.waitForRecord("questionAsked", of: runID, conninfo: conninfo))
        return (conninfo, store, worker)
    }

    @Test("a worker whose run's lease ran out while it still ran (the store out of reach) claims it again and goes on: the run is not settled as a dead worker's")
    func ownRunClaimedAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-00000e5e0001"
        // A lease of an hour: no heartbeat renews it during the test.
        let (conninfo, store, worker) = try await Self.runWaitingForItsRoom(runID, leaseSeconds: 3600, in: directory)

        try store.execute("UPDATE matterflow_runs SET lease_until = now() - interval '1 second' WHERE run_id = $1", [runID], doing: "test")
        try store.execute("SELECT pg_notify('matterflow_queue', 'test')", doing: "test")
        #expect(await worker.waitForLine(containing: "claimed its own run(s) \(runID) again"), "\(worker.lines)")

        let answered = await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Kitchen", "--answer", "name=Lamp"])
        #expect(answered.code == 0, "\(answered.stderr)")
        let summary = try await worker.finish(after: [runID], conninfo: conninfo)
        #expect(summary.finished == ["succeeded": 1], "\(worker.lines)")
        #expect(summary.takenOver == 0)
        let types = try store.records(of: runID).map(\.type)
        #expect(types.filter { $0 == "runFinished" }.count == 1)
        #expect(!types.contains("recoveryStarted"), "\(types)")
    }

    @Test("a run claimed elsewhere while this worker's lease had run out is not taken for its own when claimed back: its old task is fenced, and the run is settled afresh once that task ended")
    func runClaimedElsewhereMeanwhile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-00000e5e0008"
        let (conninfo, store, worker) = try await Self.runWaitingForItsRoom(runID, leaseSeconds: 2, in: directory)

        // Another worker claimed it meanwhile, then handed it back for takeover.
        try store.execute(
            "UPDATE matterflow_runs SET claims = claims + 1, worker_id = NULL, lease_until = now() - interval '1 second' WHERE run_id = $1",
            [runID], doing: "test")
        try store.execute("SELECT pg_notify('matterflow_queue', 'test')", doing: "test")
        #expect(await worker.waitForLine(containing: "run(s) \(runID) were claimed elsewhere"), "\(worker.lines)")
        let answered = await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Kitchen", "--answer", "name=Lamp"])
        #expect(answered.code == 0, "\(answered.stderr)")
        let summary = try await worker.finish(after: [runID], conninfo: conninfo)
        #expect(summary.takenOver == 1, "\(worker.lines)")
        #expect(!worker.lines.contains { $0.contains("claimed its own run(s) \(runID) again") }, "\(worker.lines)")
        #expect(try store.run(runID)?.recovered == true)
    }

    @Test("a run whose lease another worker took is fenced at the next heartbeat: no call, record or session release of it from this worker")
    func leaseLostToAnotherWorker() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-00000e5e0002"
        let (conninfo, store, worker) = try await Self.runWaitingForItsRoom(runID, leaseSeconds: 1, in: directory)
        let recorded = try store.records(of: runID).count

        // Another worker took it over (its lease ran out unseen).
        try store.execute("UPDATE matterflow_runs SET worker_id = 'w2', lease_until = now() + interval '1 hour' WHERE run_id = $1", [runID], doing: "test")
        #expect(await worker.waitForLine(containing: "lost the lease of run(s) \(runID) to another worker"), "\(worker.lines)")
        // The answer is taken (the run is open); the worker that lost the lease must not act on it.
        let answered = await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Kitchen", "--answer", "name=Lamp"])
        #expect(answered.code == 0, "\(answered.stderr)")
        #expect(await worker.waitForLine(containing: "run \(runID) was taken over by another worker"), "\(worker.lines)")
        worker.worker.stop()
        let summary = try await worker.summary
        #expect(summary.finished.isEmpty, "\(worker.lines)")
        #expect(try store.records(of: runID).count == recorded)
        #expect(try store.sessions().map(\.runID) == [runID])
        let row = try store.execute("SELECT status, worker_id FROM matterflow_runs WHERE run_id = $1", [runID], doing: "test")
        #expect(row.rows == [["running", "w2"]])
    }

    @Test("a worker paused between a call's intent and the call, while another worker took the run over, makes no call when it wakes: it confirms a lease it has not known held for half a lease, and leaves the run to its holder")
    func pausedWorkerMakesNoCallAfterATakeover() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-00000e5e000a"
        let secrets = try Self.secretsDirectory(in: directory)
        let submitted = await matterflow(
            ["submit", Repository.workflow("commission-device-interactive"), "--store", conninfo, "--secrets", secrets, "--run-id", runID,
             "--input", "onboardingPayload=\(Payloads.specQR)"])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo)
        let paused = Mutex(Duration.zero)
        // A lease of an hour: no heartbeat looks at the run during the test, as none does while the process sleeps.
        var options = WorkerOptions(workerID: "w1", leaseSeconds: 3600, secrets: SecretInbox(directory: secrets))
        options.monotonicClock = { .now + paused.withLock { $0 } }
        let clock = VirtualClock()
        let hub = CallCounting(simulated: try SimulatedHub(home: HomeDescription.defaultHome, clock: clock))
        let worker = TestWorker(store: store, options: options, hubs: { _ in hub }, clock: clock)
        #expect(try await FleetAnswerTests.waitForRecord("questionAsked", of: runID, conninfo: conninfo))

        // The commit of configureDevice's intent hands the run to w2, as a takeover committed while w1 slept after
        // that commit would; and w1's clock has moved on by the hour it slept.
        try store.execute(
            """
            CREATE FUNCTION test_take_over() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                UPDATE matterflow_runs SET worker_id = 'w2', claims = claims + 1, lease_until = now() + interval '1 hour'
                WHERE run_id = NEW.run_id;
                RETURN NULL;
            END $$;
            CREATE TRIGGER test_take_over AFTER INSERT ON matterflow_record_batches FOR EACH ROW
            WHEN (NEW.records LIKE '%configureDevice%') EXECUTE FUNCTION test_take_over();
            """, doing: "test")
        paused.withLock { $0 = .seconds(3600) }
        let answered = await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Kitchen", "--answer", "name=Lamp"])
        #expect(answered.code == 0, "\(answered.stderr)")
        #expect(await worker.waitForLine(containing: "run \(runID) was taken over by another worker"), "\(worker.lines)")
        worker.worker.stop()
        let summary = try await worker.summary
        #expect(hub.calls == ["fetchRooms"], "configureDevice never reached the hub: \(hub.calls)")
        #expect(summary.leaseConfirmations >= 1, "the call after the pause asked the store first: \(summary)")
        #expect(summary.finished.isEmpty, "\(worker.lines)")
        let row = try store.execute("SELECT status, worker_id FROM matterflow_runs WHERE run_id = $1", [runID], doing: "test")
        #expect(row.rows == [["running", "w2"]])
        #expect(try store.sessions().map(\.runID) == [runID], "the session is w2's to settle")
    }

    /// A commission-device run submitted as `runID`, left by its stopping worker (`w1`, whose lease is
    /// `leaseSeconds`) in commissionDevice, which on the manual clock (a second on the built-in home) never ends: the
    /// worker hands it back for takeover a lease later. The store, and the secrets directory a rescuer needs.
    private func runStoppedInCommission(
        _ runID: String, leaseSeconds: Double, conninfo: String, directory: TemporaryDirectory, remoteHub: RemoteHubIdentity? = nil
    ) async throws -> (store: PostgresRunStore, secrets: String) {
        let secrets = try Self.secretsDirectory(in: directory)
        let submitted = await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--run-id", runID] + commissionInputs())
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo)
        var options = WorkerOptions(workerID: "w1", leaseSeconds: leaseSeconds, secrets: SecretInbox(directory: secrets), drainSeconds: 0.2)
        options.remoteHub = remoteHub
        let worker = TestWorker(store: store, options: options)
        // commissionDevice is the run's third call.
        #expect(try await FleetAnswerTests.waitForRecord("intent", of: runID, conninfo: conninfo, count: 3))
        worker.worker.stop()
        #expect(try await worker.summary.handedBack == 1, "\(worker.lines)")
        return (store, secrets)
    }

    @Test("a stopping worker hands a run with a call in flight back a lease later, not at once: the call is not taken for abandoned")
    func inFlightRunHandedBackALeaseLater() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-00000e5e0003"
        let (store, _) = try await runStoppedInCommission(runID, leaseSeconds: 30, conninfo: conninfo, directory: directory)
        let row = try store.execute(
            "SELECT status, worker_id IS NULL, lease_until > now() + interval '20 seconds' FROM matterflow_runs WHERE run_id = $1",
            [runID], doing: "test")
        #expect(row.rows == [["running", "t", "t"]])
        #expect(try store.claim(by: "w2", limit: 1, leaseSeconds: 30).isEmpty)
    }

    @Test("a run started on a --hub is not settled by a worker on the simulated home, which hands it back with the reason; a worker on a hub of that name settles it")
    func takeoverOnlyOnTheRunsHub() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-00000e5e0009"
        let (store, secrets) = try await runStoppedInCommission(
            runID, leaseSeconds: 1, conninfo: conninfo, directory: directory,
            remoteHub: RemoteHubIdentity(endpoint: "unix:/run/bridge.sock", name: "bridge"))
        let started = try #require(try store.records(of: runID).first)
        #expect(started.payload["hubEndpoint"] == "unix:/run/bridge.sock")

        let simulated = TestWorker(store: store, options: WorkerOptions(workerID: "w2", leaseSeconds: 1, secrets: SecretInbox(directory: secrets)))
        let deferred = await simulated.waitForLine(containing: "run \(runID) is handed back")
        simulated.worker.stop()
        _ = try await simulated.summary
        #expect(deferred, "\(simulated.lines)")
        #expect(
            simulated.lines.contains {
                $0.contains("the run acted on hub bridge at unix:/run/bridge.sock, and this recovery acts on the simulated home")
                    && $0.contains("is handed back, to be claimed again in")
            }, "handed on as a run with no hub here, not given up after some claims: \(simulated.lines)")
        #expect(try store.status(of: runID) == "running")
        #expect(try !store.records(of: runID).contains { $0.type == "recoveryDeferred" }, "no record for each worker on another hub")
        #expect(try store.sessions().map(\.runID) == [runID], "the run keeps its structure's session row")

        var options = WorkerOptions(workerID: "w3", leaseSeconds: 1, secrets: SecretInbox(directory: secrets))
        options.remoteHub = RemoteHubIdentity(endpoint: "tcp:10.0.0.7:5580", name: "bridge")
        let sameHub = TestWorker(store: store, options: options, virtualTime: true)
        let summary = try await sameHub.finish(after: [runID], conninfo: conninfo)
        #expect(summary.takenOver == 1, "\(sameHub.lines)")
        #expect(try store.status(of: runID) == "cancelled", "\(sameHub.lines)")
        #expect(try store.run(runID)?.notes.contains { $0.contains("taken for the same hub") } == true, "\(sameHub.lines)")
    }

    @Test(
        "a takeover whose recovery cannot read the hub hands the run back to be settled again; at its eighth claim it is needsAttention",
        arguments: [false, true])
    func deferredRecoveryIsTriedAgain(atLastClaim: Bool) async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-00000e5e0004"
        let (store, secrets) = try await runStoppedInCommission(runID, leaseSeconds: 1, conninfo: conninfo, directory: directory)
        // Before the eighth claim, the sixth: handed back for 4 s (0.25 s doubled at each claim after the second), long
        // enough for the lease to be read as pending however slowly this machine stops the rescuer.
        try store.execute("UPDATE matterflow_runs SET claims = $2 WHERE run_id = $1", [runID, atLastClaim ? "7" : "5"], doing: "test setup")
        // The rescuer's hub does not know the run's structure: recovery cannot read what the call did.
        var home = HomeDescription.defaultHome
        home.structure.id = "elsewhere"
        let elsewhere = home
        let rescuer = TestWorker(
            store: store, options: WorkerOptions(workerID: "w2", leaseSeconds: 1, secrets: SecretInbox(directory: secrets)),
            hubs: { _ in try SimulatedHub(home: elsewhere, clock: ManualClock()) })
        if atLastClaim {
            let settled = await poll(timeout: .seconds(60), every: .milliseconds(20)) { (try? store.status(of: runID)) == "needsAttention" }
            rescuer.worker.stop()
            _ = try await rescuer.summary
            #expect(settled, "\(rescuer.lines)")
            #expect(try store.sessions().isEmpty)
            // Once its hub answers, `matterflow cancel` settles it again: a worker takes it over, reads the hub (the
            // call was never made there) and takes its cancel path.
            let again = await matterflow(["cancel", runID, "--store", conninfo])
            #expect(again.code == 0 && again.stdout == "cancelling\n", "\(again.stderr)")
            #expect(again.stderr.contains("note: run \(runID) needed attention"), "\(again.stderr)")
            #expect(try store.status(of: runID) == "running")
            // While its hub still cannot answer, it is tried again as the first time, its claims counted from the
            // cancel: handed back after the shortest delay, not needsAttention again at once.
            let stillBlind = TestWorker(
                store: store, options: WorkerOptions(workerID: "w2b", leaseSeconds: 1, secrets: SecretInbox(directory: secrets)),
                hubs: { _ in try SimulatedHub(home: elsewhere, clock: ManualClock()) })
            let retried = await poll(timeout: .seconds(60), every: .milliseconds(20)) {
                stillBlind.lines.contains { $0.contains("could not settle run \(runID)") }
            }
            stillBlind.worker.stop()
            _ = try await stillBlind.summary
            #expect(retried, "\(stillBlind.lines)")
            #expect(
                stillBlind.lines.contains { $0.hasSuffix("it is handed back, to be settled again in \(HandBackBackoff.firstDelay) s") },
                "\(stillBlind.lines)")
            #expect(try store.status(of: runID) == "running")
            let settler = TestWorker(store: store, options: WorkerOptions(workerID: "w3", leaseSeconds: 1, secrets: SecretInbox(directory: secrets)))
            let ended = await poll(timeout: .seconds(60), every: .milliseconds(20)) { (try? store.status(of: runID)) == "cancelled" }
            settler.worker.stop()
            _ = try await settler.summary
            #expect(ended, "\(settler.lines)")
            #expect(settler.lines.contains("worker w3: taking the cancel path of run \(runID) (cancel asked for)"), "\(settler.lines)")
            let notes = try store.run(runID)?.notes ?? []
            #expect(notes.contains("cancel path taken: cancel asked for"), "\(notes)")
            // Ended so, it is refused as any ended run.
            #expect(await matterflow(["cancel", runID, "--store", conninfo]).stdout == "cancelled\n")
            return
        }
        // Stopped, and the run's row read, from a thread of its own the moment the rescuer hands the run back: the
        // lease it leaves ends 4 s later, and the test's own task may resume only after that on a loaded machine.
        let readAtHandBack = Mutex<[[String?]]>([])
        let handedBack = await act(within: .seconds(60), every: .milliseconds(5)) {
            rescuer.lines.contains { $0.contains("could not settle run \(runID)") }
        } _: {
            rescuer.worker.stop()
            let row = try? store.execute(
                "SELECT status, worker_id IS NULL, lease_until > now(), claims FROM matterflow_runs WHERE run_id = $1", [runID], doing: "test")
            readAtHandBack.withLock { $0 = row?.rows ?? [] }
        }
        #expect(handedBack != nil, "\(rescuer.lines)")
        #expect(rescuer.lines.contains { $0.hasSuffix("it is handed back, to be settled again in 4.0 s") }, "\(rescuer.lines)")
        _ = try await rescuer.summary
        #expect(readAtHandBack.withLock { $0 } == [["running", "t", "t", "6"]], "handed back for another takeover: \(rescuer.lines)")
        let row = try store.execute(
            "SELECT status, worker_id IS NULL, claims FROM matterflow_runs WHERE run_id = $1", [runID], doing: "test")
        #expect(row.rows == [["running", "t", "6"]], "not claimed again before the rescuer stopped")
        #expect(try store.sessions().map(\.runID) == [runID], "the run keeps its structure's session row")
    }
}

/// Runs a worker cannot go on with: no hub for their structure, records it cannot read.
extension PostgresStoreTests {
    struct NoHub: Error, CustomStringConvertible {
        var description: String { "the hub refused the connection" }
    }

    @Test("a worker whose claim's answer was lost runs the runs that claim leased at its next claim, long before their lease runs out")
    func claimAnswerLost() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let runID = "run-00000e5e0009"
        #expect(await matterflow(["submit", Repository.workflow("rooms"), "--store", conninfo, "--run-id", runID]).code == 0)
        // A lease of an hour: without the lost claim's token, the run would wait that long for a takeover.
        var options = WorkerOptions(workerID: "w1", leaseSeconds: 3600, pollMilliseconds: 100)
        options.dropsClaimReply = { $0 == 1 }
        let worker = TestWorker(store: store, options: options, virtualTime: true)
        let summary = try await worker.finish(after: [runID], conninfo: conninfo)
        #expect(summary.finished == ["succeeded": 1], "\(worker.lines)")
        // Returned by the next claim as the lost one took it, from the queue: not a takeover after its lease.
        #expect(summary.takenOver == 0, "\(worker.lines)")
        #expect(worker.lines.contains { $0.contains("claiming failed: the answer to claim 1 was lost") }, "\(worker.lines)")
        #expect(try store.run(runID)?.status == "succeeded")
        #expect(try store.records(of: runID).filter { $0.type == "runStarted" }.count == 1)
    }

    @Test("a run without a hub is handed back with a growing delay; at its eighth failure to find one, not begun, it fails without a call instead of going round the fleet for ever; claims for other reasons do not count")
    func runWithoutAHub() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let early = "run-00000e5e0004"
        let late = "run-00000e5e0005"
        let handedAround = "run-00000e5e0006"
        for runID in [early, late, handedAround] {
            #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", runID, "--structure", runID]).code == 0)
        }
        // The late run found no hub seven times before; the other was claimed and handed back nine times (workers
        // stopping before it began), with a hub each time.
        try store.execute("UPDATE matterflow_runs SET claims = 7, hub_failures = 7 WHERE run_id = $1", [late], doing: "test")
        try store.execute("UPDATE matterflow_runs SET claims = 9 WHERE run_id = $1", [handedAround], doing: "test")
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1"), hubs: { _ in throw NoHub() })
        // The three runs are claimed together; their lines come in any order.
        let expected = [
            "run \(late) fails without a call", "run \(early) is handed back, to be claimed again in 0.25 s",
            "run \(handedAround) is handed back, to be claimed again in 0.25 s",
        ]
        // Stopped from a thread of its own the moment the lines are there: the runs' back-off goes on in real time,
        // and an eighth failure of the other two would fail them too.
        let seen = await act(within: .seconds(60), every: .milliseconds(5)) {
            let lines = worker.lines
            return expected.allSatisfy { text in lines.contains { $0.contains(text) } }
        } _: {
            worker.worker.stop()
        }
        #expect(seen != nil, "\(worker.lines)")
        worker.worker.stop()
        _ = try await worker.summary
        let failed = try #require(try store.run(late))
        #expect(failed.status == "failed")
        #expect(failed.error?["code"] == "unavailable")
        #expect(failed.error?["cause"] == "hubUnreachable")
        #expect(failed.error?["message"]?.stringValue?.contains("no hub for structure \(late) (the hub refused the connection), 8 times") == true)
        #expect(try store.records(of: late).isEmpty)
        // Both go on waiting for a hub, each failure counted (the worker may have claimed them again before it stopped).
        let waiting = try store.execute(
            "SELECT run_id, status, worker_id IS NULL, hub_failures BETWEEN 1 AND 7 FROM matterflow_runs WHERE run_id <> $1 ORDER BY run_id",
            [late], doing: "test")
        #expect(waiting.rows == [[early, "running", "t", "t"], [handedAround, "running", "t", "t"]])
        // runs says why they wait; the one that failed says why it failed.
        let listed = await matterflow(["runs", "--store", conninfo])
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        for runID in [early, handedAround] {
            let line = try #require(lines.first { $0.hasPrefix(runID) }, "\(listed.stdout)")
            #expect(line.contains("could not be started ") && line.contains("no hub for its structure, or its secrets not in"), "\(line)")
        }
        #expect(lines.first { $0.hasPrefix(late) }?.contains("could not be started") == false, "an ended run says why it ended instead")
        // A cancel asked for comes first, where a narrow column still shows it.
        try store.execute("UPDATE matterflow_runs SET cancel_requested_at = now() WHERE run_id = $1", [early], doing: "test")
        let asked = await matterflow(["runs", "--store", conninfo]).stdout.split(separator: "\n").first { $0.hasPrefix(early) }
        #expect(asked?.contains("cancel asked for; could not be started ") == true, "\(asked ?? "")")
        #expect(try store.run(early)?.startFailures ?? 0 >= 1)
        // The worker's line of the run's end says why, on one line.
        #expect(
            worker.lines.contains {
                $0.hasPrefix("warning: worker w1: run \(late) failed: hubUnreachable: no hub for structure \(late) (the hub refused the connection), 8 times")
            }, "\(worker.lines)")
    }

    @Test("a queued run whose workflow files changed since submit is refused, not run on what submit never validated")
    func aChangedWorkflowIsNotRun() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let original = try String(contentsOfFile: Repository.workflow("rooms"), encoding: .utf8)
        let workflow = try directory.write(original, to: "rooms.json")
        for run in ["run-00000c4a0001", "run-00000c4a0002"] {
            #expect(await matterflow(["submit", workflow, "--store", conninfo, "--run-id", run, "--structure", run]).code == 0)
        }
        // Edited after the first submit: the second is submitted again below, on the new text.
        try directory.write(original.replacingOccurrences(of: "Fetch the structure's rooms", with: "Fetch the rooms"), to: "rooms.json")
        try store.execute("DELETE FROM matterflow_runs WHERE run_id = 'run-00000c4a0002'", doing: "test setup")
        #expect(await matterflow(["submit", workflow, "--store", conninfo, "--run-id", "run-00000c4a0002", "--structure", "run-00000c4a0002"]).code == 0)
        let worker = TestWorker(
            store: store, options: WorkerOptions(workerID: "w1"), virtualTime: true,
            hubs: { structure in
                var home = HomeDescription.defaultHome
                home.structure.id = structure
                return try SimulatedHub(home: home, clock: SystemClock())
            })
        let summary = try await worker.summary
        #expect(summary.finished == ["failed": 1, "succeeded": 1], "\(worker.lines)")
        let changed = try #require(try store.run("run-00000c4a0001"))
        #expect(changed.error?["cause"] == "workflowChanged")
        #expect(changed.error?["message"]?.stringValue?.contains("changed since run run-00000c4a0001 was submitted; submit the run again") == true)
        #expect(try store.records(of: "run-00000c4a0001").isEmpty, "nothing ran")
        #expect(try store.run("run-00000c4a0002")?.status == "succeeded", "submitted on the files as they are")
    }

    @Test("a queued run whose inputs or answers in the store cannot be read needs attention instead of running on defaults")
    func damagedRowsAreNotRun() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        for (run, inputs, answers) in [("run-00000da0a001", #"{"deviceName": 1e400}"#, "{}"), ("run-00000da0a002", "{}", "[1]")] {
            try store.execute(
                """
                INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, answers, status)
                VALUES ($1, 'rooms', $2, $1, $3::jsonb, $4::jsonb, 'queued')
                """, [run, Repository.workflow("rooms"), inputs, answers], doing: "test setup")
        }
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1"), virtualTime: true)
        let summary = try await worker.summary
        #expect(summary.finished == ["needsAttention": 2], "\(worker.lines)")
        let inputs = try #require(try store.run("run-00000da0a001"))
        #expect(inputs.error?["message"]?.stringValue?.contains("its inputs in matterflow_runs is not a JSON object MatterFlow can read") == true, "\(String(describing: inputs.error))")
        let answers = try #require(try store.run("run-00000da0a002"))
        #expect(answers.error?["message"]?.stringValue?.contains("its answers in matterflow_runs") == true, "\(String(describing: answers.error))")
        #expect(try store.records(of: "run-00000da0a001").isEmpty, "nothing ran")
    }

    @Test("a worker's --state that is a file stops it at start, before it claims a run; a missing directory is made")
    func stateDirectoryCheckedAtStart() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("not a directory", to: "state")
        #expect(await matterflow(["submit", Repository.workflow("rooms"), "--store", conninfo, "--run-id", "run-00000e5e5a7e"]).code == 0)
        let refused = await matterflow(["worker", "--store", conninfo, "--state", file, "--exit-when-idle"])
        #expect(refused.code == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("--state \(file): is not a directory"), "\(refused.stderr)")
        #expect(try PostgresRunStore(conninfo: conninfo).run("run-00000e5e5a7e")?.status == "queued", "no run was claimed")
        let made = directory.file("homes/shared")
        let worker = await matterflow(["worker", "--store", conninfo, "--state", made, "--exit-when-idle"])
        #expect(worker.code == 0, "\(worker.stderr)")
        let homes = try FileManager.default.contentsOfDirectory(atPath: made)
        #expect(homes.count == 1, "the run's structure's home is kept there: \(homes)")
    }

    @Test("a run whose secrets are not in a worker's --secrets directory goes back for a worker that has them, and fails only at its eighth such claim", .timeLimit(.minutes(2)))
    func runWhoseSecretsAreElsewhere() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (submitting, elsewhere) = try FleetAnswerTests.secretsDirectories(in: directory)
        let (runID, late) = ("run-00000e5ec001", "run-00000e5ec002")
        // On structures of their own (the late one fails before it reaches a hub): a run handed back keeps its
        // structure's turn.
        for (id, structure) in [(runID, "maple-street"), (late, "elsewhere")] {
            let submitted = await matterflow([
                "submit", Repository.workflow("commission-device"), "--store", conninfo, "--run-id", id, "--structure", structure,
                "--secrets", submitting, "--input", "onboardingPayload=MT:Y.K9042C00KA0648G00", "--input", "deviceName=Lamp",
            ])
            #expect(submitted.code == 0, "\(submitted.stderr)")
        }
        try store.execute("UPDATE matterflow_runs SET claims = 7, hub_failures = 7 WHERE run_id = $1", [late], doing: "test")
        let misplaced = TestWorker(store: store, options: WorkerOptions(workerID: "w1", secrets: SecretInbox(directory: elsewhere)))
        let seen = await act(within: .seconds(60), every: .milliseconds(5)) {
            let lines = misplaced.lines
            return lines.contains { $0.contains("run \(runID) is handed back, to be claimed again in 0.25 s") }
                && lines.contains { $0.contains("run \(late) fails without a call") }
        } _: {
            misplaced.worker.stop()
        }
        #expect(seen != nil, "\(misplaced.lines)")
        _ = try await misplaced.summary
        #expect(misplaced.lines.contains { $0.contains("its secrets are unavailable here") }, "\(misplaced.lines)")
        // Said once per attempt, with the run: no second line without it.
        #expect(misplaced.entries.filter { $0.message.contains("secret") && $0.runIDs.isEmpty }.isEmpty, "\(misplaced.lines)")
        let failed = try #require(try store.run(late))
        #expect(failed.status == "failed")
        #expect(failed.error?["cause"] == "secretsUnavailable")
        #expect(failed.error?["message"]?.stringValue?.contains("8 times; the run made no call") == true, "\(String(describing: failed.error))")
        // A worker with the submitter's directory runs the other.
        let holding = TestWorker(store: store, options: WorkerOptions(workerID: "w2", secrets: SecretInbox(directory: submitting)), virtualTime: true)
        let summary = try await holding.finish(after: [runID], conninfo: conninfo)
        #expect(summary.finished == ["succeeded": 1], "\(holding.lines)")
    }

    @Test(
        "a run whose records cannot be read (rows MatterFlow did not write) needs attention at once, keeping its session, instead of being claimed again for ever",
        .timeLimit(.minutes(2)))
    func unreadableRecords() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let runID = "run-00000e5e0006"
        try store.execute(
            """
            INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, worker_id, lease_until, claims)
            VALUES ($1, 'prepare', $2, 'home-u', '{}', 'running', 'dead', now() - interval '1 second', 1)
            """, [runID, Repository.workflow("prepare")], doing: "test setup")
        try store.execute(
            "INSERT INTO matterflow_record_batches (run_id, first_seq, last_seq, records) VALUES ($1, 1, 1, 'not json')", [runID], doing: "test setup")
        try store.execute("INSERT INTO matterflow_sessions (structure_id, run_id) VALUES ('home-u', $1)", [runID], doing: "test setup")
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1"))
        let summary = try await worker.summary
        #expect(summary.finished == ["needsAttention": 1], "\(worker.lines)")
        let run = try #require(try store.run(runID))
        #expect(run.status == "needsAttention")
        #expect(run.notes.first?.hasPrefix("its records cannot be read") == true, "\(run.notes)")
        #expect(try store.sessions().map(\.runID) == [runID])
    }
}

/// `watch` across a restart of the server.
extension PostgresStoreTests {
    @Test("watch listens again after the server restarts: the run is watched again, and its end is printed")
    func watchAcrossARestart() async throws {
        let conninfo = try TestPostgres.database()
        let runID = "run-00000e5e0007"
        #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", runID]).code == 0)
        let watchers = "SELECT count(*) FROM matterflow_watchers WHERE run_id = '\(runID)' AND backend_pid IN (SELECT pid FROM pg_stat_activity)"
        let watch = Task { await matterflow(["watch", runID, "--store", conninfo, "--timeout", "120"]) }
        #expect(try await Self.eventually { try PostgresRunStore(conninfo: conninfo).execute(watchers, doing: "test").rows == [["1"]] })
        try TestPostgres.restart()
        #expect(try await Self.eventually { try PostgresRunStore(conninfo: conninfo).execute(watchers, doing: "test").rows == [["1"]] })
        #expect(await matterflow(["cancel", runID, "--store", conninfo]).stdout == "cancelled\n")
        let watched = await watch.value
        #expect(watched.code == 1, "\(watched.stderr)")
        #expect(watched.stdout.hasSuffix("status: cancelled\nerror: runCancelled: cancelled before it began (matterflow cancel); it made no call\n"), "\(watched.stdout)")
    }

    /// A `prepare` run submitted as `runID`, and a `watch` process on it (`--timeout 300`) once the store has the run
    /// as watched.
    static func watchedRun(_ runID: String, conninfo: String) async throws -> ChildProcess {
        #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", runID]).code == 0)
        let watch = try ChildProcess.launch(["watch", runID, "--store", conninfo, "--timeout", "300"])
        #expect(try await eventually { try isWatched(runID, conninfo: conninfo) }, "\(watch.stderr.text)")
        return watch
    }

    /// Whether a live connection watches the run.
    static func isWatched(_ runID: String, conninfo: String) throws -> Bool {
        let watchers = "SELECT count(*) FROM matterflow_watchers WHERE run_id = $1 AND backend_pid IN (SELECT pid FROM pg_stat_activity)"
        return try PostgresRunStore(conninfo: conninfo).execute(watchers, [runID], doing: "test").rows == [["1"]]
    }

    @Test("watch waits for a store that stays away longer than its reads retry: it says so once, and goes on where it was when the store is back")
    func watchWaitsOutAnOutage() async throws {
        let server = try TestPostgres.PrivateServer()
        defer { server.remove() }
        let conninfo = server.conninfo
        let runID = "run-00000e5e0009"
        let watch = try await Self.watchedRun(runID, conninfo: conninfo)
        defer { watch.kill() }
        try server.stop()
        // Down for as long as the watch takes to say that it waits: longer than its reads retry.
        let waiting = await watch.stderr.waitForLine(within: .seconds(60)) {
            // Its status or its records, whichever read the outage met.
            $0.hasPrefix("watch: reading ") && $0.contains(runID) && $0.hasSuffix("; waiting until it is back or --timeout passes")
        }
        #expect(waiting, "\(watch.stderr.text)")
        try server.start()
        #expect(try await Self.eventually { try Self.isWatched(runID, conninfo: conninfo) })
        #expect(await matterflow(["cancel", runID, "--store", conninfo]).stdout == "cancelled\n")
        try #require(await watch.waitForExit(within: .seconds(60)), "\(watch.stderr.text)")
        #expect(watch.status == 1, "\(watch.stderr.text)")
        let said = watch.stderr.text.split(separator: "\n").map(String.init)
        #expect(said.filter { $0.contains("waiting until it is back") }.count == 1, "\(said)")
        #expect(said.contains { $0.hasPrefix("watch: the store is reachable again, after ") && $0.hasSuffix(" s") }, "\(said)")
        #expect(watch.stdout.text.hasSuffix("status: cancelled\nerror: runCancelled: cancelled before it began (matterflow cancel); it made no call\n"), "\(watch.stdout.text)")
    }

    @Test("a worker asked to stop while its store is out of reach exits within seconds, not a reconnect limit per store command")
    func stopWithTheStoreDown() async throws {
        let server = try TestPostgres.PrivateServer()
        defer { server.remove() }
        let worker = try ChildProcess.launch(["worker", "--store", server.conninfo, "--worker-id", "w-down", "--lease", "10"])
        defer { worker.kill() }
        #expect(await worker.stderr.waitForLine(within: .seconds(60)) { $0.hasPrefix("worker w-down: claiming runs from ") }, "\(worker.stderr.text)")
        try server.stop()
        let asked = ContinuousClock.now
        worker.signal(SIGTERM)
        // Marking itself stopping, its heartbeats and marking itself stopped each tried the store for 30 s: 60 s and more.
        try #require(await worker.waitForExit(within: .seconds(45)), "\(worker.stderr.text)")
        let took = ContinuousClock.now - asked
        #expect(took < .seconds(25), "\(worker.stderr.text)")
        #expect(worker.status == 0, "\(worker.stderr.text)")
        // Marking itself stopping found the store out of reach: marking itself stopped is not tried, a wait saved.
        #expect(worker.stderr.text.contains("could not mark itself stopping"), "\(worker.stderr.text)")
        #expect(worker.stderr.text.contains("not marked stopped either: the store was out of reach"), "\(worker.stderr.text)")
        #expect(!worker.stderr.text.contains("could not mark itself stopped"), "\(worker.stderr.text)")
    }

    @Test("a worker's metrics file says the store is out of reach as soon as a command finds it so, not after a heartbeat's retries")
    func metricsSayTheStoreLostAtOnce() async throws {
        let server = try TestPostgres.PrivateServer()
        defer { server.remove() }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path + "/w.prom"
        let worker = try ChildProcess.launch(
            ["worker", "--store", server.conninfo, "--worker-id", "w-m", "--lease", "6", "--metrics-file", file])
        defer { worker.kill() }
        let reachable: @Sendable (String) -> Bool = { value in
            ((try? String(contentsOfFile: file, encoding: .utf8)) ?? "").contains("matterflow_worker_store_reachable{worker=\"w-m\"} \(value)\n")
        }
        #expect(await worker.stderr.waitForLine(within: .seconds(60)) { $0.hasPrefix("worker w-m: claiming runs from ") }, "\(worker.stderr.text)")
        #expect(try await Self.eventually { reachable("1") }, "\(worker.stderr.text)")
        try server.stop()
        let stopped = ContinuousClock.now
        // Its next heartbeat (2 s) or look for work (5 s) finds the store gone; the heartbeat then retries for 30 s.
        #expect(try await Self.eventually { reachable("0") }, "\(worker.stderr.text)")
        #expect(ContinuousClock.now - stopped < .seconds(20), "\(worker.stderr.text)")
        worker.signal(SIGTERM)
        #expect(await worker.waitForExit(within: .seconds(45)), "\(worker.stderr.text)")
    }

    @Test("watch waits out a server that answers and refuses it (its database dropped; a pooler in front of a server that is down refuses so too), and says why")
    func watchRefusedByTheServer() async throws {
        let conninfo = try TestPostgres.database()
        let watch = try await Self.watchedRun("run-00000e5e000a", conninfo: conninfo)
        defer { watch.kill() }
        let admin = try PostgresConnection(try TestPostgres.server())
        defer { admin.close() }
        let database = try #require(conninfo.split(separator: " ").first { $0.hasPrefix("dbname=") }?.dropFirst(7))
        try admin.execute("DROP DATABASE \(database) WITH (FORCE)")
        let waiting = await watch.stderr.waitForLine(within: .seconds(60)) {
            $0.hasPrefix("watch: reading run run-00000e5e000a: ") && $0.contains("the server is up and refused this connection")
                && $0.hasSuffix("; waiting until it is back or --timeout passes")
        }
        #expect(waiting, "\(watch.stderr.text)")
        #expect(watch.process.isRunning, "\(watch.stderr.text)")
    }

    @Test("a worker says when the store becomes unreachable and when it is reachable again, each on one line: a restart of the server is not silent")
    func outageIsLogged() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let desk = try directory.write(FleetAnswerTests.desk, to: "desk.json")
        let runID = "run-00000e5e0008"
        #expect(await matterflow(["submit", desk, "--store", conninfo, "--run-id", runID]).code == 0)
        let store = try PostgresRunStore(conninfo: conninfo)
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1", leaseSeconds: 2))
        #expect(try await FleetAnswerTests.waitForRecord("questionAsked", of: runID, conninfo: conninfo))
        try TestPostgres.restart()
        #expect(await worker.waitForLine(containing: "worker w1: the store is reachable again, after "), "\(worker.lines)")
        let lost = worker.lines.filter { $0.hasPrefix("warning: worker w1: the store cannot be reached (") }
        #expect(lost.count >= 1, "\(worker.lines)")
        #expect(lost.allSatisfy { $0.hasSuffix("; reconnecting: runs wait where they are") }, "\(lost)")
        #expect(worker.lines.allSatisfy { !$0.contains("\n") }, "\(worker.lines)")
        worker.worker.stop()
        #expect(try await worker.summary.handedBack == 1, "\(worker.lines)")
    }

    @Test("an outage is a server out of reach or gone, not a statement refused for a moment (a deadlock, a serialization failure), which is retried all the same")
    func outagesAndMomentaryRefusals() {
        for state in ["08006", "57P01", "57P03", nil] {
            #expect(PostgresError(.commandFailed, sqlState: state, "x").isOutage, "\(String(describing: state))")
        }
        for state in ["40001", "40P01"] {
            let error = PostgresError(.commandFailed, sqlState: state, "x")
            #expect(error.isTransient && !error.isOutage, "\(state)")
        }
        // A statement cancelled by a statement_timeout would run as long again; a dropped database stays dropped.
        for state in ["57014", "23505"] {
            let error = PostgresError(.commandFailed, sqlState: state, "x")
            #expect(!error.isTransient && !error.isOutage, "\(state)")
        }
        #expect(!PostgresError(.commandFailed, sqlState: "57P04", "x").isTransient)
        #expect(PostgresError(.commandFailed, sqlState: "57014", "x").isCancelled)
        #expect(PostgresError(.connectionLost, "x").isOutage)
    }

    @Test("a lease renewal is a HOT update: its row's new version stays in its page and no index of matterflow_runs gets an entry")
    func leaseRenewalsTouchNoIndex() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        // Few enough row versions that every one fits in the table's first page: whether an update is HOT then
        // depends only on the columns it changes, not on whether a snapshot elsewhere lets the page be pruned.
        let runs = (1...10).map { (run: "run-\($0)", structure: "home-\($0)", worker: "w1") }
        try TestPostgres.insertRunning(runs, into: store)
        for _ in 0..<3 {
            _ = try store.heartbeatReadingSchema("w1", running: runs.map(\.run), leaseSeconds: 30)
        }
        _ = try store.execute("SELECT pg_stat_force_next_flush()", doing: "test")
        // The statistics reach shared memory once the session is idle; a new session reads them.
        let updates = Mutex((all: 0, hot: 0))
        let flushed = try await Self.eventually {
            let reader = try PostgresConnection(conninfo)
            defer { reader.close() }
            let row = try reader.execute("SELECT n_tup_upd, n_tup_hot_upd FROM pg_stat_user_tables WHERE relname = 'matterflow_runs'").rows.first
            let counts = (all: Int(row?[0] ?? "") ?? 0, hot: Int(row?[1] ?? "") ?? 0)
            updates.withLock { $0 = counts }
            return counts.all >= 30
        }
        let counts = updates.withLock { $0 }
        #expect(flushed, "30 renewals counted: \(counts)")
        #expect(counts.hot == counts.all, "every renewal is HOT: \(counts)")
        let pages = try store.execute("SELECT count(DISTINCT (ctid::text::point)[0]) FROM matterflow_runs", doing: "test")
        #expect(pages.rows == [["1"]], "the runs' rows are in one page")
    }

    @Test("a statement the server cancels for its statement_timeout is sent once, not again until the retry bound, and the error says what to change")
    func statementTimeoutNotRetried() throws {
        let conninfo = try TestPostgres.database()
        let setup = try PostgresRunStore(conninfo: conninfo)
        let database = try #require(setup.execute("SELECT current_database()", doing: "test").rows.first?[0])
        try setup.execute("CREATE SEQUENCE attempts", doing: "test setup")
        try setup.execute("ALTER DATABASE \"\(database)\" SET statement_timeout = '100ms'", doing: "test setup")
        // A new connection takes the database's setting.
        let store = try PostgresRunStore(conninfo: conninfo)
        do {
            try store.execute("SELECT nextval('attempts'), pg_sleep($1::float8)", ["5"], doing: "reading slowly")
            Issue.record("the statement outlived its statement_timeout")
        } catch {
            #expect(error.code == .storeFailed, "\(error)")
            #expect(error.message.hasPrefix("reading slowly: the server cancelled the statement ("), "\(error.message)")
            #expect(error.message.contains("ALTER ROLE name SET statement_timeout = 0"), "\(error.message)")
        }
        try setup.execute("ALTER DATABASE \"\(database)\" RESET statement_timeout", doing: "test cleanup")
        let attempts = try setup.execute("SELECT last_value FROM attempts", doing: "test")
        #expect(attempts.rows == [["1"]], "each attempt takes a number, and the sequence is not rolled back")
    }

    /// Whether `condition` holds within 30 s, looked at every 50 ms (on a thread of its own: the store's calls block).
    static func eventually(_ condition: @escaping @Sendable () throws -> Bool) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result {
                    let deadline = ContinuousClock.now + .seconds(30)
                    while ContinuousClock.now < deadline {
                        if (try? condition()) == true { return true }
                        usleep(50_000)
                    }
                    return false
                })
            }
        }
    }
}

/// Connections notice a server that vanished.
extension PostgresStoreTests {
    @Test("a connection gives up a connect after 10 s and notices a vanished server by TCP keepalives unless its conninfo says otherwise")
    func networkDefaults() throws {
        let conninfo = try TestPostgres.database()
        let plain = try PostgresConnection(conninfo)
        defer { plain.close() }
        #expect(plain.setting("connect_timeout") == "10")
        #expect(plain.setting("keepalives_idle") == "10")
        #expect(plain.setting("tcp_user_timeout") == "30000")
        // Of a cluster's hosts, the primary: a standby refuses every write.
        #expect(plain.setting("target_session_attrs") == "read-write")
        // A database administrator sees whose connection it is.
        #expect(try plain.execute("SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()").rows == [["matterflow"]])
        #expect(try plain.execute("SELECT current_database()").rows.first?.first == conninfo.split(separator: "=").last.map(String.init))
        let chosen = try PostgresConnection(conninfo + " keepalives_idle=60 connect_timeout=3")
        defer { chosen.close() }
        #expect(chosen.setting("keepalives_idle") == "60")
        #expect(chosen.setting("connect_timeout") == "3")
        #expect(chosen.setting("keepalives_count") == "3")
        // A service's file may set them all: no default is added then.
        #expect(PostgresConnection.namesService("service=fleet dbname=mf"))
        #expect(PostgresConnection.namesService("postgresql://db/mf?service=fleet"))
        #expect(!PostgresConnection.namesService(conninfo))
    }
}
