import Foundation
@testable import MatterFlowCLI
import MatterFlowJournal
import MatterFlowJSON
@testable import MatterFlowStore
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `matterflow store prune` in PostgreSQL: which runs go (ended long enough ago, with a status named), with what,
/// and which never do.
extension PostgresStoreTests {
    /// When the test's own clock stands, in seconds since the Unix epoch: decades behind the server's, which the age
    /// of `--older-than` is measured by (the runs' end times are the server's).
    static let pruneEpoch: Double = 1_000_000

    @Test("prune removes runs that ended before the cutoff (by the server's clock, not this machine's) with their records, answers, watchers and leftover secrets; open runs, recent runs, runs needing attention and a run holding a session stay")
    func pruneStore() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        // This machine's clock, as the command sees it, is in 1970: by it every run below ended in the future.
        let now = Self.pruneEpoch
        let runs: [(String, String, Int?)] = [
            ("old-ok", "succeeded", 5), ("old-failed", "failed", 5), ("old-cancelled", "cancelled", 5),
            ("old-attention", "needsAttention", 5), ("old-holding", "failed", 5), ("recent", "succeeded", 3),
            ("waiting", "queued", nil), ("going", "running", nil),
        ]
        for (run, status, daysAgo) in runs {
            try store.execute(
                """
                INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, finished_at)
                VALUES ($1, 'w', '/w.json', 'home-' || $1, '{}', $2, now() - make_interval(days => $3::integer))
                """, [run, status, daysAgo.map { String($0) }], doing: "test setup")
        }
        for (run, first, last) in [("old-ok", 1, 3), ("old-ok", 4, 5), ("old-failed", 1, 2), ("recent", 1, 4), ("going", 1, 1)] {
            try store.execute(
                "INSERT INTO matterflow_record_batches (run_id, first_seq, last_seq, records) VALUES ($1, $2::integer, $3::integer, '[]')",
                [run, String(first), String(last)], doing: "test setup")
        }
        try store.execute(
            "INSERT INTO matterflow_answers (seq, answer_id, run_id, name, value, secret) VALUES (1, 'a1', 'old-ok', 'room', '\"Kitchen\"', false)",
            doing: "test setup")
        try store.execute("INSERT INTO matterflow_watchers (run_id, backend_pid) VALUES ('old-ok', 1)", doing: "test setup")
        try store.execute("INSERT INTO matterflow_sessions (structure_id, run_id) VALUES ('home-old-holding', 'old-holding')", doing: "test setup")
        // The cutoff printed is the server's now() less 4 days, to the second.
        let serverNow = try #require(Double(store.execute("SELECT extract(epoch FROM now())::float8", doing: "test").rows.first?[0] ?? ""))
        let cutoffs = Set([-1.0, 0, 1, 2].map { RunsCommand.timestamp((serverNow - 4 * 86_400 + $0).rounded(.down)) })
        let endsWithCutoff = { (line: String, prefix: String) in
            line.hasPrefix(prefix) && cutoffs.contains { line == prefix + $0 + " UTC\n" }
        }
        let secrets = try TemporaryDirectory()
        defer { secrets.remove() }
        for file in ["old-ok.secrets", "old-cancelled.answers", "recent.secrets"] { try secrets.write("{}", to: file) }
        let remaining = { try Set(store.runs().map(\.runID)) }

