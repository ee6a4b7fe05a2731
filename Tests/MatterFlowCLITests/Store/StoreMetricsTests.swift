import Foundation
@testable import MatterFlowCLI
import MatterFlowJSON
@testable import MatterFlowStore
import Synchronization
import Testing

/// `matterflow store metrics`: what a monitoring system scrapes from a fleet's store.
@Suite(.serialized) struct StoreMetricsTests {
    @Test("the text format: whole numbers bare, fractions and infinities as Prometheus writes them, label values and help escaped")
    func textFormat() {
        #expect(PrometheusText.number(3) == "3" && PrometheusText.number(0) == "0" && PrometheusText.number(-2) == "-2")
        #expect(PrometheusText.number(2.5) == "2.5" && PrometheusText.number(.nan) == "NaN")
        #expect(PrometheusText.number(.infinity) == "+Inf" && PrometheusText.number(-.infinity) == "-Inf")
        #expect(PrometheusText.escapingLabel(#"a\b"c"# + "\r\nd") == #"a\\b\"c"# + "\r\\nd")
        #expect(PrometheusText.escapingHelp(#"say "hi"\"# + "\n") == #"say "hi"\\\n"#)
        var text = PrometheusText()
        text.family("m", "Help.", [([("k", "v"), ("w", "x y")], 1), ([], 0.25)])
        text.family("empty", "Nothing.", [])
        #expect(text.text == "# HELP m Help.\n# TYPE m gauge\nm{k=\"v\",w=\"x y\"} 1\nm 0.25\n# HELP empty Nothing.\n# TYPE empty gauge\n")
    }

