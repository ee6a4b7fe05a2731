import Foundation
@testable import MatterFlowCLI
import MatterFlow
import MatterFlowJSON
@testable import MatterFlowStore
import Synchronization
import Testing

/// What an operator sees of a fleet: `workers` (alive, stopping, stopped, silent, and the runs each holds), the worker
/// that ended a run, runs whose lease expired, and `runs --since --limit`.
@Suite(.serialized) struct FleetOperatorViewTests {
    @Test("workers: a worker that ran is stopped (listed with --all) and named as the one that ended its runs")
    func stoppedWorkerAndFinishedBy() async throws {
        let conninfo = try TestPostgres.database()
        let submitted = await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--structure", "s1"])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let worker = await matterflowVirtual(["worker", "--store", conninfo, "--exit-when-idle", "--worker-id", "w-ops", "--lease", "20"])
        #expect(worker.code == 0, "\(worker.stderr)")

        let live = await matterflow(["workers", "--store", conninfo])
        #expect(live.code == 0)
        #expect(live.stderr == "no worker is registered but stopped ones (--all lists them)\n", "\(live.stderr)")
        let all = await matterflow(["workers", "--store", conninfo, "--all", "--json"])
        let listed = try #require(try JSONDocument.parse(all.stdout, file: "<out>").value.arrayValue)
        #expect(listed.count == 1)
        #expect(listed.first?["workerID"] == "w-ops")
        #expect(listed.first?["state"] == "stopped")
        #expect(listed.first?["leaseSeconds"]?.doubleValue == 20)
        #expect(listed.first?["pid"]?.intValue == Int(getpid()), "the in-process worker's process")

        let runs = await matterflow(["runs", "--store", conninfo])
        let row = try #require(runs.stdout.split(separator: "\n").dropFirst().first)
        #expect(row.contains(" succeeded ") && row.contains(" w-ops "), "the worker that ended the run: \(runs.stdout)")
        let json = await matterflow(["runs", "--store", conninfo, "--json"])
        let endedRun = try JSONDocument.parse(json.stdout, file: "<out>").value.arrayValue?.first
        #expect(endedRun?["finishedBy"] == "w-ops")
        #expect((endedRun?["endedAt"]?.doubleValue ?? 0) >= (endedRun?["startedAt"]?.doubleValue ?? .infinity), "\(String(describing: endedRun))")
    }

    @Test("a worker's log says when each run starts and ends; --log-format json gives one object per line with a UTC time, a level, the worker and the run")
    func workerLog() async throws {
        let conninfo = try TestPostgres.database()
        let first = await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--structure", "s1"])
        let runID = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(first.code == 0 && runID.hasPrefix("run-"), "\(first.stderr)")
        let text = await matterflowVirtual(["worker", "--store", conninfo, "--exit-when-idle", "--worker-id", "w-text"])
        #expect(text.code == 0, "\(text.stderr)")
        #expect(text.stderr.contains("worker w-text: run \(runID) started: prepare on structure s1\n"), "\(text.stderr)")
        // The start line says what a log reader needs to know of the worker after the fact.
        let settings = "(matterflow \(MatterFlowVersion.current), schema \(StoreMigrations.latest); lease 10 s, 32 runs at once, 1000 more waiting)\n"
        #expect(text.stderr.hasPrefix("worker w-text: claiming runs from postgres ") && text.stderr.contains(settings), "\(text.stderr)")
        #expect(text.stderr.contains("worker w-text: run \(runID) succeeded"), "\(text.stderr)")

        let second = await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--structure", "s2"])
        let secondID = second.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let json = await matterflowVirtual(["worker", "--store", conninfo, "--exit-when-idle", "--worker-id", "w-json", "--log-format", "json"])
        #expect(json.code == 0, "\(json.stderr)")
        let lines = json.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count >= 4, "\(json.stderr)")
        var ofRun: [JSONValue] = []
        for line in lines {
            let object = try JSONDocument.parse(line, file: "<stderr>").value
            #expect(object.objectValue?.members.map(\.key) == ["time", "level", "worker", "run", "runs", "message"], "\(line)")
            #expect(object["runs"] == .array(object["run"]?.stringValue.map { [.string($0)] } ?? []), "\(line)")
            let time = object["time"]?.stringValue ?? ""
            #expect(time.count == 24 && time.hasPrefix("20") && time.hasSuffix("Z") && time.contains("T"), "\(line)")
            #expect(object["worker"] == "w-json")
            if object["run"] == .string(secondID) { ofRun.append(object) }
        }
        #expect(ofRun.map { $0["message"]?.stringValue ?? "" } == ["run \(secondID) started: prepare on structure s2", "run \(secondID) succeeded"])
        #expect(ofRun.allSatisfy { $0["level"] == "info" })
        #expect(lines.last.map { $0.contains(#""message":"stopped; finished: succeeded 1"#) } == true, "\(json.stderr)")

