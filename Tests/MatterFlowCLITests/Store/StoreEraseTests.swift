import Foundation
import MatterFlowJournal
@testable import MatterFlowStore
import Testing

/// Erasing a household's or a run's data from PostgreSQL (`store prune --structure`, `--run`), and the secrets files
/// of runs pruned before without it.
extension PostgresStoreTests {
    @Test("prune --structure and --run erase those runs, of any age, with their records, answers and secrets files; open runs, a run needing attention and a run holding the session stay, each named with what to do, and prune exits 1")
    func eraseStructureAndRun() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let ended = Date().timeIntervalSince1970 - 60
        // One ended "in an hour": the store's clock ahead of this machine's. Named without --older-than, it goes too.
        let runs: [(String, String, String, Double?)] = [
            ("oak-ok", "oak", "succeeded", ended + 3_660), ("oak-cancelled", "oak", "cancelled", ended),
            ("oak-attention", "oak", "needsAttention", ended), ("oak-holding", "oak", "succeeded", ended),
            ("oak-going", "oak", "running", nil), ("elm-ok", "elm", "succeeded", ended), ("elm-one", "elm", "failed", ended),
        ]
        for (run, structure, status, ended) in runs {
            try store.execute(
                """
                INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, finished_at)
                VALUES ($1, 'w', '/w.json', $2, '{}', $3, to_timestamp($4::float8))
                """, [run, structure, status, ended.map { String($0) }], doing: "test setup")
        }
        try store.execute(
            "INSERT INTO matterflow_record_batches (run_id, first_seq, last_seq, records) VALUES ('oak-ok', 1, 3, '[]'), ('elm-one', 1, 2, '[]')",
            doing: "test setup")
        try store.execute(
            "INSERT INTO matterflow_answers (seq, answer_id, run_id, name, value, secret) VALUES (1, 'a1', 'oak-ok', 'room', '\"Kitchen\"', false)",
            doing: "test setup")
        try store.execute("INSERT INTO matterflow_sessions (structure_id, run_id) VALUES ('oak', 'oak-holding')", doing: "test setup")
        try store.execute(
            "INSERT INTO matterflow_workers (worker_id, host, pid, heartbeat_at, stopped_at) VALUES ('w-old', 'h', 1, now() - interval '1 day', now() - interval '1 day')",
            doing: "test setup")
        let secrets = try TemporaryDirectory()
        defer { secrets.remove() }
        for file in ["oak-ok.secrets", "oak-ok.output", "oak-cancelled.answers", "elm-ok.secrets"] { try secrets.write("{}", to: file) }
        let remaining = { try Set(store.runs().map(\.runID)) }
        let named = ["--structure", "oak", "--run", "elm-one", "--run", "run-nothere"]

        let dry = await matterflow(["store", "prune", "--store", conninfo, "--dry-run"] + named)
        #expect(dry.code == 1, "\(dry.stderr)")
        #expect(dry.stdout == "elm-one\noak-cancelled\noak-ok\nwould remove 3 runs (5 records) of structure oak, run elm-one and run run-nothere\n")
        #expect(dry.stderr.contains("note: the store has no run run-nothere (removed before, or mistyped)"), "\(dry.stderr)")
        #expect(!dry.stderr.contains("no run of structure"), "\(dry.stderr)")
        // A structure named with no run in the store (a typo) is said, as a run ID is.
        let typo = await matterflow(["store", "prune", "--store", conninfo, "--dry-run", "--structure", "oak", "--structure", "oka"])
        #expect(typo.stderr.contains("note: the store has no run of structure oka (removed before, or mistyped)"), "\(typo.stderr)")
        #expect(!typo.stderr.contains("structure oak (removed"), "\(typo.stderr)")
        #expect(dry.stderr.contains("would keep run oak-going (structure oak, running): it may still change: cancel it (`matterflow cancel oak-going --store URL`)"), "\(dry.stderr)")
        #expect(dry.stderr.contains("would keep run oak-attention (structure oak, needsAttention): it needs attention: settle it again once its hub answers (`matterflow cancel oak-attention --store URL`: a worker reads the hub and takes its cancel path), or add --status needsAttention"), "\(dry.stderr)")
        #expect(dry.stderr.contains("would keep run oak-holding (structure oak, succeeded): it holds its structure's commissioning session: release it with a run of Workflows/cancel.json"), "\(dry.stderr)")
        #expect(try remaining().count == runs.count)