    @Test("a server that is a standby (in recovery) is said to be one: matterflow_store_in_recovery 1, and a problem for workers --check; a primary fenced with default_transaction_read_only is said to be one: matterflow_store_read_only_default 1, and a problem")
    func standbyIsSaid() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try store.registerWorker("w1", host: "host-a", pid: 11, leaseSeconds: 3600)
        let primary = await matterflow(["store", "metrics", "--store", conninfo])
        #expect(primary.stdout.split(separator: "\n").contains("matterflow_store_in_recovery 0"), "\(primary.stdout)")
        #expect(primary.stdout.split(separator: "\n").contains("matterflow_store_read_only_default 0"), "\(primary.stdout)")
        #expect(await matterflow(["workers", "--check", "--store", conninfo]).code == 0)
        // A standby as pg_is_in_recovery() answers: a function of that name that connections searching public before
        // pg_catalog find first (so the store's statements must call it unqualified).
        try store.execute("CREATE FUNCTION public.pg_is_in_recovery() RETURNS boolean LANGUAGE sql AS 'SELECT true'", doing: "test setup")
        let standby = conninfo + " options='-c search_path=public,pg_catalog'"
        let metrics = await matterflow(["store", "metrics", "--store", standby])
        #expect(metrics.code == 0, "\(metrics.stderr)")
        #expect(metrics.stdout.split(separator: "\n").contains("matterflow_store_in_recovery 1"), "\(metrics.stdout)")
        let check = await matterflow(["workers", "--check", "--store", standby])
        #expect(check.code == 1, "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.split(separator: "\n").map(String.init) == [
            "1 problem: 1 worker running",
            "problem: the server read is a standby (in recovery), which takes no writes: no worker can use it, and what it says of the workers may lag the primary's; \(StoreError.readOnlyAdvice)",
        ])
        // A probe whose own role or connection is kept read-only (as monitoring roles often are) reads a healthy fleet.
        let readOnlyProbe = conninfo + " target_session_attrs=any options='-c default_transaction_read_only=on'"
        let probed = await matterflow(["workers", "--check", "--store", readOnlyProbe])
        #expect(probed.code == 0, "\(probed.stdout)\(probed.stderr)")
        let probedMetrics = await matterflow(["store", "metrics", "--store", readOnlyProbe])
        #expect(probedMetrics.stdout.split(separator: "\n").contains("matterflow_store_read_only_default 0"), "\(probedMetrics.stdout)")
        // A database fenced with default_transaction_read_only, reached with target_session_attrs=any: no worker can
        // write there either.
        let name = try #require(conninfo.split(separator: " ").first { $0.hasPrefix("dbname=") }).dropFirst("dbname=".count)
        let admin = try PostgresConnection(try TestPostgres.server())
        defer { admin.close() }
        try admin.execute("ALTER DATABASE \(name) SET default_transaction_read_only = on")
        let fencedCheck = await matterflow(["workers", "--check", "--store", conninfo + " target_session_attrs=any"])
        let fencedMetrics = await matterflow(["store", "metrics", "--store", conninfo + " target_session_attrs=any"])
        try admin.execute("ALTER DATABASE \(name) RESET default_transaction_read_only")
        #expect(fencedMetrics.code == 0, "\(fencedMetrics.stderr)")
        #expect(fencedMetrics.stdout.split(separator: "\n").contains("matterflow_store_read_only_default 1"), "\(fencedMetrics.stdout)")
        #expect(fencedMetrics.stdout.split(separator: "\n").contains("matterflow_store_in_recovery 0"), "\(fencedMetrics.stdout)")
        #expect(fencedCheck.code == 1, "\(fencedCheck.stdout)\(fencedCheck.stderr)")
        #expect(fencedCheck.stdout.split(separator: "\n").map(String.init) == [
            "1 problem: 1 worker running",
            "problem: the server read is a primary with default_transaction_read_only on, which takes no writes: no worker can use it; \(StoreError.readOnlyAdvice)",
        ])
    }

    @Test("every series the alert rules of docs/store.md use is one that store metrics or a worker's metrics file writes")
    func documentedRulesUseWrittenSeries() async throws {
        let documentation = try String(contentsOfFile: Repository.root + "/docs/store.md", encoding: .utf8)
        // The series named in the documentation's YAML blocks (its alert rules).
        var used: Set<String> = []
        var inRules = false
        for line in documentation.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                inRules = line == "```yaml"
            } else if inRules {
                used.formUnion(line.matches(of: /matterflow_[a-z_]+/).map { String($0.output) })
            }
        }
        #expect(used.count >= 10, "\(used.sorted())")
        let scrape = await matterflow(["store", "metrics", "--store", try TestPostgres.database()])
        #expect(scrape.code == 0, "\(scrape.stderr)")
        let worker = WorkerMetrics(
            workerID: "w", startedAt: 0, summary: WorkerSummary(), active: 0, waiting: 0, claimedAhead: 0, storeReachable: true, stopping: false,
            reportedAt: 0)
        let written = Set((scrape.stdout + worker.prometheusText).split(separator: "\n").compactMap { line -> String? in
            line.hasPrefix("# TYPE ") ? line.split(separator: " ").dropFirst(2).first.map(String.init) : nil
        })
        #expect(used.subtracting(written).isEmpty, "rules name series nothing writes: \(used.subtracting(written).sorted())")
    }

    @Test("a store's queue, leases, sessions, runs needing attention and workers, each status and state written also when 0; --output replaces a file")
    func storeFigures() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        // An empty store: every family is there, at 0.
        let empty = await matterflow(["store", "metrics", "--store", conninfo])
        #expect(empty.code == 0, "\(empty.stderr)")
        for sample in [
            #"matterflow_runs{status="queued"} 0"#, #"matterflow_runs{status="needsAttention"} 0"#, "matterflow_queue_oldest_age_seconds 0",
            #"matterflow_workers{state="silent"} 0"#, "matterflow_sessions_held 0", "matterflow_store_schema_version \(StoreMigrations.latest)",
        ] {
            #expect(empty.stdout.split(separator: "\n").contains { $0 == sample }, "\(sample) in \(empty.stdout)")
        }

        try store.registerWorker("w-live", host: "host-a", pid: 11, leaseSeconds: 10)
        try store.registerWorker("w-dead", host: "host-\"b\"", pid: 12, leaseSeconds: 10)
        try store.registerWorker("w-gone", host: "host-c", pid: 13, leaseSeconds: 10)
        try store.markStopped("w-gone")
        try TestPostgres.insertRunning([("run-held", "s1", "w-live"), ("run-orphan", "s2", "w-dead"), ("run-stuck", "s3", "w-live")], into: store)
        try store.execute("UPDATE matterflow_runs SET lease_until = now() + interval '10 seconds' WHERE run_id <> 'run-orphan'", doing: "test")
        try store.execute("UPDATE matterflow_workers SET heartbeat_at = now() - interval '2 minutes' WHERE worker_id = 'w-dead'", doing: "test")
        try store.execute("UPDATE matterflow_runs SET lease_until = now() - interval '100 seconds' WHERE run_id = 'run-orphan'", doing: "test")
        try store.execute("UPDATE matterflow_runs SET cancel_requested_at = now(), hub_failures = 2 WHERE run_id = 'run-held'", doing: "test")
        try store.execute("INSERT INTO matterflow_sessions (structure_id, run_id) VALUES ('s1', 'run-held')", doing: "test")
        // Queued runs, the oldest submitted five minutes ago; one ended needing attention, one succeeded (not counted).
        for (run, status) in [("run-q1", "queued"), ("run-q2", "queued"), ("run-doubt", "needsAttention"), ("run-done", "succeeded")] {
            try store.execute(
                "INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status) VALUES ($1, 'w', '/w.json', 's9', '{}', $2)",
                [run, status], doing: "test")
        }
        try store.execute("UPDATE matterflow_runs SET submitted_at = now() - interval '5 minutes' WHERE run_id = 'run-q1'", doing: "test")

        let metrics = try store.metrics()
        #expect(metrics.queued == 2 && metrics.running == 3 && metrics.needsAttention == 1, "\(metrics)")
        #expect(metrics.oldestQueuedAge >= 299 && metrics.oldestQueuedAge < 400, "\(metrics.oldestQueuedAge)")
        #expect(metrics.leaseExpired == 1 && metrics.startFailures == 1 && metrics.cancelsPending == 1 && metrics.sessionsHeld == 1, "\(metrics)")
        #expect(metrics.waitingForAnswer == 0 && metrics.oldestQuestionAge == 0)

        let printed = await matterflow(["store", "metrics", "--store", conninfo])
        #expect(printed.code == 0, "\(printed.stderr)")
        let lines = Set(printed.stdout.split(separator: "\n").map(String.init))
        for sample in [
            #"matterflow_runs{status="queued"} 2"#, #"matterflow_runs{status="running"} 3"#, #"matterflow_runs{status="needsAttention"} 1"#,
            "matterflow_runs_lease_expired 1", "matterflow_runs_start_failures 1", "matterflow_runs_cancel_pending 1", "matterflow_sessions_held 1",
            #"matterflow_workers{state="running"} 1"#, #"matterflow_workers{state="stopping"} 0"#, #"matterflow_workers{state="stopped"} 1"#,
            #"matterflow_workers{state="silent"} 1"#, #"matterflow_worker_runs_held{worker="w-live",host="host-a"} 2"#,
            #"matterflow_worker_runs_lease_expired{worker="w-dead",host="host-\"b\""} 1"#,
        ] {
            #expect(lines.contains(sample), "\(sample) in \(printed.stdout)")
        }
        #expect(!printed.stdout.contains("w-gone"), "a stopped worker is counted, not listed")
        let info = try #require(lines.first { $0.hasPrefix(#"matterflow_worker_info{worker="w-live""#) })
        #expect(info.contains(#"state="running""#) && info.contains(#"schema="\#(StoreMigrations.latest)""#) && info.hasSuffix("} 1"), "\(info)")
        // Every sample line is a name, optional labels and a number; every family has its help and type.
        for line in lines where !line.hasPrefix("#") {
            let value = try #require(line.split(separator: " ").last)
            #expect(Double(value) != nil, "\(line)")
        }
        #expect(printed.stdout.components(separatedBy: "# HELP ").count == printed.stdout.components(separatedBy: "# TYPE ").count)

        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path + "/matterflow.prom"
        try "stale".write(toFile: file, atomically: true, encoding: .utf8)
        let written = await matterflow(["store", "metrics", "--store", conninfo, "--output", file])
        #expect(written.code == 0 && written.stdout.isEmpty, "\(written.stderr)")
        let kept = try String(contentsOfFile: file, encoding: .utf8)
        #expect(kept.hasPrefix("# HELP matterflow_store_schema_version") && kept.contains(#"matterflow_runs{status="queued"} 2"#), "\(kept)")
        #expect(kept.contains("\nmatterflow_store_scrape_success 1\n"), "\(kept)")
        let stamp = kept.split(separator: "\n").first { $0.hasPrefix("matterflow_store_scrape_timestamp_seconds ") }?.split(separator: " ").last
        #expect(stamp.flatMap { Double($0) }.map { abs($0 - Date().timeIntervalSince1970) < 600 } == true, "\(kept)")
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o044 } == 0o044, "readable by a collector running as another user")
        let unwritable = await matterflow(["store", "metrics", "--store", conninfo, "--output", directory.path + "/missing/m.prom"])
        #expect(unwritable.code == 2 && unwritable.stderr.hasPrefix("error[outputNotWritten]: the metrics could not be written"), "\(unwritable.stderr)")
    }

    @Test("the runs waiting for answers are found from the open runs: the records of thousands of ended runs are not read")
    func waitingReadsOnlyOpenRuns() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try store.execute(
            """
            INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, finished_at)
            SELECT 'run-' || g, 'w', '/w.json', 's' || (g % 50), '{}', 'succeeded', now() FROM generate_series(1, 3000) g
            """, doing: "test")
        try store.execute(
            """
            INSERT INTO matterflow_record_batches (run_id, first_seq, last_seq, records)
            SELECT 'run-' || g, s * 10 + 1, s * 10 + 10, '[' || repeat('{"type":"event","name":"stateEntered","state":"somewhere"},', 30) || '{}]'
            FROM generate_series(1, 3000) g, generate_series(0, 6) s
            """, doing: "test")
        try TestPostgres.insertRunning([("run-open", "s1", "w1")], into: store)
        let plan = try store.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + PostgresRunStore.askedRecordsStatement, doing: "test")
        let text = plan.rows.first?.first.flatMap { $0 } ?? ""
        let blocks = try #require(try JSONDocument.parse(text, file: "<plan>").value.arrayValue?.first?["Plan"])
        let read = (blocks["Shared Hit Blocks"]?.intValue ?? 0) + (blocks["Shared Read Blocks"]?.intValue ?? 0)
        #expect(read < 100, "the statement read \(read) blocks: \(text)")
        #expect(try store.waitingRuns().isEmpty)
    }

    @Test("runs lists the newest runs from the index of every run by submission: a store of 60,000 ended runs is not read whole")
    func newestRunsReadOnlyThose() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try store.execute(
            """
            INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, finished_at, submitted_at)
            SELECT 'run-' || g, 'commission-device', '/srv/workflows/commission-device.json', 'home-' || (g % 500),
                '{"deviceName": "Lamp", "roomName": "Kitchen"}', CASE WHEN g % 40 = 0 THEN 'failed' ELSE 'succeeded' END,
                now() - make_interval(secs => 70000 - g), now() - make_interval(secs => 70001 - g)
            FROM generate_series(1, 60000) g
            """, doing: "test")
        try store.execute("ANALYZE matterflow_runs", doing: "test")
        let plan = try store.execute(
            "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + PostgresRunStore.newestRuns, ["{}", nil, "101", "{}"], doing: "test")
        let text = plan.rows.first?.first.flatMap { $0 } ?? ""
        let blocks = try #require(try JSONDocument.parse(text, file: "<plan>").value.arrayValue?.first?["Plan"])
        let read = (blocks["Shared Hit Blocks"]?.intValue ?? 0) + (blocks["Shared Read Blocks"]?.intValue ?? 0)
        // The table is about 1,200 blocks; the 101 newest runs, read from the index, with a look at each one's records
        // for their count, about 210.
        #expect(read < 400, "the statement read \(read) blocks: \(text)")
        #expect(try store.runs(RunFilter(limit: 3)).map(\.runID) == ["run-59998", "run-59999", "run-60000"])
        #expect(try store.runs(RunFilter(statuses: ["failed"], limit: 2)).map(\.runID) == ["run-59960", "run-60000"])
    }

    @Test("worker --metrics-file: counters per final status (each written, 0 until one ends so), records and commits, rewritten as the worker goes and when it stops")
    func workerMetricsFile() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for structure in ["s1", "s2"] {
            #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--structure", structure]).code == 0)
        }
        let file = directory.path + "/worker.prom"
        let ran = await matterflowVirtual(["worker", "--store", conninfo, "--exit-when-idle", "--worker-id", "w-m", "--metrics-file", file])
        #expect(ran.code == 0, "\(ran.stderr)")
        let lines = Set(try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n").map(String.init))
        for sample in [
            #"matterflow_worker_runs_finished_total{worker="w-m",status="succeeded"} 2"#,
            #"matterflow_worker_runs_finished_total{worker="w-m",status="needsAttention"} 0"#,
            #"matterflow_worker_claim_failures_total{worker="w-m"} 0"#, #"matterflow_worker_runs_active{worker="w-m"} 0"#,
            #"matterflow_worker_store_reachable{worker="w-m"} 1"#, "# TYPE matterflow_worker_runs_finished_total counter",
        ] {
            #expect(lines.contains(sample), "\(sample) in \(lines.sorted())")
        }
        let records = try #require(lines.first { $0.hasPrefix("matterflow_worker_records_total{") }?.split(separator: " ").last.flatMap { Int($0) })
        #expect(records > 0)
        // The file of a worker that died keeps its last report: its time says how old it is.
        let reported = lines.first { $0.hasPrefix(#"matterflow_worker_metrics_timestamp_seconds{worker="w-m"} "#) }?.split(separator: " ").last
        #expect(reported.flatMap { Double($0) }.map { abs($0 - Date().timeIntervalSince1970) < 600 } == true, "\(lines.sorted())")
        // A file that cannot be written at start is refused before the worker claims anything: a typo would leave
        // it working with no metrics, which its alerts read as dead.
        #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--structure", "s3"]).code == 0)
        // A symbolic link is judged by what it leads to: into a directory that is not there, or to a directory.
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/dangling.prom", withDestinationPath: "missing/w.prom")
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/folder.prom", withDestinationPath: directory.path)
        // A socket takes no report either, though a file could be made beside it.
        let socket = try StartingServer.unixSocket(path: directory.path + "/socket.prom", listen: true)
        defer { close(socket) }
        for unwritable in [
            directory.path + "/missing/w.prom", directory.path, directory.path + "/dangling.prom", directory.path + "/folder.prom",
            directory.path + "/socket.prom",
        ] {
            let refused = await matterflowVirtual(["worker", "--store", conninfo, "--exit-when-idle", "--worker-id", "w-n", "--metrics-file", unwritable])
            #expect(refused.code == 2, "\(refused.stderr)")
            #expect(refused.stderr.hasPrefix("error[outputNotWritten]: --metrics-file \(unwritable) cannot be written ("), "\(refused.stderr)")
        }
        #expect(try PostgresRunStore(conninfo: conninfo).runs(RunFilter(statuses: ["queued"])).count == 1, "nothing was claimed")
        #expect(try PostgresRunStore(conninfo: conninfo).workers(includingStopped: true).allSatisfy { $0.workerID != "w-n" }, "it never registered")
    }

    @Test("the queue's startable age: counted from when a run was last queued (a hand-back restarts it), without the runs behind their structure's session")
    func startableAge() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        func insert(_ run: String, structure: String, status: String, submittedAgo: Int, worker: String? = nil) throws {
            try store.execute(
                """
                INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, worker_id, works_in_session,
                    submitted_at, lease_until)
                VALUES ($1, 'w', '/w.json', $2, '{}', $3, $4, true, now() - make_interval(secs => $5::float8),
                    CASE WHEN $3 = 'running' THEN now() + interval '1 hour' END)
                """, [run, structure, status, worker, String(submittedAgo)], doing: "test setup")
        }
        // Behind its structure's running session run for an hour: it cannot start, however many workers run.
        try insert("run-busy", structure: "s1", status: "running", submittedAgo: 7_200, worker: "w1")
        try insert("run-behind", structure: "s1", status: "queued", submittedAgo: 3_600)
        var metrics = try store.metrics()
        #expect(metrics.oldestQueuedAge >= 3_600 && metrics.oldestStartableAge == 0, "\(metrics.oldestQueuedAge) \(metrics.oldestStartableAge)")
        // Submitted two hours ago, worked on, handed back at a checkpoint just now: it has waited moments, not hours.
        try insert("run-parked", structure: "s2", status: "running", submittedAgo: 7_200, worker: "w1")
        try store.handBack(parked: ["run-parked"], by: "w1")
        metrics = try store.metrics()
        #expect(metrics.oldestQueuedAge >= 7_200, "\(metrics.oldestQueuedAge)")
        #expect(metrics.oldestStartableAge < 60, "\(metrics.oldestStartableAge)")
        // One that leaves the session alone, handed back a minute and a half ago after two hours: 90 s.
        try insert("run-free", structure: "s4", status: "running", submittedAgo: 7_200, worker: "w1")
        try store.execute("UPDATE matterflow_runs SET works_in_session = false WHERE run_id = 'run-free'", doing: "test setup")
        try store.handBack(parked: ["run-free"], by: "w1")
        try store.execute("UPDATE matterflow_runs SET queued_at = now() - interval '90 s' WHERE run_id = 'run-free'", doing: "test setup")
        metrics = try store.metrics()
        #expect(metrics.oldestStartableAge >= 90 && metrics.oldestStartableAge < 150, "\(metrics.oldestStartableAge)")
        // A run that could start and has waited long is what the alert is for.
        try insert("run-stuck", structure: "s3", status: "queued", submittedAgo: 900)
        metrics = try store.metrics()
        #expect(metrics.oldestStartableAge >= 900 && metrics.oldestStartableAge < 1_000, "\(metrics.oldestStartableAge)")
        #expect(metrics.prometheusText.split(separator: "\n").contains { $0.hasPrefix("matterflow_queue_oldest_startable_age_seconds 9") }, "\(metrics.prometheusText)")
    }

    @Test("reports queued out of the order they were taken in (two threads) leave the newest in the file")
    func metricsFileKeepsTheNewest() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/w.prom"
        let writer = MetricsFileWriter(path: path) { _ in }
        func report(at time: Double, reachable: Bool) -> WorkerMetrics {
            WorkerMetrics(
                workerID: "w-x", startedAt: 0, summary: WorkerSummary(), active: 0, waiting: 0, claimedAhead: 0, storeReachable: reachable,
                stopping: false, reportedAt: time)
        }
        writer.write(report(at: 200, reachable: true))
        writer.write(report(at: 100, reachable: false))
        writer.finish()
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("matterflow_worker_store_reachable{worker=\"w-x\"} 1\n") && text.contains("metrics_timestamp_seconds{worker=\"w-x\"} 200\n"), "\(text)")
    }

    @Test("a metrics file that stops being writable while the worker runs is said once, and again only after a write worked")
    func metricsFileFailuresSaidOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let warnings = Mutex<[String]>([])
        let writer = MetricsFileWriter(path: directory.path + "/later/w.prom") { line in warnings.withLock { $0.append(line) } }
        let metrics = WorkerMetrics(
            workerID: "w-x", startedAt: 0, summary: WorkerSummary(), active: 0, waiting: 0, claimedAhead: 0, storeReachable: true, stopping: false,
            reportedAt: 0)
        writer.write(metrics)
        writer.write(metrics)
        writer.finish()
        #expect(warnings.withLock { $0.count } == 1, "\(warnings.withLock { $0 })")
        #expect(warnings.withLock { $0.first?.hasPrefix("--metrics-file: the metrics could not be written") == true })
        try FileManager.default.createDirectory(atPath: directory.path + "/later", withIntermediateDirectories: false)
        writer.write(metrics)
        writer.finish()
        #expect(FileManager.default.fileExists(atPath: directory.path + "/later/w.prom"))
        try FileManager.default.removeItem(atPath: directory.path + "/later")
        writer.write(metrics)
        writer.finish()
        #expect(warnings.withLock { $0.count } == 2, "said again after a write had worked: \(warnings.withLock { $0 })")
    }

    @Test("metrics read a PostgreSQL store: a journal directory is a usage error; an unreachable store exits 2")
    func refusals() async throws {
        let journal = await matterflow(["store", "metrics", "--store", "/tmp"])
        #expect(journal.code == 64 && journal.stderr.contains("needs a PostgreSQL store"), "\(journal.stderr)")
        let unreachable = await matterflow(["store", "metrics", "--store", "host=/nonexistent-socket-dir dbname=x"])
        #expect(unreachable.code == 2 && unreachable.stderr.hasPrefix("error[storeUnavailable]"), "\(unreachable.stderr)")
        #expect(unreachable.stdout.isEmpty)
        // With --output, the last good scrape's figures do not stay behind to pass for current ones.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.path + "/matterflow.prom"
        try "matterflow_runs{status=\"queued\"} 0\n".write(toFile: file, atomically: true, encoding: .utf8)
        let failed = await matterflow(["store", "metrics", "--store", "host=/nonexistent-socket-dir dbname=x", "--output", file])
        #expect(failed.code == 2 && failed.stderr.hasPrefix("error[storeUnavailable]"), "\(failed.stderr)")
        let left = try String(contentsOfFile: file, encoding: .utf8)
        let samples = left.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(samples.count == 2 && samples.first == "matterflow_store_scrape_success 0", "\(left)")
        #expect(samples.last?.hasPrefix("matterflow_store_scrape_timestamp_seconds ") == true, "\(left)")
        #expect(await matterflow(["store", "metrics"]).code == 64)
    }
}