        let wrong = await matterflow(["worker", "--store", conninfo, "--log-format", "yaml"])
        #expect(wrong.code == 64 && wrong.stderr.contains("--log-format must be text or json, not 'yaml'"), "\(wrong.stderr)")
        // An error before the worker has an ID is a JSON line too.
        let unreachable = await matterflow(["worker", "--store", "host=/nonexistent-socket-dir dbname=x", "--log-format", "json"])
        #expect(unreachable.code == 2, "\(unreachable.stderr)")
        let refusal = try JSONDocument.parse(unreachable.stderr.trimmingCharacters(in: .newlines), file: "<stderr>").value
        #expect(refusal["level"] == "error" && refusal["worker"] == .null, "\(unreachable.stderr)")
        #expect(refusal["message"]?.stringValue?.hasPrefix("error[storeUnavailable]: ") == true, "\(unreachable.stderr)")
        // So is a hub that cannot be reached at start.
        let hubless = await matterflow(["worker", "--store", conninfo, "--hub", "unix:/nonexistent-dir/hub.sock", "--log-format", "json", "--worker-id", "w-h"])
        #expect(hubless.code == 2, "\(hubless.stderr)")
        let hubRefusal = try JSONDocument.parse(hubless.stderr.trimmingCharacters(in: .newlines), file: "<stderr>").value
        #expect(hubRefusal["level"] == "error" && hubRefusal["worker"] == "w-h", "\(hubless.stderr)")
        #expect(hubRefusal["message"]?.stringValue?.hasPrefix("error[hubUnreachable]: ") == true, "\(hubless.stderr)")
    }

    @Test("under systemd (JOURNAL_STREAM names its stderr) each worker line starts with its syslog priority for journald; elsewhere none")
    func journalPriorities() async throws {
        let conninfo = try TestPostgres.database()
        #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--structure", "s1"]).code == 0)
        let program = try #require(Executable.path)
        // As systemd does: the variable names the device and inode of the stream the process's stderr is.
        let worker = try ChildProcess.launch(
            ["-c", #"JOURNAL_STREAM="$(stat -L -c %d:%i /proc/self/fd/2)" exec "$0" worker --store "$1" --exit-when-idle --worker-id w-j"#,
             program, conninfo],
            program: "/bin/sh")
        defer { worker.kill() }
        try #require(await worker.waitForExit(within: .seconds(60)), "\(worker.stderr.text)")
        #expect(worker.status == 0, "\(worker.stderr.text)")
        let lines = worker.stderr.text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("<6>worker w-j: claiming runs from ") == true, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("<4>warning: worker w-j: no --secrets directory") }, "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix("<6>") || $0.hasPrefix("<4>") || $0.hasPrefix("<3>") }, "\(lines)")
        // The variable of another stream (stderr redirected to a file or a pipe after systemd set it) is not this one.
        let file = try TemporaryDirectory()
        defer { file.remove() }
        let path = try file.write("", to: "log")
        let handle = open(path, O_RDONLY)
        defer { close(handle) }
        var status = stat()
        #expect(fstat(handle, &status) == 0)
        #expect(JournalStream.matches("\(status.st_dev):\(status.st_ino)", descriptor: handle))
        #expect(!JournalStream.matches("\(status.st_dev):\(status.st_ino + 1)", descriptor: handle))
        for bad in [nil, "", "1", "a:b", "1:2:3", ":"] { #expect(!JournalStream.matches(bad, descriptor: handle), "\(String(describing: bad))") }
        let printer = WorkerLogPrinter(format: .json, err: CapturedText(), priorities: true)
        #expect(WorkerLogPrinter.priority(.error) == "<3>" && printer.priorities)
    }

    @Test("--store postgres:// takes every setting from libpq's environment (no password in argv), and the start line names the server it reached")
    func storeFromTheEnvironment() async throws {
        let conninfo = try TestPostgres.database()
        var settings: [String: String] = [:]
        for pair in conninfo.split(separator: " ") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { settings[parts[0]] = parts[1] }
        }
        let environment = ["PGHOST": settings["host"] ?? "", "PGPORT": settings["port"] ?? "", "PGUSER": settings["user"] ?? "", "PGDATABASE": settings["dbname"] ?? ""]
        let worker = try ChildProcess.launch(["worker", "--store", "postgres://", "--exit-when-idle", "--worker-id", "w-env"], environment: environment)
        defer { worker.kill() }
        try #require(await worker.waitForExit(within: .seconds(60)), "\(worker.stderr.text)")
        #expect(worker.status == 0, "\(worker.stderr.text)")
        let server = "\(settings["user"] ?? "")@\(settings["host"] ?? ""):\(settings["port"] ?? "")/\(settings["dbname"] ?? "")"
        #expect(worker.stderr.text.hasPrefix("worker w-env: claiming runs from postgres postgres:// (\(server)) (matterflow "), "\(worker.stderr.text)")
    }

    @Test("a log line about several runs (a hand-back, lost leases) names each in runs, and none in run: a log store joins on either")
    func logLineAboutSeveralRuns() throws {
        let handBack = WorkerLogLine(level: .info, workerID: "w1", runIDs: ["run-a", "run-b"], message: "handed back 2 run(s) at a checkpoint: run-a, run-b")
        #expect(handBack.runID == nil)
        let json = handBack.jsonValue(time: 0)
        #expect(json["run"] == .null && json["runs"] == ["run-a", "run-b"], "\(JSONWriter.compact(json))")
        #expect(json["time"] == "1970-01-01T00:00:00.000Z")
        let one = WorkerLogLine(level: .warning, workerID: "w1", runID: "run-c", message: "run run-c failed")
        #expect(one.jsonValue(time: 0)["run"] == "run-c" && one.jsonValue(time: 0)["runs"] == ["run-c"])
        let none = WorkerLogLine(level: .info, workerID: nil, message: "started")
        #expect(none.jsonValue(time: 0)["run"] == .null && none.jsonValue(time: 0)["runs"] == [])
        #expect(handBack.text == "worker w1: handed back 2 run(s) at a checkpoint: run-a, run-b")
    }

    @Test("a fleet run that succeeded with a warning (its device left unconfigured) is listed with the warning in its notes")
    func warningsListed() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try PostgresStoreTests.secretsDirectory(in: directory)
        let submitted = await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--structure", "s1", "--secrets", secrets]
                + commissionInputs(room: "Nowhere"))
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let worker = await matterflowVirtual(
            ["worker", "--store", conninfo, "--exit-when-idle", "--worker-id", "w-warn", "--secrets", secrets])
        #expect(worker.code == 0, "\(worker.stderr)")
        let json = await matterflow(["runs", "--store", conninfo, "--json"])
        let run = try #require(try JSONDocument.parse(json.stdout, file: "<out>").value.arrayValue?.first)
        #expect(run["status"] == "succeeded")
        let notes = run["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(notes.count == 1 && notes.first?.hasPrefix("warning: the device could not be configured (roomNotFound") == true, "\(notes)")
        let table = await matterflow(["runs", "--store", conninfo])
        #expect(table.stdout.contains("warning: the device could not be configured"), "\(table.stdout)")
    }

    @Test("workers: running, stopping and silent by heartbeat and flag; a silent worker's expired leases are counted and marked in runs")
    func liveStoppingAndSilent() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try store.registerWorker("w-live", host: "host-a", pid: 11, leaseSeconds: 10)
        try store.registerWorker("w-draining", host: "host-b", pid: 12, leaseSeconds: 10)
        try store.markStopping("w-draining")
        try store.registerWorker("w-dead", host: "host-c", pid: 13, leaseSeconds: 10)
        try TestPostgres.insertRunning([("run-held", "s1", "w-live"), ("run-orphan", "s2", "w-dead"), ("run-orphan-2", "s3", "w-dead")], into: store)
        try store.execute("UPDATE matterflow_runs SET lease_until = now() + interval '10 seconds' WHERE run_id = 'run-held'", doing: "test")
        // The dead worker last heartbeat 3 minutes ago; its leases ran out long since.
        try store.execute("UPDATE matterflow_workers SET heartbeat_at = now() - interval '3 minutes' WHERE worker_id = 'w-dead'", doing: "test")
        try store.execute("UPDATE matterflow_runs SET lease_until = now() - interval '170 seconds' WHERE worker_id = 'w-dead'", doing: "test")

        let workers = try store.workers()
        #expect(workers.map(\.workerID) == ["w-live", "w-draining", "w-dead"])
        #expect(workers.map(\.state) == [.running, .stopping, .silent])
        #expect(workers.map(\.leasedRuns) == [1, 0, 0])
        #expect(workers.map(\.expiredRuns) == [0, 0, 2])
        #expect(workers[2].heartbeatAge >= 179 && workers[2].heartbeatAge < 240)

        let table = await matterflow(["workers", "--store", conninfo])
        #expect(table.code == 0)
        let lines = table.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("WORKER") == true)
        let dead = try #require(lines.first { $0.hasPrefix("w-dead") })
        #expect(dead.contains("silent") && dead.contains("3 min ago") && dead.contains("2 runs with an expired lease, to be taken over"), "\(dead)")
        let runs = await matterflow(["runs", "--store", conninfo])
        let orphan = try #require(runs.stdout.split(separator: "\n").first { $0.hasPrefix("run-orphan ") })
        #expect(orphan.contains("lease expired: another worker takes it over"), "\(orphan)")
        #expect(runs.stdout.split(separator: "\n").first { $0.hasPrefix("run-held ") }?.contains("lease expired") == false)

        // A probe: the dead worker's runs have waited for a takeover far longer than a lease.
        let probe = await matterflow(["workers", "--store", conninfo, "--check"])
        #expect(probe.code == 1, "\(probe.stdout)")
        let said = probe.stdout.split(separator: "\n").map(String.init)
        #expect(said.first == "1 problem: 1 worker running", "\(probe.stdout)")
        #expect(said.dropFirst().first?.hasPrefix("problem: worker w-dead on host-c went silent 3 min ago holding 2 runs no worker has taken over") == true, "\(probe.stdout)")
        let wanting = await matterflow(["workers", "--store", conninfo, "--check", "--min-workers", "2", "--json"])
        #expect(wanting.code == 1)
        let report = try JSONDocument.parse(wanting.stdout, file: "<out>").value
        #expect(report["healthy"] == false && report["running"] == 1 && report["held"] == 1, "\(wanting.stdout)")
        #expect(report["problems"]?.arrayValue?.first?.stringValue?.hasPrefix("1 worker running, 2 wanted") == true, "\(wanting.stdout)")
        #expect(await matterflow(["workers", "--store", conninfo, "--min-workers", "2"]).code == 64, "--min-workers needs --check")

        // A worker registered again under the same ID starts afresh, on its new host.
        try store.registerWorker("w-dead", host: "host-d", pid: 14, leaseSeconds: 5)
        let again = try #require(try store.workers().first { $0.workerID == "w-dead" })
        #expect(again.state == .running && again.host == "host-d" && again.pid == 14 && again.leaseSeconds == 5)
        let healthy = await matterflow(["workers", "--store", conninfo, "--check", "--min-workers", "2"])
        #expect(healthy.code == 0 && healthy.stdout == "ok: 2 workers running, holding 1 run\n", "\(healthy.stdout)")
        // A worker built for another schema than the store's (not the probe's) is a problem.
        try store.execute("UPDATE matterflow_workers SET schema_version = schema_version - 1 WHERE worker_id = 'w-live'", doing: "test")
        let skewed = await matterflow(["workers", "--store", conninfo, "--check"])
        #expect(skewed.code == 1, "\(skewed.stdout)")
        #expect(skewed.stdout.contains("problem: worker w-live on host-a is built for schema \(StoreMigrations.latest - 1), the store's is \(StoreMigrations.latest)"), "\(skewed.stdout)")
        #expect(await matterflow(["workers", "--store", "/tmp"]).code == 64, "a journal directory has no workers")
    }

    @Test("a worker ID whose heartbeat moves is refused, whatever host and PID; one whose heartbeat stands still, or that stopped, is taken; a long lease is refused until it passes")
    func workerIDInUse() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        func refusal(_ body: () throws(StoreError) -> Void) -> StoreError? {
            do throws(StoreError) {
                try body()
                return nil
            } catch {
                return error
            }
        }
        let beat: (Duration) -> Void = { _ in
            _ = try? store.execute("UPDATE matterflow_workers SET heartbeat_at = heartbeat_at + interval '1 millisecond' WHERE worker_id = 'dup'", doing: "test")
        }
        try store.registerWorker("dup", host: "host-a", pid: 21, leaseSeconds: 1)
        // Live (its heartbeat moves while the newcomer watches): refused, on another host as in a container that
        // repeats this one's host name and PID.
        for (host, pid) in [("host-b", 21), ("host-a", 21), ("host-a", 22)] {
            let refused = refusal { () throws(StoreError) in try store.registerWorker("dup", host: host, pid: pid, leaseSeconds: 1, waiting: beat) }
            #expect(refused?.code == .workerIDInUse, "\(host) \(pid)")
            #expect(refused?.message.hasPrefix("worker ID dup is in use by a live worker (host host-a, process 21)") == true, "\(String(describing: refused))")
        }
        #expect(try store.workers().map(\.pid) == [21], "the refused workers changed nothing")

        // Dead a moment ago (its heartbeat stands still for half its lease): taken over, also by its own host and PID.
        var watched: [Duration] = []
        try store.registerWorker("dup", host: "host-a", pid: 21, leaseSeconds: 1) { watched.append($0) }
        #expect(watched == [.milliseconds(500)])
        try store.registerWorker("dup", host: "host-b", pid: 30, leaseSeconds: 1) { _ in }
        #expect(try store.workers().map(\.host) == ["host-b"])
        // Stopped: taken at once.
        try store.markStopped("dup")
        try store.registerWorker("dup", host: "host-c", pid: 31, leaseSeconds: 1) { _ in Issue.record("a stopped worker's ID was watched") }
        // A lease too long to watch: refused until it has passed.
        try store.registerWorker("long", host: "host-a", pid: 40, leaseSeconds: 3600)
        #expect(refusal { () throws(StoreError) in try store.registerWorker("long", host: "host-b", pid: 41, leaseSeconds: 10) { _ in } }?.code == .workerIDInUse)

        // From the command line: exit 2, saying which worker has the ID, while that one heartbeats.
        let beating = Mutex(true)
        Thread.detachNewThread {
            while beating.withLock({ $0 }) {
                _ = try? store.execute("UPDATE matterflow_workers SET heartbeat_at = now() WHERE worker_id = 'dup'", doing: "test")
                usleep(100_000)
            }
        }
        defer { beating.withLock { $0 = false } }
        let twin = await matterflow(["worker", "--store", conninfo, "--worker-id", "dup", "--exit-when-idle"])
        #expect(twin.code == 2, "\(twin.stderr)")
        #expect(twin.stderr.contains("watching its heartbeat for 0.5 s before taking the ID"), "\(twin.stderr)")
        #expect(twin.stderr.contains("error[workerIDInUse]: worker ID dup is in use by a live worker (host host-c, process 31)"), "\(twin.stderr)")
    }

    @Test("store prune removes the rows of workers long gone (stopped, or silent past their lease) that hold no run, and no other")
    func pruneWorkers() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        for worker in ["w-stopped-old", "w-silent-old", "w-silent-holding", "w-stopped-recent", "w-live", "w-slow-lease"] {
            try store.registerWorker(worker, host: "h", pid: 1, leaseSeconds: worker == "w-slow-lease" ? 7200 : 10)
        }
        try store.markStopped("w-stopped-old")
        try store.markStopped("w-stopped-recent")
        try TestPostgres.insertRunning([("run-held", "s1", "w-silent-holding")], into: store)
        try store.execute(
            """
            UPDATE matterflow_workers SET heartbeat_at = now() - interval '2 days'
            WHERE worker_id IN ('w-stopped-old', 'w-silent-old', 'w-silent-holding')
            """, doing: "test")
        try store.execute("UPDATE matterflow_workers SET heartbeat_at = now() - interval '10 minutes' WHERE worker_id = 'w-stopped-recent'", doing: "test")
        // Not heard from for 90 minutes, but its lease is 2 hours: not silent yet.
        try store.execute("UPDATE matterflow_workers SET heartbeat_at = now() - interval '90 minutes' WHERE worker_id = 'w-slow-lease'", doing: "test")

        let gone = "2 workers gone since before then (stopped, or silent for longer than their lease) and holding no run: w-silent-old, w-stopped-old\n"
        let dry = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "1h", "--dry-run"])
        #expect(dry.code == 0, "\(dry.stderr)")
        #expect(dry.stdout.hasSuffix("would remove " + gone), "\(dry.stdout)")
        #expect(try store.workers(includingStopped: true).count == 6)
        let pruned = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "1h"])
        #expect(pruned.code == 0, "\(pruned.stderr)")
        #expect(pruned.stdout.hasSuffix("removed " + gone), "\(pruned.stdout)")
        #expect(try store.workers(includingStopped: true).map(\.workerID).sorted() == ["w-live", "w-silent-holding", "w-slow-lease", "w-stopped-recent"])
        let again = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "1h"])
        #expect(!again.stdout.contains("worker"), "nothing more goes: \(again.stdout)")
    }

    @Test("runs --since and --limit: the newest runs started since, oldest first, from the store and from a journal directory; a span back from now counts from the store's clock, not this machine's")
    func sinceAndLimit() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        // Five queued runs, submitted an hour apart, the last a minute before the store's now (called noon here).
        let noon = try store.currentTime() - 60
        for index in 1...5 {
            #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", "run-00000000000\(index)"]).code == 0)
            try store.execute(
                "UPDATE matterflow_runs SET submitted_at = to_timestamp($1::float8) WHERE run_id = $2",
                [String(noon - Double(5 - index) * 3600), "run-00000000000\(index)"], doing: "test")
        }
        // This machine's clock is two hours ahead of the store's: spans count from the store's all the same.
        func listed(_ options: [String], now: Double = noon + 60 + 7200) async -> [String] {
            let run = await matterflow(["runs", "--store", conninfo, "--json"] + options, now: now)
            return (try? JSONDocument.parse(run.stdout, file: "<out>").value.arrayValue)?.compactMap { $0["runID"]?.stringValue } ?? ["exit \(run.code): \(run.stderr)"]
        }
        #expect(await listed(["--limit", "2"]) == ["run-000000000004", "run-000000000005"])
        let tenOClock = try #require(UTCTime.iso8601Seconds((noon - 7200).rounded(.down)))
        #expect(await listed(["--since", tenOClock]) == ["run-000000000003", "run-000000000004", "run-000000000005"])
        #expect(await listed(["--since", "90m"]) == ["run-000000000004", "run-000000000005"], "back from now: 10:31")
        #expect(await listed(["--since", "3h", "--limit", "1", "--status", "queued"]) == ["run-000000000005"])
        #expect(await listed(["--status", "succeeded"]) == [])

        for bad in [["--limit", "0"], ["--limit", "x"], ["--since", "yesterday"], ["--since", "+5m"], ["--waiting", "--limit", "3"]] {
            let refused = await matterflow(["runs", "--store", conninfo] + bad)
            #expect(refused.code == 64, "\(bad): \(refused.stderr)")
        }

        // A journal directory's runs are filtered the same way.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        for _ in 0..<3 {
            #expect(await matterflow(["run", Repository.workflow("prepare"), "--journal", journal]).code == 0)
        }
        let all = await matterflow(["runs", "--journal", journal, "--json"])
        let ids = try #require(try JSONDocument.parse(all.stdout, file: "<out>").value.arrayValue).compactMap { $0["runID"]?.stringValue }
        #expect(ids.count == 3)
        let newest = await matterflow(["runs", "--journal", journal, "--json", "--limit", "1"])
        #expect(try JSONDocument.parse(newest.stdout, file: "<out>").value.arrayValue?.compactMap { $0["runID"]?.stringValue } == [ids[2]])
        let future = await matterflow(["runs", "--journal", journal, "--since", "2099-01-01T00:00:00Z"])
        #expect(future.code == 0 && future.stdout.isEmpty)
    }

    @Test("runs lists the newest 100 unless told otherwise, and says when more match; --all lists every one; --limit and --all together are a usage error")
    func defaultLimit() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try store.execute(
            """
            INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, submitted_at)
            SELECT 'run-' || lpad(i::text, 12, '0'), 'w', '/w.json', 'home-' || i, '{}', 'queued', now() - make_interval(secs => 1000 - i)
            FROM generate_series(1, 103) AS i
            """, doing: "test setup")
        func runIDs(_ stdout: String) -> [String] {
            (try? JSONDocument.parse(stdout, file: "<out>").value.arrayValue)?.compactMap { $0["runID"]?.stringValue } ?? []
        }
        let note = "note: the newest 100 runs are listed, and more match: --limit N lists the newest N, --all every one (--status and --since narrow them)\n"

        let plain = await matterflow(["runs", "--store", conninfo])
        #expect(plain.code == 0 && plain.stderr == note, "\(plain.stderr)")
        let lines = plain.stdout.split(separator: "\n")
        #expect(lines.count == 101, "a header and 100 runs: \(lines.count)")
        #expect(lines.dropFirst().first?.hasPrefix("run-000000000004 ") == true && lines.last?.hasPrefix("run-000000000103 ") == true)

        let json = await matterflow(["runs", "--store", conninfo, "--json"])
        #expect(runIDs(json.stdout).count == 100 && runIDs(json.stdout).first == "run-000000000004" && json.stderr == note, "\(json.stderr)")
        let every = await matterflow(["runs", "--store", conninfo, "--json", "--all"])
        #expect(runIDs(every.stdout).count == 103 && every.stderr.isEmpty, "\(every.stderr)")
        let asked = await matterflow(["runs", "--store", conninfo, "--json", "--limit", "101"])
        #expect(runIDs(asked.stdout).count == 101 && asked.stderr.isEmpty, "a limit given is no cut to note: \(asked.stderr)")
        try store.execute("UPDATE matterflow_runs SET status = 'failed', finished_at = now() WHERE run_id <= 'run-000000000100'", doing: "test")
        let exactly = await matterflow(["runs", "--store", conninfo, "--json", "--status", "failed"])
        #expect(runIDs(exactly.stdout).count == 100 && exactly.stderr.isEmpty, "exactly 100 match: nothing more to say: \(exactly.stderr)")

        for bad in [["--limit", "5", "--all"], ["--waiting", "--all"]] {
            let refused = await matterflow(["runs", "--store", conninfo] + bad)
            #expect(refused.code == 64, "\(bad): \(refused.stderr)")
        }
    }

    @Test("a journal directory's runs are capped alike: the newest 100, a note when more match, --all every one")
    func journalDefaultLimit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        for _ in 0..<102 {
            #expect(await matterflow(["run", Repository.workflow("cancel"), "--journal", journal]).code == 0)
        }
        func runIDs(_ stdout: String) -> [String] {
            (try? JSONDocument.parse(stdout, file: "<out>").value.arrayValue)?.compactMap { $0["runID"]?.stringValue } ?? []
        }
        let every = await matterflow(["runs", "--journal", journal, "--json", "--all"])
        let all = runIDs(every.stdout)
        #expect(all.count == 102 && every.stderr.isEmpty, "\(every.stderr)")
        let plain = await matterflow(["runs", "--journal", journal, "--json"])
        #expect(runIDs(plain.stdout) == Array(all.suffix(100)), "the newest 100, oldest first")
        #expect(plain.stderr.hasPrefix("note: the newest 100 runs are listed, and more match"), "\(plain.stderr)")
        let table = await matterflow(["runs", "--journal", journal])
        #expect(table.stdout.split(separator: "\n").count == 101, "a header and 100 runs")
    }

    @Test("spans and moments on the command line")
    func ages() throws {
        #expect(try AgeOption.seconds("90d", option: "older-than", command: "x") == 90 * 86_400)
        #expect(try AgeOption.seconds("0s", option: "older-than", command: "x") == 0)
        for bad in ["", "d", "-1d", "+1d", "1.5h", "36501d", "1w", "١h"] {
            #expect(throws: UsageError.self, "\(bad)") { try AgeOption.seconds(bad, option: "older-than", command: "x") }
        }
        #expect(try AgeOption.moment("2h", option: "since", command: "x", now: 10_000) == 2_800)
        #expect(try AgeOption.moment("1970-01-01T01:00:00Z", option: "since", command: "x", now: 0) == 3_600)
        let error = #expect(throws: UsageError.self) { try AgeOption.moment("2026-13-01T00:00:00Z", option: "since", command: "x", now: 0) }
        #expect(error?.message.contains("--since must be a time back from now") == true)
        // What runs prints (UTC) pasted back, a date alone, a compact offset: the same moments as their ISO forms.
        let printed = RunsCommand.timestamp(1_765_000_000)
        #expect(try AgeOption.moment(printed, option: "since", command: "x", now: 0) == 1_765_000_000, "\(printed)")
        #expect(try AgeOption.moment("1970-01-02", option: "since", command: "x", now: 0) == 86_400)
        #expect(try AgeOption.moment("1970-01-01T02:00:00+0100", option: "since", command: "x", now: 0) == 3_600)
        #expect(try AgeOption.moment("1970-01-01T00:00:00-0130", option: "since", command: "x", now: 0) == 5_400)
        // A date and time without a zone in ISO form could be any zone's: refused, never taken for UTC or local time.
        for bad in ["1970-01-01T00:00:00", "1970-01-01 00:00", "1970-01-01 00:00:00Z", "1970-1-01", "1970-01-01T00:00:00+01", "2026-12-05 25:00:00"] {
            #expect(throws: UsageError.self, "\(bad)") { try AgeOption.moment(bad, option: "since", command: "x", now: 0) }
        }
    }
}
