import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
@testable import MatterFlowStore
import Synchronization
import Testing

/// Runs changing hands between worker processes: handed back at a checkpoint on SIGTERM, resumed after a SIGKILL
/// with `--resume`; a worker on a hub process (`--hub`); `watch` following a run as it is written.
extension PostgresStoreTests {
    /// Submits `count` commission-device runs, one structure each (`prefix-0`, `prefix-1`, ...); their IDs.
    func submitCommissions(_ count: Int, conninfo: String, secrets: String, prefix: String) async throws -> [String] {
        var runIDs: [String] = []
        for index in 0..<count {
            let submitted = await matterflow(
                ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets,
                 "--structure", "\(prefix)-\(index)"] + commissionInputs(name: "Lamp \(index)"))
            try #require(submitted.code == 0, "\(submitted.stderr)")
            runIDs.append(submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return runIDs
    }

    /// The hub calls of a run's journal, `workflow/state operation #attempt`, in order (recovery's own excluded).
    private func calls(of runID: String, in store: PostgresRunStore) throws -> [String] {
        try store.records(of: runID).filter { $0.type == "intent" && $0.string("workflow") != "recovery" }.map {
            "\($0.string("workflow") ?? "")/\($0.string("state") ?? "") \($0.string("operation") ?? "") #\($0.payload["attempt"]?.intValue ?? 0)"
        }
    }

    @Test("SIGTERM: the worker parks its runs at a checkpoint, hands them and the runs it claimed ahead back and exits 0; another resumes them, no call repeated")
    func gracefulHandBack() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Commissioning takes 20 s of real time, so SIGTERM lands while every run is in the middle, even when the
        // suite's other tests slow the worker's claims of the four runs seconds apart; the runs then park as their
        // commissioning calls end, well within the worker's 30 s drain window.
        let home = try Self.slowHome(in: directory, latencies: ["commissionDevice": 20])
        let state = directory.file("state")
        let secrets = try Self.secretsDirectory(in: directory)
        // Six runs for a worker of four slots: it claims two ahead (half its slots), which it never starts.
        let allRunIDs = try await submitCommissions(6, conninfo: conninfo, secrets: secrets, prefix: "calm")
        let store = try PostgresRunStore(conninfo: conninfo)
        func started(_ runID: String) -> Bool { !((try? store.records(of: runID)) ?? []).isEmpty }

        let first = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--home", home, "--state", state, "--secrets", secrets, "--clock", "real",
             "--lease", "30", "--concurrency", "4", "--worker-id", "leaving"])
        defer { first.kill() }
        let signalled = try #require(await first.signal(SIGTERM, within: .seconds(60)) {
            allRunIDs.filter { store.hasIntent(of: "commissionDevice", run: $0) }.count == 4
        }, "four runs never reached commissionDevice; worker said:\n\(first.stderr.text)")
        try #require(await first.waitForExit(within: .seconds(40)), "the worker did not exit within 40 s of SIGTERM")
        #expect(first.status == 0, "\(first.stderr.text)")
        // The runs park once their commissioning call ends (at most 20 s), then the worker exits.
        #expect(try #require(first.exitedAt) - signalled < .seconds(28))
        #expect(first.stderr.text.contains("worker leaving: SIGTERM received (another one hands the runs back at once)\n"), "\(first.stderr.text)")
        #expect(
            first.stderr.text.contains("worker leaving: stopping: claims no more runs; gives its 4 runs in progress up to 30 s to end or park\n"),
            "\(first.stderr.text)")
        #expect(first.stderr.text.contains("handed back 4 run(s) at a checkpoint"), "\(first.stderr.text)")
        #expect(first.stderr.text.contains("handed back 2 run(s) it had not started"), "\(first.stderr.text)")
        let runIDs = allRunIDs.filter(started)
        let unstarted = allRunIDs.filter { !started($0) }
        #expect(runIDs.count == 4 && unstarted.count == 2, "started: \(runIDs)")
        for runID in unstarted { #expect(try store.status(of: runID) == "queued") }
        for runID in runIDs {
            #expect(try store.status(of: runID) == "queued")
            // Its position: the journal ends with a checkpoint, after the last call's outcome.
            let records = try store.records(of: runID)
            #expect(records.last?.type == "checkpoint" || records.last?.type == "event", "\(records.suffix(4).map(\.type))")
            #expect(records.filter { $0.type == "intent" }.count == records.filter { $0.type == "outcome" }.count)
        }
        let before = try Dictionary(uniqueKeysWithValues: runIDs.map { ($0, try calls(of: $0, in: store)) })

        // Without --resume: a run handed back at a checkpoint is resumed anyway (nothing is in doubt).
        let second = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--home", home, "--state", state, "--secrets", secrets, "--clock", "real",
             "--lease", "30", "--concurrency", "4", "--exit-when-idle", "--worker-id", "staying"])
        defer { second.kill() }
        try #require(await second.waitForExit(within: .seconds(60)), "the second worker did not finish")
        #expect(second.status == 0, "\(second.stderr.text)")
        for runID in runIDs {
            #expect(second.stderr.text.contains("resuming run \(runID) from its last checkpoint"), "\(second.stderr.text)")
            #expect(try store.status(of: runID) == "succeeded")
            let after = try calls(of: runID, in: store)
            #expect(Array(after.prefix(before[runID]?.count ?? 0)) == before[runID] ?? [])
            #expect(Set(after).count == after.count, "a call was repeated: \(after)")
            #expect(after.count > before[runID]?.count ?? 0, "the run made no call after its hand-back")
            let records = try store.records(of: runID)
            #expect(!records.contains { $0.type == "resolution" }, "a call was in doubt")
            #expect(records.filter { $0.type == "runFinished" }.count == 1)
            // A hand-back is no crash: the resumed run ends as a run started there does.
            #expect(try store.run(runID)?.recovered == false)
            #expect(second.stderr.text.contains("worker staying: run \(runID) succeeded\n"), "\(second.stderr.text)")
        }
        #expect(!second.stderr.text.contains("settled after takeover"), "\(second.stderr.text)")
        for runID in unstarted {
            #expect(try store.status(of: runID) == "succeeded")
            #expect(!second.stderr.text.contains("resuming run \(runID)"), "\(second.stderr.text)")
        }
        for index in 0..<6 {
            let saved = try #require(try HomeStateStore.loadSaved(directory: state + "/calm-\(index)"))
            #expect(saved.activeSession == nil)
            #expect(saved.devices.count == 1, "calm-\(index) has \(saved.devices.count) devices")
        }
        #expect(try store.sessions().isEmpty)
    }

    @Test("a second SIGTERM ends the drain at once: the run in the middle of its call is handed back for takeover and the worker exits 0; another settles it")
    func secondSignalEndsTheDrain() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Commissioning takes 60 s: without the second signal the worker would wait its whole 30 s drain.
        let home = try Self.slowHome(in: directory, latencies: ["commissionDevice": 60])
        let state = directory.file("state")
        let secrets = try Self.secretsDirectory(in: directory)
        let runID = try #require(try await submitCommissions(1, conninfo: conninfo, secrets: secrets, prefix: "hurried").first)
        let store = try PostgresRunStore(conninfo: conninfo)
        let first = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--home", home, "--state", state, "--secrets", secrets, "--clock", "real",
             "--lease", "2", "--worker-id", "hurried"])
        defer { first.kill() }
        _ = try #require(await first.signal(SIGTERM, within: .seconds(60)) { store.hasIntent(of: "commissionDevice", run: runID) },
            "the run never reached commissionDevice; worker said:\n\(first.stderr.text)")
        let stderr = first.stderr
        let pid = first.process.processIdentifier
        try #require(await act(when: { stderr.text.contains("stopping: claims no more runs") }) { kill(pid, SIGTERM) } != nil,
            "the worker never said it was stopping:\n\(first.stderr.text)")
        let again = ContinuousClock.now
        try #require(await first.waitForExit(within: .seconds(60)), "the worker did not exit after a second SIGTERM")
        #expect(try #require(first.exitedAt) - again < .seconds(15), "the worker waited for its drain: \(first.stderr.text)")
        #expect(first.status == 0, "\(first.stderr.text)")
        #expect(first.stderr.text.contains("worker hurried: SIGTERM received again: the runs go back without waiting\n"), "\(first.stderr.text)")
        #expect(first.stderr.text.contains("worker hurried: asked again to stop: hands its runs back now"), "\(first.stderr.text)")
        #expect(first.stderr.text.contains("handed back 1 run(s) in progress"), "\(first.stderr.text)")

        let second = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--home", home, "--state", state, "--secrets", secrets, "--clock", "real",
             "--lease", "2", "--exit-when-idle", "--worker-id", "settling"])
        defer { second.kill() }
        try #require(await second.waitForExit(within: .seconds(120)), "the second worker did not finish: \(second.stderr.text)")
        #expect(second.status == 0, "\(second.stderr.text)")
        #expect(try !StoredRun.isOpen(store.status(of: runID)))
        #expect(try store.sessions().isEmpty)
    }

    @Test("a worker whose log reader goes away (`2>&1 | head -1`) goes on: it runs what it claims and exits 0 when idle")
    func logReaderGoesAway() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try Self.secretsDirectory(in: directory)
        let runIDs = try await submitCommissions(2, conninfo: conninfo, secrets: secrets, prefix: "unread")
        let log = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Executable.path))
        process.arguments = ["worker", "--store", conninfo, "--secrets", secrets, "--exit-when-idle", "--concurrency", "1", "--worker-id", "unread"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = log
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // Its first line ("claiming runs from ..."), then the reader goes away.
        #expect(!log.fileHandleForReading.availableData.isEmpty)
        try log.fileHandleForReading.close()
        let deadline = ContinuousClock.now + .seconds(60)
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try #require(!process.isRunning, "the worker did not exit")
        #expect(process.terminationReason == .exit, "SIGPIPE ended the worker (signal \(process.terminationStatus))")
        #expect(process.terminationStatus == 0)
        let store = try PostgresRunStore(conninfo: conninfo)
        for runID in runIDs { #expect(try store.status(of: runID) == "succeeded") }
    }

    /// A commission-device run whose worker was SIGKILLed during its 30 s fetchRooms read: the read is in doubt and
    /// the worker's 1 s lease runs out. The run's ID, and the home, state and secrets a rescuing worker needs.
    private func runKilledDuringRead(
        conninfo: String, directory: TemporaryDirectory, prefix: String
    ) async throws -> (runID: String, home: String, state: String, secrets: String) {
        let home = try Self.slowHome(in: directory, latencies: ["fetchRooms": 30])
        let state = directory.file("state")
        let secrets = try Self.secretsDirectory(in: directory)
        let runID = try #require(try await submitCommissions(1, conninfo: conninfo, secrets: secrets, prefix: prefix).first)
        let store = try PostgresRunStore(conninfo: conninfo)
        let first = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--home", home, "--state", state, "--secrets", secrets, "--clock", "real",
             "--lease", "1", "--worker-id", "doomed"])
        defer { first.kill() }
        let reading = await first.signal(SIGKILL, within: .seconds(60)) {
            store.hasIntent(of: "fetchRooms", run: runID)
        }
        try #require(reading != nil, "the run never reached fetchRooms; worker said:\n\(first.stderr.text)")
        try #require(await first.waitForExit(), "the killed worker did not go")
        return (runID, home, state, secrets)
    }

    @Test("worker --resume: a run whose worker was SIGKILLed during a read is resumed to success, not cancelled")
    func takeoverResumes() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (runID, home, state, secrets) = try await runKilledDuringRead(conninfo: conninfo, directory: directory, prefix: "resumed")
        let store = try PostgresRunStore(conninfo: conninfo)

        let second = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--home", home, "--state", state,
             "--secrets", secrets, "--clock", "virtual", "--lease", "1", "--resume", "--exit-when-idle", "--worker-id", "rescuer"])
        defer { second.kill() }
        try #require(await second.waitForExit(within: .seconds(60)), "the second worker did not finish")
        #expect(second.status == 0, "\(second.stderr.text)")
        #expect(second.stderr.text.contains("settling run \(runID)"))
        let run = try #require(try store.runs().first { $0.runID == runID })
        #expect(run.status == "succeeded", "\(run.notes) \(second.stderr.text)")
        #expect(run.recovered)
        let made = try calls(of: runID, in: store)
        #expect(made.filter { $0.contains(" commissionDevice ") }.count == 1, "\(made)")
        #expect(made.contains { $0.contains(" completeCommissioning ") }, "\(made)")
        let saved = try #require(try HomeStateStore.loadSaved(directory: state + "/resumed-0"))
        #expect(saved.activeSession == nil)
        #expect(saved.devices.count == 1)
        #expect(try store.sessions().isEmpty)
    }

    @Test("a taken-over run whose records cannot be read is handed back and settled once they can, never started afresh")
    func unreadableRecordsAreHandedBack() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (runID, home, state, secrets) = try await runKilledDuringRead(conninfo: conninfo, directory: directory, prefix: "unread")
        let store = try PostgresRunStore(conninfo: conninfo)
        let before = try calls(of: runID, in: store)

        // A role that may claim runs and write records but not read records back, as when the server fails reads.
        let role = "mf_blind_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        let admin = try PostgresConnection(conninfo)
        defer {
            _ = try? admin.execute("DROP OWNED BY \(role)")
            _ = try? admin.execute("DROP ROLE \(role)")
            admin.close()
        }
        for statement in [
            "CREATE ROLE \(role) LOGIN", "GRANT ALL ON ALL TABLES IN SCHEMA public TO \(role)",
            "GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO \(role)", "REVOKE SELECT ON matterflow_record_batches FROM \(role)",
            "GRANT SELECT (run_id) ON matterflow_record_batches TO \(role)",
        ] { _ = try admin.execute(statement) }
        let blind = conninfo.split(separator: " ").filter { !$0.hasPrefix("user=") }.joined(separator: " ") + " user=\(role)"

        let second = try ChildProcess.launch(
            ["worker", "--store", blind, "--home", home, "--state", state,
             "--secrets", secrets, "--clock", "virtual", "--lease", "1", "--resume", "--exit-when-idle", "--worker-id", "blind"])
        defer { second.kill() }
        let refused = await second.stderr.waitForLine(within: .seconds(60)) {
            $0.contains("could not read the records of run \(runID)") && $0.contains("it is handed back, to be claimed again in 0.25 s")
        }
        try #require(refused, "\(second.stderr.text)")
        // Handing one run back is not stopping: the worker goes on claiming.
        #expect(try admin.execute("SELECT stopping::text FROM matterflow_workers WHERE worker_id = 'blind'").rows.first?[0] == "false")
        _ = try admin.execute("GRANT SELECT ON matterflow_record_batches TO \(role)")

        try #require(await second.waitForExit(within: .seconds(60)), "the worker did not finish: \(second.stderr.text)")
        #expect(second.status == 0, "\(second.stderr.text)")
        #expect(second.stderr.text.contains("settling run \(runID)"), "\(second.stderr.text)")
        #expect(!second.stderr.text.contains("had not begun"), "\(second.stderr.text)")
        #expect(try store.status(of: runID) == "succeeded")
        let records = try store.records(of: runID)
        #expect(records.filter { $0.type == "runStarted" }.count == 1, "the run was started afresh")
        let after = try calls(of: runID, in: store)
        #expect(Array(after.prefix(before.count)) == before)
        #expect(after.filter { $0.contains(" commissionDevice ") }.count == 1, "\(after)")
        #expect(try admin.execute("SELECT stopping::text FROM matterflow_workers WHERE worker_id = 'blind'").rows.first?[0] == "true")
    }

    @Test("the runs of a claim whose reply was lost come back with the claimer's next claim that names its token, to that worker only, and not once their lease ran out")
    func lostClaimReply() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        for (index, run) in ["run-a", "run-b", "run-c", "run-d"].enumerated() {
            try store.execute(
                """
                INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, submitted_at)
                VALUES ($1, 'w', '/w.json', $2, '{}', 'queued', now() - make_interval(secs => 10 - $3::integer))
                """, [run, "home-\(run)", String(index)], doing: "test setup")
        }
        // The reply of this claim is lost: the worker never learns of run-a and run-b.
        _ = try store.claim(by: "w1", limit: 2, leaseSeconds: 60, token: "lost-1")
        // Another worker naming the token gets nothing of w1's; a claim of w1's without it gets none of the lost runs.
        let other = try store.claim(by: "w2", limit: 1, leaseSeconds: 60, token: "other-1", unanswered: ["lost-1"])
        #expect(other.map(\.runID) == ["run-c"])
        #expect(try store.claim(by: "w1", limit: 0, leaseSeconds: 60, token: "plain").isEmpty)
        // w1's next claim names the lost token: both runs come back, beyond its limit, as the lost claim took them
        // (from the queue: not takeovers, so a run put back in the queue at a checkpoint is resumed, not settled),
        // their claim count unchanged.
        let again = try store.claim(by: "w1", limit: 1, leaseSeconds: 60, token: "next-1", unanswered: ["lost-1"])
        let byRun = Dictionary(uniqueKeysWithValues: again.map { ($0.runID, $0) })
        #expect(byRun.keys.sorted() == ["run-a", "run-b", "run-d"])
        #expect(byRun.mapValues(\.takeover) == ["run-a": false, "run-b": false, "run-d": false])
        #expect(again.allSatisfy { $0.claims == 1 })
        // Returned once: the token is spent, the runs now carry the answered claim's.
        #expect(try store.claim(by: "w1", limit: 0, leaseSeconds: 60, token: "next-2", unanswered: ["lost-1"]).isEmpty)
        // A lost claim's run whose lease ran out meanwhile is a takeover like any other, not returned as lost.
        try store.execute(
            "INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status) VALUES ('run-e', 'w', '/w.json', 'home-e', '{}', 'queued')",
            doing: "test setup")
        #expect(try store.claim(by: "w1", limit: 1, leaseSeconds: 60, token: "lost-2").map(\.runID) == ["run-e"])
        try store.execute("UPDATE matterflow_runs SET lease_until = now() - interval '1 second' WHERE run_id = 'run-e'", doing: "test")
        let taken = try store.claim(by: "w2", limit: 1, leaseSeconds: 60, token: "other-2")
        #expect(taken.map(\.runID) == ["run-e"])
        #expect(taken.first?.takeover == true)
        #expect(taken.first?.claims == 2)
        #expect(try store.claim(by: "w1", limit: 0, leaseSeconds: 60, token: "next-3", unanswered: ["lost-2"]).isEmpty)
        // A lost takeover comes back as a takeover. When the answer to that claim is lost as well and the run's lease
        // runs out, the claim naming its token takes it over afresh: one row, its claims counted again.
        try TestPostgres.insertRunning([("run-f", "home-f", "dead")], into: store)
        try store.execute("UPDATE matterflow_runs SET lease_until = now() - interval '1 second' WHERE run_id = 'run-f'", doing: "test")
        #expect(try store.claim(by: "w1", limit: 1, leaseSeconds: 60, token: "lost-3").map(\.runID) == ["run-f"])
        let lostTakeover = try store.claim(by: "w1", limit: 0, leaseSeconds: 60, token: "next-4", unanswered: ["lost-3"])
        #expect(lostTakeover.map(\.runID) == ["run-f"])
        #expect(lostTakeover.first?.takeover == true)
        try store.execute("UPDATE matterflow_runs SET lease_until = now() - interval '1 second' WHERE run_id = 'run-f'", doing: "test")
        let expiredToo = try store.claim(by: "w1", limit: 1, leaseSeconds: 60, token: "next-5", unanswered: ["next-4"])
        #expect(expiredToo.map(\.runID) == ["run-f"])
        #expect(expiredToo.first?.takeover == true)
        #expect(expiredToo.first?.claims == 2)
    }

    @Test("a run handed back for unreadable records is claimed by no worker, its own included, until its delay has passed")
    func unreadableHandBackWaits() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try TestPostgres.insertRunning([("run-later", "home-later", "reader"), ("run-now", "home-now", "reader")], into: store)
        #expect(try store.handBack(["run-later"], by: "reader", retryAfter: 600) == ["run-later"])
        #expect(try store.handBack(["run-now", "run-unknown"], by: "reader") == ["run-now"])
        // The run handed back without a delay is taken over at once; the other waits, whoever claims.
        let claimed = try store.claim(by: "reader", limit: 8, leaseSeconds: 10)
        #expect(claimed.map(\.runID) == ["run-now"])
        #expect(claimed.first?.takeover == true)
        #expect(try store.claim(by: "other", limit: 8, leaseSeconds: 10).isEmpty)
        let row = try store.execute(
            "SELECT status, worker_id, lease_until > now() + interval '590 seconds' FROM matterflow_runs WHERE run_id = 'run-later'",
            doing: "reading the run")
        #expect(row.rows == [["running", nil, "t"]])
        // An idle worker wakes when the delay ends (it looks for leases that run out).
        let wake = try #require(try store.nextLeaseExpiry(excluding: "reader"))
        #expect(wake > 590 && wake <= 600, "\(wake)")
        // A hand-back by a worker that no longer holds the run changes nothing.
        #expect(try store.handBack(["run-now"], by: "other", retryAfter: 600).isEmpty)
        #expect(try store.execute("SELECT worker_id FROM matterflow_runs WHERE run_id = 'run-now'", doing: "reading").rows == [["reader"]])
    }

    @Test("worker --hub: runs are made on a hub process over the hub protocol")
    func workerOnHubProcess() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let socket = directory.file("hub.sock")
        let hubState = directory.file("hub-state")
        let secrets = try Self.secretsDirectory(in: directory)
        let server = try ChildProcess.launch(["hub", "serve", "--listen", "unix:\(socket)", "--state", hubState])
        defer { server.kill() }
        try #require(await server.stderr.waitForLine { $0 == "listening on unix:\(socket)" }, "\(server.stderr.text)")
        let structure = HomeDescription.defaultHome.structure.id
        let submitted = await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--structure", structure]
                + commissionInputs(name: "Remote Lamp"))
        let runID = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let worker = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--hub", "unix:\(socket)", "--secrets", secrets, "--exit-when-idle", "--worker-id", "remote"])
        defer { worker.kill() }
        try #require(await worker.waitForExit(within: .seconds(60)), "the worker did not finish")
        #expect(worker.status == 0, "\(worker.stderr.text)")
        let store = try PostgresRunStore(conninfo: conninfo)
        #expect(try store.status(of: runID) == "succeeded", "\(worker.stderr.text)")
        server.signal(SIGTERM)
        try #require(await server.waitForExit(within: .seconds(20)), "the hub server did not stop")
        // The device is in the hub process's home, not in any home of the worker.
        let saved = try #require(try HomeStateStore.loadSaved(directory: hubState))
        #expect(saved.devices.map(\.name).contains("Remote Lamp"), "\(saved.devices.map(\.name))")
        #expect(saved.activeSession == nil)
    }

    /// A hub command that runs `before` (shell) and then `matterflow hub serve` as `serving` says (`exec SERVE`,
    /// `tee /dev/stderr | SERVE`), and a commissioning submitted for the default home: the hub and secrets directory.
    func hubScriptAndCommission(conninfo: String, in directory: TemporaryDirectory, before: String = "", serving: String) async throws -> (hub: String, secrets: String) {
        let executable = try #require(Executable.path, "the matterflow executable was not found")
        let serve = "\"\(executable)\" hub serve --state \"\(directory.file("hub-state"))\""
        let hub = try directory.write("#!/bin/sh\n\(before)" + serving.replacingOccurrences(of: "SERVE", with: serve) + "\n", to: "hub.sh")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hub)
        let secrets = try Self.secretsDirectory(in: directory)
        let submitted = await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets,
             "--structure", HomeDescription.defaultHome.structure.id] + commissionInputs(payload: Payloads.specQR))
        #expect(submitted.code == 0, "\(submitted.stderr)")
        return (hub, secrets)
    }

    @Test("worker --hub COMMAND: what the hub writes on its standard error goes into the worker's log, in its format: with --log-format json every line is one JSON object")
    func hubStandardErrorInTheWorkersLog() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (hub, secrets) = try await hubScriptAndCommission(
            conninfo: conninfo, in: directory, before: "echo 'hub starting up' >&2\necho '<4>the radio is slow' >&2\n", serving: "exec SERVE")
        let worker = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--hub", hub, "--secrets", secrets, "--exit-when-idle", "--worker-id", "w-hub", "--log-format", "json"])
        defer { worker.kill() }
        try #require(await worker.waitForExit(within: .seconds(60)), "the worker did not finish")
        #expect(worker.status == 0, "\(worker.stderr.text)")
        let lines = worker.stderr.text.split(separator: "\n").map(String.init)
        let objects = lines.compactMap { try? parseJSON($0) as? [String: Any] }
        #expect(objects.count == lines.count, "every line is JSON: \(worker.stderr.text)")
        #expect(objects.contains { $0["message"] as? String == "hub: hub starting up" && $0["worker"] as? String == "w-hub" && $0["level"] as? String == "info" }, "\(worker.stderr.text)")
        #expect(objects.contains { $0["message"] as? String == "hub: the radio is slow" && $0["level"] as? String == "warning" }, "a syslog priority is the line's level: \(worker.stderr.text)")
    }

    @Test("worker --hub COMMAND: what the hub writes on its standard error is logged without the secrets of the worker's runs: a hub that echoes its requests does not put an onboarding payload in the log")
    func hubStandardErrorWithoutSecrets() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A hub being debugged: every request it reads is copied to its standard error; and it logs a key it made
        // before any run has read it.
        let (hub, secrets) = try await hubScriptAndCommission(
            conninfo: conninfo, in: directory, before: "echo 'activated epskc=987654321 for 60 s' >&2\n", serving: "tee /dev/stderr | SERVE")
        let worker = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--hub", hub, "--secrets", secrets, "--exit-when-idle", "--worker-id", "w-tee"])
        defer { worker.kill() }
        try #require(await worker.waitForExit(within: .seconds(60)), "the worker did not finish")
        #expect(worker.status == 0, "\(worker.stderr.text)")
        let log = worker.stderr.text
        #expect(log.contains("hub: {") && log.contains("\"commissionDevice\""), "the requests were logged: \(log)")
        // The payload, its manual code and its passcode, whichever the hub's lines hold.
        #expect(log.contains("hub: activated epskc=\(RunOptions.redacted) for 60 s"), "\(log)")
        for secret in [Payloads.specQR, "34970112332", "20202021", "987654321"] {
            #expect(!log.contains(secret), "\(secret) in the worker's log:\n\(log)")
        }
        #expect(log.contains("\"onboardingPayload\":\"\(RunOptions.redacted)\""), "\(log)")
    }

    @Test("worker --hub COMMAND: a hub that cannot start says why before the worker's own error, in the worker's log, also when what says it outlives the hub")
    func hubsLastWordsComeFirst() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The hub exits at once; a process it left behind, out of its process group and its standard output closed,
        // says why half a second later: stopping the hub waits for the last line of its standard error.
        let hub = try directory.write(
            "#!/bin/sh\nsetsid sh -c 'exec 1>&-; sleep 0.5; echo \"the radio at /dev/ttyACM0 is missing\" >&2' &\nexit 3\n", to: "hub.sh")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hub)
        let worker = await matterflow(["worker", "--store", conninfo, "--hub", hub, "--worker-id", "w-gone"])
        #expect(worker.code == 2, "\(worker.stderr)")
        let lines = worker.stderr.split(separator: "\n").map(String.init)
        let why = try #require(lines.firstIndex { $0.contains("hub: the radio at /dev/ttyACM0 is missing") }, "\(worker.stderr)")
        let error = try #require(lines.firstIndex { $0.contains("error[") }, "\(worker.stderr)")
        #expect(why < error, "\(worker.stderr)")
    }

    @Test("worker --hub: a hub process that restarts is connected to again, and the runs after it are made on it")
    func workerReconnectsToARestartedHub() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let socket = directory.file("hub.sock")
        let hubState = directory.file("hub-state")
        let serve = ["hub", "serve", "--listen", "unix:\(socket)", "--state", hubState]
        let server = try ChildProcess.launch(serve)
        defer { server.kill() }
        try #require(await server.stderr.waitForLine { $0 == "listening on unix:\(socket)" }, "\(server.stderr.text)")
        let store = try PostgresRunStore(conninfo: conninfo)
        let worker = try ChildProcess.launch(["worker", "--store", conninfo, "--hub", "unix:\(socket)", "--worker-id", "steady"])
        defer { worker.kill() }
        let prepared = "run-00000ec0e001"
        #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", prepared]).code == 0)
        #expect(try await Self.eventually { try store.status(of: prepared) == "succeeded" }, "\(worker.stderr.text)")

        server.signal(SIGTERM)
        try #require(await server.waitForExit(within: .seconds(20)), "the hub server did not stop")
        let restarted = try ChildProcess.launch(serve)
        defer { restarted.kill() }
        try #require(await restarted.stderr.waitForLine { $0 == "listening on unix:\(socket)" }, "\(restarted.stderr.text)")
        // The session prepare.json left open is in the hub's saved state; the cancel releases it over a new connection.
        let cancelling = "run-00000ec0e002"
        #expect(await matterflow(["submit", Repository.workflow("cancel"), "--store", conninfo, "--run-id", cancelling]).code == 0)
        #expect(try await Self.eventually { try store.status(of: cancelling) != "queued" && store.status(of: cancelling) != "running" })
        #expect(try store.status(of: cancelling) == "succeeded", "\(worker.stderr.text)")
        worker.signal(SIGTERM)
        try #require(await worker.waitForExit(within: .seconds(30)), "the worker did not stop")
        #expect(worker.status == 0, "\(worker.stderr.text)")
        restarted.signal(SIGTERM)
        try #require(await restarted.waitForExit(within: .seconds(20)), "the hub server did not stop")
        #expect(try HomeStateStore.loadSaved(directory: hubState)?.activeSession == nil, "the session was released on the restarted hub")
        #expect(try store.sessions().isEmpty)
    }

    @Test("watch RUN --store on a run still queued: streams its records as they are written, ends when it finishes")
    func watchLiveRun() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Commissioning takes 6 s of real time: the run is in progress long enough to see the watch still going.
        let home = try Self.slowHome(in: directory, latencies: ["commissionDevice": 6])
        let secrets = try Self.secretsDirectory(in: directory)
        let runID = try #require(try await submitCommissions(1, conninfo: conninfo, secrets: secrets, prefix: "watched").first)
        let store = try PostgresRunStore(conninfo: conninfo)

        // The watch starts before the run has a single record: everything it prints was written while it watched.
        let ended = Mutex(false)
        let watching = Task {
            let watch = await matterflow(["watch", runID, "--store", conninfo, "--json", "--timeout", "60"])
            ended.withLock { $0 = true }
            return watch
        }
        let worker = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--home", home, "--secrets", secrets, "--clock", "real", "--exit-when-idle",
             "--worker-id", "watched"])
        defer { worker.kill() }
        // Whether the watch had ended is read from a thread of its own the moment the call's intent is stored: on a
        // busy machine the test's own task could see the intent only after the 6 s call.
        let endedAtCall = Mutex<Bool?>(nil)
        let begun = await act(within: .seconds(60), every: .milliseconds(5)) {
            store.hasIntent(of: "commissionDevice", run: runID)
        } _: {
            endedAtCall.withLock { $0 = ended.withLock { $0 } }
        }
        #expect(begun != nil, "the run never made a call; worker said:\n\(worker.stderr.text)")
        #expect(endedAtCall.withLock { $0 } == false, "watch ended while the run was in progress")
        try #require(await worker.waitForExit(within: .seconds(60)), "the worker did not finish")
        let watch = await watching.value
        #expect(watch.code == 0, "\(watch.stderr)")
        let lines = watch.stdout.split(separator: "\n").map(String.init)
        let stored = try store.records(of: runID)
        let printed = try lines.dropLast().map { line in try #require(try JSONDocument.parse(line, file: "stdout").value["seq"]?.intValue) }
        #expect(printed == stored.map(\.sequence), "watch printed each record once, in order")
        #expect(lines.contains { $0.contains("\"runStarted\"") })
        #expect(lines.dropLast().last?.contains("\"runFinished\"") == true, "\(lines.suffix(3))")
        // Then how the run ended, as one object that is no record.
        let end = try JSONDocument.parse(try #require(lines.last), file: "stdout").value
        #expect(end["type"] == "status" && end["status"] == "succeeded" && end["seq"] == nil, "\(lines.suffix(2))")
        #expect(end["output"]?["deviceIDs"]?.arrayValue?.count == 1, "\(lines.suffix(2))")
    }
}