        let dry = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "4d", "--dry-run"], now: now)
        #expect(dry.code == 0, "\(dry.stderr)")
        #expect(Set(dry.stdout.split(separator: "\n").dropLast()) == ["old-cancelled", "old-failed", "old-ok"], "\(dry.stdout)")
        #expect(endsWithCutoff(dry.stdout.split(separator: "\n").last.map { $0 + "\n" } ?? "", "would remove 3 runs (7 records) that ended before "), "\(dry.stdout)")
        #expect(dry.stderr.contains("without --secrets, files these runs left in the secrets directory given to submit"), "\(dry.stderr)")
        #expect(try remaining().count == 8)

        let pruned = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "4d", "--secrets", secrets.path], now: now)
        #expect(pruned.code == 0, "\(pruned.stderr)")
        #expect(endsWithCutoff(pruned.stdout, "removed 3 runs (7 records) that ended before "), "\(pruned.stdout)")
        #expect(pruned.stderr.isEmpty, "with --secrets, their files go too: \(pruned.stderr)")
        #expect(try remaining() == ["old-attention", "old-holding", "recent", "waiting", "going"])
        let batches = try store.execute("SELECT run_id FROM matterflow_record_batches ORDER BY run_id", doing: "test")
        #expect(batches.rows == [["going"], ["recent"]])
        #expect(try store.execute("SELECT count(*) FROM matterflow_answers", doing: "test").rows == [["0"]])
        #expect(try store.execute("SELECT count(*) FROM matterflow_watchers", doing: "test").rows == [["0"]])
        #expect(try PostgresStoreTests.runFiles(in: secrets.path) == ["recent.secrets"])
        #expect(throws: StoreError.self) { try store.records(of: "old-ok") }

        // Again: nothing more goes. needsAttention only when named; 0s takes every ended run; a session's holder stays
        // until its session is released.
        #expect(await matterflow(["store", "prune", "--store", conninfo, "--older-than", "4d"], now: now).stdout.hasPrefix("removed 0 runs (0 records)"))
        let attention = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "4d", "--status", "needsAttention"], now: now)
        #expect(attention.stdout.hasPrefix("removed 1 run (0 records)"), "\(attention.stdout)")
        #expect(attention.stderr.contains("until a worker given that directory sweeps it (as it starts, then while idle); to remove them now, prune again with --secrets DIR"), "\(attention.stderr)")
        let everything = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "0s"], now: now)
        #expect(everything.stdout.hasPrefix("removed 1 run (4 records)"), "\(everything.stdout)")
        #expect(try remaining() == ["old-holding", "waiting", "going"])
        try store.execute("DELETE FROM matterflow_sessions", doing: "test")
        #expect(await matterflow(["store", "prune", "--store", conninfo, "--older-than", "0s"], now: now).stdout.hasPrefix("removed 1 run (0 records)"))
        #expect(try remaining() == ["waiting", "going"])
    }
}

extension PostgresStoreTests {
    @Test("a prune reads the runs that ended long enough ago and the workers' running runs, not every run the store keeps")
    func pruneReadsOnlyWhatGoes() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try store.execute(
            """
            INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, finished_at, submitted_at, finished_by)
            SELECT 'run-' || g, 'commission-device', '/srv/workflows/commission-device.json', 'home-' || (g % 500),
                '{"deviceName": "Lamp", "roomName": "Kitchen"}', 'succeeded', now() - make_interval(secs => 60000 - g),
                now() - make_interval(secs => 60001 - g), 'w-' || (g % 300)
            FROM generate_series(1, 60000) g
            """, doing: "test")
        try store.execute(
            """
            INSERT INTO matterflow_workers (worker_id, host, pid, heartbeat_at, stopped_at)
            SELECT 'w-' || g, 'host', g, now() - interval '200 days', now() - interval '200 days' FROM generate_series(1, 300) g
            """, doing: "test")
        try store.execute("ANALYZE matterflow_runs", doing: "test")
        let cutoff = String(Date().timeIntervalSince1970 - 100 * 86_400)
        // Nothing ended 100 days ago: the runs are read from the index of their ends, the workers' runs from the
        // running runs' index of their workers.
        for (condition, parameters) in [
            ("SELECT r.run_id FROM matterflow_runs r WHERE \(PostgresRunStore.prunable)", ["{succeeded,failed,cancelled}", cutoff, "{}", "{}"]),
            ("SELECT w.worker_id FROM matterflow_workers w WHERE \(PostgresRunStore.gone)", [cutoff]),
        ] {
            let plan = try store.execute("EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + condition, parameters, doing: "test")
            let text = plan.rows.first?.first.flatMap { $0 } ?? ""
            let blocks = try #require(try JSONDocument.parse(text, file: "<plan>").value.arrayValue?.first?["Plan"])
            let read = (blocks["Shared Hit Blocks"]?.intValue ?? 0) + (blocks["Shared Read Blocks"]?.intValue ?? 0)
            // The runs fill about 1,300 blocks.
            #expect(read < 100, "the statement read \(read) blocks: \(text)")
        }
    }