        let erased = await matterflow(["store", "prune", "--store", conninfo, "--secrets", secrets.path] + named)
        #expect(erased.code == 1, "\(erased.stderr)")
        #expect(erased.stdout == "removed 3 runs (5 records) of structure oak, run elm-one and run run-nothere\n")
        #expect(erased.stderr.split(separator: "\n").filter { $0.hasPrefix("kept run ") }.count == 3, "\(erased.stderr)")
        #expect(try remaining() == ["oak-attention", "oak-holding", "oak-going", "elm-ok"])
        #expect(try store.execute("SELECT count(*) FROM matterflow_answers", doing: "test").rows == [["0"]])
        #expect(try store.execute("SELECT run_id FROM matterflow_record_batches", doing: "test").rows.isEmpty)
        #expect(try PostgresStoreTests.runFiles(in: secrets.path) == ["elm-ok.secrets"])
        // An erasure is about a household, not the fleet's hosts.
        #expect(try store.execute("SELECT worker_id FROM matterflow_workers", doing: "test").rows == [["w-old"]])

        // Settled, and named: the rest of the structure goes.
        try store.execute("DELETE FROM matterflow_sessions", doing: "test")
        try store.execute("UPDATE matterflow_runs SET status = 'cancelled', finished_at = now() WHERE run_id = 'oak-going'", doing: "test")
        let rest = await matterflow(["store", "prune", "--store", conninfo, "--structure", "oak", "--status", "cancelled", "--status", "succeeded", "--status", "needsAttention"])
        #expect(rest.code == 0, "\(rest.stderr)")
        #expect(!rest.stderr.contains("kept run"), "\(rest.stderr)")
        #expect(rest.stdout == "removed 3 runs (0 records) of structure oak\n")
        #expect(try remaining() == ["elm-ok"])
    }

    @Test("a cancelled run pruned without --secrets leaves its files; the next prune --secrets removes them once untouched for ten minutes, and keeps a fresh file of a run not queued yet, digest.key and other names")
    func pruneRemovesSecretsOfRunsTheStoreNoLongerHas() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try PostgresStoreTests.secretsDirectory(in: directory)
        let run = "run-0000000f0001"
        #expect(await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--run-id", run]
                + commissionInputs()).code == 0)
        #expect(await matterflow(["cancel", run, "--store", conninfo]).code == 0)
        // As an epskc-share run leaves its output and what it showed.
        for kind in ["output", "shown", "answers.partial"] { try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(secrets)/\(run).\(kind)")) }
        let pruned = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "0s"])
        #expect(pruned.stdout.hasPrefix("removed 1 run"), "\(pruned.stdout)")
        #expect(pruned.stderr.contains("note: without --secrets, files these runs left in the secrets directory given to submit"), "\(pruned.stderr)")
        let left = ["\(run).answers.partial", "\(run).output", "\(run).secrets", "\(run).shown"]
        #expect(try PostgresStoreTests.runFiles(in: secrets) == left)

        // Written just now: a submit under way writes its file before it queues its run.
        let submitting = "run-0000000f0002"
        try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(secrets)/\(submitting).secrets"))
        let fresh = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "0s", "--secrets", secrets])
        #expect(fresh.stdout.hasPrefix("removed 0 runs (0 records)") && !fresh.stdout.contains("pruned before"), "\(fresh.stdout)")
        #expect(try PostgresStoreTests.runFiles(in: secrets) == left + ["\(submitting).secrets"])

        // An hour later (by the files' times): the pruned run's files go, the others stay.
        let hourAgo = Date(timeIntervalSinceNow: -3_600)
        for name in left + ["notes.txt"] {
            if name == "notes.txt" { try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(secrets)/notes.txt")) }
            try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: "\(secrets)/\(name)")
        }
        try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: "\(secrets)/\(SecretDigestKey.fileName)")
        let dry = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "0s", "--secrets", secrets, "--dry-run"])
        #expect(dry.stdout.hasSuffix("would remove from \(secrets) the files of 1 run pruned before (\(run))\n"), "\(dry.stdout)")
        #expect(try PostgresStoreTests.runFiles(in: secrets).count == 6)
        let swept = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "0s", "--secrets", secrets])
        #expect(swept.code == 0, "\(swept.stderr)")
        #expect(swept.stdout.hasSuffix("removed from \(secrets) the files of 1 run pruned before (\(run))\n"), "\(swept.stdout)")
        #expect(try PostgresStoreTests.runFiles(in: secrets) == ["notes.txt", "\(submitting).secrets"])
        #expect(FileManager.default.fileExists(atPath: "\(secrets)/\(SecretDigestKey.fileName)"))
    }
}