extension PostgresStoreTests {
    @Test("a claim returns runs to settle first, then queued runs oldest first: the order a worker starts them in")
    func claimOrder() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let queued = (1...8).map { "run-q\($0)" }
        for (index, run) in queued.enumerated() {
            try store.execute(
                """
                INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, submitted_at)
                VALUES ($1, 'w', '/w.json', $2, '{}', 'queued', now() - make_interval(secs => 100 - $3::integer))
                """, [run, "home-\(run)", String(index)], doing: "test setup")
        }
        // The oldest runs' rows written again (an answer, say): their newest versions now lie after the others'.
        try store.execute("UPDATE matterflow_runs SET answers = '{\"room\": \"Kitchen\"}' WHERE run_id IN ('run-q1', 'run-q2', 'run-q3')", doing: "test setup")
        try TestPostgres.insertRunning([("run-dead", "home-dead", "gone")], into: store)
        try store.execute("UPDATE matterflow_runs SET lease_until = now() - interval '1 minute' WHERE run_id = 'run-dead'", doing: "test setup")
        let claimed = try store.claim(by: "w1", limit: 6, leaseSeconds: 60)
        #expect(claimed.map(\.runID) == ["run-dead"] + queued.prefix(5), "\(claimed.map(\.runID))")
        #expect(claimed.map(\.takeover) == [true] + Array(repeating: false, count: 5))
    }
}