    @Test("store prune --workers removes the rows of workers gone and holding no run, and no run; --older-than bounds them, --dry-run lists them")
    func pruneWorkersOnly() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        // A lease of an hour: w-live stays live however slowly the test runs.
        for worker in ["w-live", "w-crashed", "w-stopped", "w-holding", "w-recent"] {
            try store.registerWorker(worker, host: "host", pid: 1, leaseSeconds: 3600)
        }
        try store.execute("UPDATE matterflow_workers SET heartbeat_at = now() - interval '2 days' WHERE worker_id IN ('w-crashed', 'w-holding')", doing: "test")
        try store.execute("UPDATE matterflow_workers SET heartbeat_at = now() - interval '2 hours' WHERE worker_id = 'w-recent'", doing: "test")
        try store.markStopped("w-stopped")
        try store.execute("UPDATE matterflow_workers SET heartbeat_at = now() - interval '3 days' WHERE worker_id = 'w-stopped'", doing: "test")
        // A silent worker that still holds a run (its lease ran out): its row names the run's worker until a takeover.
        try TestPostgres.insertRunning([(run: "run-held", structure: "s1", worker: "w-holding")], into: store)
        try store.execute(
            "INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, finished_at) VALUES ('run-old', 'w', '/w.json', 's2', '{}', 'succeeded', now() - interval '90 days')",
            doing: "test")
        let dry = await matterflow(["store", "prune", "--store", conninfo, "--workers", "--older-than", "1d", "--dry-run"])
        #expect(dry.code == 0 && dry.stdout == "would remove 2 workers gone for more than 1d (stopped, or silent for longer than their lease) and holding no run: w-stopped, w-crashed\n", "\(dry.stdout)\(dry.stderr)")
        let bounded = await matterflow(["store", "prune", "--store", conninfo, "--workers", "--older-than", "1d"])
        #expect(bounded.code == 0 && bounded.stdout.hasPrefix("removed 2 workers gone for more than 1d"), "\(bounded.stdout)\(bounded.stderr)")
        let rest = await matterflow(["store", "prune", "--store", conninfo, "--workers"])
        #expect(rest.stdout == "removed 1 worker gone (stopped, or silent for longer than their lease) and holding no run: w-recent\n", "\(rest.stdout)")
        #expect(try store.workers(includingStopped: true).map(\.workerID).sorted() == ["w-holding", "w-live"])
        #expect(try store.runs(RunFilter(statuses: [])).map(\.runID).sorted() == ["run-held", "run-old"], "no run goes")
        let mixed = await matterflow(["store", "prune", "--store", conninfo, "--workers", "--structure", "s2"])
        #expect(mixed.code == 64 && mixed.stderr.contains("--workers removes workers' rows and no run; drop --structure"), "\(mixed.stderr)")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(await matterflow(["store", "prune", "--store", directory.path, "--workers"]).code == 64)
    }

    @Test("watch stops at a status it does not know instead of waiting for ever; --timeout 0 is a usage error; a timeout passed exits 3")
    func watchEnds() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        // As a newer MatterFlow's schema might allow.
        try store.execute("ALTER TABLE matterflow_runs DROP CONSTRAINT matterflow_runs_status_check", doing: "test setup")
        for (run, status) in [("later", "paused"), ("open", "queued")] {
            try store.execute(
                "INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status) VALUES ($1, 'w', '/w.json', 'home', '{}', $2)",
                [run, status], doing: "test setup")
        }
        let unknown = await matterflow(["watch", "later", "--store", conninfo])
        #expect(unknown.code == 2, "\(unknown.stderr)")
        #expect(unknown.stderr.contains(#"run later has status "paused", which this matterflow does not know"#), "\(unknown.stderr)")
        let zero = await matterflow(["watch", "open", "--store", conninfo, "--timeout", "0"])
        #expect(zero.code == 64 && zero.stderr.contains("more than 0 and at most 86400"), "\(zero.stderr)")
        let queued = await matterflow(["runs", "--store", conninfo, "--status", "queued"])
        #expect(queued.stdout.split(separator: "\n").map { $0.prefix(5) } == ["RUN  ", "open "], "\(queued.stdout)")
        #expect(await matterflow(["runs", "--store", conninfo, "--status", "notStarted"]).code == 64, "a journal's status, not the store's")
        let waited = await matterflow(["watch", "open", "--store", conninfo, "--timeout", "0.05"])
        #expect(waited.code == 3, "\(waited.stderr)")
        #expect(waited.stderr.contains("run open is still queued after --timeout"))
    }
}

/// `matterflow store prune` in a journal directory, and its usage errors.
@Suite("store prune")
struct StorePruneTests {
    @Test("a journal directory: ended runs' files go once old enough; an interrupted run and a run whose journal a process holds stay")
    func pruneJournalDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = Repository.workflow("commission-device")
        // Interrupted (killed while commissioning), then a run on the same home that fails (its session is held), and
        // one on another home that succeeds.
        let (state, journal) = try await killWhileCommissioning(workflow, in: directory)
        let failed = await matterflowVirtual(["run", workflow, "--state", state, "--journal", journal, "--trace", "none"] + commissionInputs())
        #expect(failed.code == 1)
        let succeeded = await matterflowVirtual(["run", workflow, "--state", directory.file("other"), "--journal", journal, "--trace", "none"] + commissionInputs())
        #expect(succeeded.code == 0, "\(succeeded.stderr)")
        let listed = try RunJournal(existingDirectory: journal).runs()
        let byStatus = Dictionary(listed.map { ($0.status, $0) }, uniquingKeysWith: { first, _ in first })
        let interrupted = try #require(byStatus[.interrupted]).runID
        let failedRun = try #require(byStatus[.failed]).runID
        let succeededRun = try #require(byStatus[.succeeded])
        // history reads one run of the directory by its journal alone.
        let history = await matterflow(["history", succeededRun.runID, "--store", journal])
        #expect(history.code == 0 && history.stdout.contains("status: succeeded"), "\(history.stdout)\(history.stderr)")
        #expect(await matterflow(["history", "run-000000000bad", "--store", journal]).stderr.contains("error[runNotFound]"))
        let now = Date().timeIntervalSince1970 + 10 * 86_400
        #expect(await matterflow(["store", "prune", "--store", journal, "--older-than", "11d"], now: now).stdout.hasPrefix("removed 0 runs (0 records)"))