extension PostgresStoreTests {
    /// An ePSKc share of 60 s submitted as `runID` and running on worker w1 (stopping after `drainSeconds`), once it
    /// waits for its key to be used, holding the key.
    static func epskcShareWaitingForItsKey(
        _ runID: String, drainSeconds: Double, in directory: TemporaryDirectory
    ) async throws -> (store: PostgresRunStore, hub: SimulatedHub, clock: ManualClock, worker: TestWorker) {
        let conninfo = try TestPostgres.database()
        let secrets = try Self.secretsDirectory(in: directory)
        let submitted = await matterflow(
            ["submit", Repository.workflow("epskc-share"), "--store", conninfo, "--run-id", runID, "--structure", "birch-lane",
             "--input", "durationSeconds=60"])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo)
        let clock = ManualClock()
        let hub = try SimulatedHub(home: HomeDescription.load(path: Repository.root + "/Examples/border-router-home.json"), clock: clock)
        let worker = TestWorker(
            store: store, options: WorkerOptions(workerID: "w1", secrets: SecretInbox(directory: secrets), drainSeconds: drainSeconds),
            hubs: { _ in hub }, clock: clock)
        #expect(try await FleetAnswerTests.waitForRecord("waitStarted", of: runID, conninfo: conninfo))
        return (store, hub, clock, worker)
    }

    /// An ePSKc share waits for the key to be used holding the key, which no journal keeps: handed back at its wait,
    /// the next worker could only cancel it. A stopping worker lets it run on instead.
    @Test("a stopping worker does not hand back a run holding a secret a hub call returned: the ePSKc share runs on to its end")
    func stoppingWorkerKeepsAnEpskcShare() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-0000000005c1"
        let (store, _, clock, worker) = try await Self.epskcShareWaitingForItsKey(runID, drainSeconds: 120, in: directory)
        worker.worker.stop()
        // The key's 60 s run out on the hub's clock: the share ends (expired), and the worker records it.
        clock.advance(by: .seconds(61))
        let summary = try await worker.summary
        #expect(summary.handedBack == 0, "\(worker.lines)")
        #expect(summary.finished == ["succeeded": 1], "\(worker.lines)")
        #expect(try store.status(of: runID) == "succeeded")
    }

    /// The share outlasts the drain: handed back, the next worker could only cancel it, the key active until then.
    @Test("a run holding a secret that outlasts the drain takes its cancel path on the stopping worker: the key is withdrawn before it exits")
    func stoppingWorkerCancelsAnEpskcShareThatOutlastsTheDrain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-0000000005c4"
        // The share never ends by itself (the clock stands still): it outlasts any drain. The drain is long enough
        // for its cancel path to end within the same time again on a loaded machine.
        let (store, hub, _, worker) = try await Self.epskcShareWaitingForItsKey(runID, drainSeconds: 1, in: directory)
        worker.worker.stop()
        let summary = try await worker.summary
        #expect(summary.handedBack == 0, "\(worker.lines)")
        #expect(summary.finished == ["cancelled": 1], "\(worker.lines)")
        #expect(try store.status(of: runID) == "cancelled")
        #expect(worker.lines.contains { $0.contains("cancelling 1 run holding a secret no other worker could resume (\(runID))") })
        #expect(await hub.callRecords.contains { $0.operation == .deactivateEpskc && $0.outcome == .succeeded }, "the key was withdrawn")
    }

    @Test("a worker without a secrets directory leaves runs with secrets queued (and exits idle past them); one with it runs them")
    func secretRunsWaitForAWorkerWithSecrets() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try Self.secretsDirectory(in: directory)
        let secretRun = "run-0000000005c2"
        let plainRun = "run-0000000005c3"
        #expect(
            await matterflow(
                ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--run-id", secretRun,
                 "--structure", HomeDescription.defaultHome.structure.id] + commissionInputs()).code == 0)
        #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", plainRun, "--structure", "home-p"]).code == 0)
        let store = try PostgresRunStore(conninfo: conninfo)
        let plain = TestWorker(store: store, options: WorkerOptions(workerID: "w-plain"), virtualTime: true)
        let first = try await plain.summary
        #expect(first.finished.values.reduce(0, +) == 1, "\(plain.lines)")
        #expect(try store.status(of: plainRun) != "queued")
        #expect(try store.status(of: secretRun) == "queued", "\(plain.lines)")
        #expect(plain.lines.contains { $0.contains("no --secrets directory: queued runs with secret inputs or answers are left") })
        #expect(FileManager.default.fileExists(atPath: secrets + "/\(secretRun).secrets"))

        let keyed = TestWorker(store: store, options: WorkerOptions(workerID: "w-secrets", secrets: SecretInbox(directory: secrets)), virtualTime: true)
        let summary = try await keyed.finish(after: [secretRun], conninfo: conninfo)
        #expect(summary.finished == ["succeeded": 1], "\(keyed.lines)")
        #expect(try Self.runFiles(in: secrets).isEmpty)
    }
}