        // A process holds the succeeded run's journal (as a run going on, or recovery, does): it stays.
        let held = open(succeededRun.path, O_RDONLY | O_CLOEXEC)
        try #require(held >= 0)
        try #require(flock(held, LOCK_EX) == 0)
        let dry = await matterflow(["store", "prune", "--store", journal, "--older-than", "9d", "--dry-run"], now: now)
        #expect(dry.stdout.hasPrefix("\(failedRun)\nwould remove 1 run ("), "\(dry.stdout)")
        let first = await matterflow(["store", "prune", "--store", journal, "--older-than", "9d"], now: now)
        #expect(first.stdout.hasPrefix("removed 1 run ("), "\(first.stdout)")
        close(held)
        // A child another test spawns at this very moment keeps a copy of the descriptor, and so the lock, until it
        // starts its program: the journal is free once no process holds it, a moment later on a loaded machine.
        var second = await matterflow(["store", "prune", "--store", journal, "--older-than", "9d"], now: now)
        let deadline = ContinuousClock.now + .seconds(60)
        while second.stdout.hasPrefix("removed 0 runs"), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
            second = await matterflow(["store", "prune", "--store", journal, "--older-than", "9d"], now: now)
        }
        #expect(second.stdout.hasPrefix("removed 1 run (\(succeededRun.recordCount) records)"), "\(second.stdout)")
        #expect(try RunJournal(existingDirectory: journal).runs().map(\.runID) == [interrupted])
        let gone = await matterflow("history", failedRun, "--journal", journal)
        #expect(gone.code == 2 && gone.stderr.contains("error[runNotFound]"), "\(gone.stderr)")
    }

    @Test("a journal directory: --structure erases one structure's runs whatever their age, --run one run; a run of it going on stays, named with what to do, and prune exits 1")
    func eraseFromJournalDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = Repository.workflow("commission-device")
        let journal = directory.file("journal")
        let oak = try directory.write(TestHomes.json(), to: "oak.json")
        for (home, state, name) in [(oak, "oak-1", "Lamp"), (oak, "oak-2", "Desk"), (nil, "other", "Lamp")] {
            let run = await matterflowVirtual(
                ["run", workflow, "--state", directory.file(state), "--journal", journal, "--trace", "none"] + (home.map { ["--home", $0] } ?? [])
                    + commissionInputs(name: name))
            #expect(run.code == 0, "\(run.stderr)")
        }
        let runs = try RunJournal(existingDirectory: journal).runs()
        let ours = runs.filter { $0.structureID == TestHomes.structureID }.sorted { $0.runID < $1.runID }
        let other = try #require(runs.first { $0.structureID != TestHomes.structureID })
        try #require(ours.count == 2)

        // One of the structure's runs is held by a process, as one going on is.
        let held = open(ours[1].path, O_RDONLY | O_CLOEXEC)
        try #require(held >= 0)
        try #require(flock(held, LOCK_EX) == 0)
        let dry = await matterflow(["store", "prune", "--store", journal, "--structure", TestHomes.structureID, "--dry-run"])
        #expect(dry.code == 1, "\(dry.stderr)")
        #expect(dry.stdout == "\(ours[0].runID)\nwould remove 1 run (\(ours[0].recordCount) records) of structure \(TestHomes.structureID)\n")
        let keep = "run \(ours[1].runID) (structure \(TestHomes.structureID), running): a process runs it (or recovers it): let it end"
        #expect(dry.stderr.contains("would keep \(keep)"), "\(dry.stderr)")
        let erased = await matterflow(["store", "prune", "--store", journal, "--structure", TestHomes.structureID])
        #expect(erased.code == 1, "\(erased.stderr)")
        #expect(erased.stdout == "removed 1 run (\(ours[0].recordCount) records) of structure \(TestHomes.structureID)\n")
        #expect(erased.stderr.contains("kept \(keep)"), "\(erased.stderr)")
        close(held)
        let again = await matterflow(["store", "prune", "--store", journal, "--structure", TestHomes.structureID])
        #expect(again.code == 0 && again.stderr.isEmpty, "\(again.stderr)")
        #expect(try RunJournal(existingDirectory: journal).runs().map(\.runID) == [other.runID])

        // One run by its ID; named again, it is gone already.
        let one = await matterflow(["store", "prune", "--store", journal, "--run", other.runID])
        #expect(one.code == 0 && one.stdout.hasPrefix("removed 1 run ("), "\(one.stdout)\(one.stderr)")
        let gone = await matterflow(["store", "prune", "--store", journal, "--run", other.runID])
        #expect(gone.code == 0, "\(gone.stderr)")
        #expect(gone.stderr.contains("note: the store has no run \(other.runID) (removed before, or mistyped)"), "\(gone.stderr)")
    }

    @Test("usage: --older-than is required (unless --run or --structure names runs) and must be an age; --status names an ended status; a missing directory is exit 2")
    func usage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for (arguments, message) in [
            (["--store", directory.path], "Missing expected option '--older-than <age>' (90d, 12h, 30m, 45s; 0s for every ended run), or --run/--structure"),
            (["--store", directory.path, "--older-than", "5"], "--older-than must be a whole number of s, m, h or d"),
            (["--store", directory.path, "--older-than", "-1d"], "not '-1d'"),
            (["--store", directory.path, "--older-than", "36501d"], "up to 36500d"),
            (["--store", directory.path, "--older-than", "1d", "--status", "running"], "(queued and running runs are never pruned)"),
            (["--store", directory.path, "--older-than", "1d", "--status", "interrupted"], "not 'interrupted'"),
            (["--older-than", "1d"], "Missing expected option '--store <url>'"),
        ] {
            let run = await matterflow(["store", "prune"] + arguments)
            #expect(run.code == 64, "\(arguments)")
            #expect(run.stderr.contains(message), "\(arguments): \(run.stderr)")
        }
        let missing = await matterflow(["store", "prune", "--store", directory.file("nope"), "--older-than", "1d"])
        #expect(missing.code == 2)
        #expect(missing.stderr.contains(directory.file("nope")), "\(missing.stderr)")
    }
}