extension PostgresStoreTests {
    @Test("SIGUSR1 and SIGPWR, whose default would end the worker at once, stop it as SIGTERM does: it says so, marks itself stopped and exits by itself, 128 + SIGUSR1, or 0 for SIGPWR (LXC's way to stop a container)", arguments: [SIGUSR1, SIGPWR])
    func userSignalStopsTheWorker(_ signal: Int32) async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let worker = try ChildProcess.launch(["worker", "--store", conninfo, "--worker-id", "usr1"])
        defer { worker.kill() }
        _ = try #require(
            await worker.signal(signal, within: .seconds(60)) { (try? store.workers(includingStopped: false))?.contains { $0.workerID == "usr1" } == true },
            "the worker never registered; it said:\n\(worker.stderr.text)")
        try #require(await worker.waitForExit(within: .seconds(60)), "the worker did not stop after signal \(signal)")
        #expect(worker.process.terminationReason == .exit, "signal \(signal) killed the worker instead of stopping it")
        #expect(worker.status == (signal == SIGPWR ? 0 : 128 + signal), "\(worker.stderr.text)")
        #expect(worker.stderr.text.contains("worker usr1: \(signal == SIGPWR ? "SIGPWR" : "SIGUSR1") received"), "\(worker.stderr.text)")
        #expect(try store.workers(includingStopped: true).first { $0.workerID == "usr1" }?.state == .stopped)
    }

    @Test("a worker started with SIGUSR1 ignored (`trap '' USR1` in its parent, to signal its process group) keeps it ignored: it goes on, and SIGTERM stops it")
    func ignoredUserSignalStaysIgnored() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let executable = try #require(Executable.path, "the matterflow executable was not found")
        let worker = try ChildProcess.launch(
            ["-c", "trap '' USR1; exec \"$0\" worker --store \"$1\" --worker-id ignoring", executable, conninfo], program: "/bin/sh")
        defer { worker.kill() }
        let pid = worker.process.processIdentifier
        _ = try #require(
            await act(within: .seconds(60), when: { (try? store.workers(includingStopped: false))?.contains { $0.workerID == "ignoring" } == true }) {
                kill(pid, SIGUSR1)
                kill(pid, SIGTERM)
            },
            "the worker never registered; it said:\n\(worker.stderr.text)")
        try #require(await worker.waitForExit(within: .seconds(60)), "the worker did not stop after SIGTERM")
        #expect(worker.status == 0, "\(worker.stderr.text)")
        #expect(worker.stderr.text.contains("worker ignoring: SIGTERM received"), "\(worker.stderr.text)")
        #expect(!worker.stderr.text.contains("SIGUSR1"), "\(worker.stderr.text)")
    }
}
