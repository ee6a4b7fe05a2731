import Foundation
import MatterFlow
import MatterFlowCLI
import MatterFlowJSON
@testable import MatterFlowJournal
import MatterFlowSimulator
@testable import MatterFlowStore
import Synchronization
import Testing

/// The PostgreSQL run store against a throwaway server: connection, migrations, group commit, fencing, and the
/// fleet commands in-process.
@Suite("PostgreSQL run store", .serialized, .enabled(if: TestPostgres.available, "no PostgreSQL server binary (install postgresql; .ci/run does)"))
struct PostgresStoreTests {
    @Test("values travel as parameters, results come back as Swift values, errors carry their SQLSTATE")
    func connection() throws {
        let connection = try PostgresConnection(try TestPostgres.database())
        defer { connection.close() }
        try connection.execute("CREATE TABLE t (id text PRIMARY KEY, note text)")
        let hostile = "x'); DROP TABLE t; --\u{1F4A1}"
        try connection.execute("INSERT INTO t VALUES ($1, $2)", [hostile, nil])
        let rows = try connection.execute("SELECT id, note FROM t")
        #expect(rows.columns == ["id", "note"])
        #expect(rows.rows == [[hostile, nil]])
        let duplicate = #expect(throws: PostgresError.self) { try connection.execute("INSERT INTO t VALUES ($1, $2)", [hostile, "again"]) }
        #expect(duplicate?.sqlState == "23505")
        #expect(duplicate?.isUniqueViolation == true)
        #expect(duplicate?.code == .commandFailed)

        let missing = #expect(throws: PostgresError.self) { _ = try PostgresConnection("host=/nonexistent-socket-dir port=5432 dbname=x connect_timeout=2") }
        #expect(missing?.code == .connectionFailed)
        #expect(missing?.message.contains("/nonexistent-socket-dir") == true)
    }

    @Test("LISTEN/NOTIFY: a notification sent on another connection arrives; none arrives when none is sent")
    func notifications() throws {
        let conninfo = try TestPostgres.database()
        let listener = try PostgresConnection(conninfo)
        defer { listener.close() }
        try listener.listen("matterflow_records")
        #expect(try listener.notifications(timeoutMilliseconds: 50).isEmpty)
        let sender = try PostgresConnection(conninfo)
        defer { sender.close() }
        try sender.execute("SELECT pg_notify('matterflow_records', $1)", ["run-1"])
        var received: [PostgresNotification] = []
        for _ in 0..<20 where received.isEmpty { received = try listener.notifications(timeoutMilliseconds: 250) }
        #expect(received.map(\.channel) == ["matterflow_records"])
        #expect(received.map(\.payload) == ["run-1"])
    }

    @Test("a listener hands notifications to its thread's handler, and stops at once however long its socket wait")
    func listenerStopsAtOnce() async throws {
        let conninfo = try TestPostgres.database()
        let received = Mutex<[String]>([])
        // An hour per socket wait: only the stop's wake-up can end the thread in time.
        let listener = QueueListener(conninfo: conninfo, channels: ["matterflow_queue"], waitMilliseconds: 3_600_000) {
            notifications in received.withLock { $0 += (notifications ?? []).map(\.payload) }
        }
        let sender = try PostgresConnection(conninfo)
        defer { sender.close() }
        try sender.execute("SELECT pg_notify('matterflow_queue', $1)", ["run-1"])
        // Waited for on threads of their own (`act`): a broken listener fails the test after 30 s without holding,
        // or spinning on, a thread of the suite's pool.
        let arrived = await act(within: .seconds(30), when: { !received.withLock { $0.isEmpty } }) {}
        #expect(arrived != nil && received.withLock { $0 } == ["run-1"])
        let stopped = Mutex(false)
        Thread.detachNewThread {
            listener.stop()
            stopped.withLock { $0 = true }
        }
        let ended = await act(within: .seconds(30), when: { stopped.withLock { $0 } }) {}
        #expect(ended != nil, "stop() waited for the socket wait to end")
    }

    @Test("a run's batches of records are announced on matterflow_records while a watcher watches it, and only then")
    func announcedToWatchersOnly() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try TestPostgres.insertRunning([("run-watched", "s1", "me"), ("run-unwatched", "s2", "me")], into: store)
        let listener = try PostgresConnection(conninfo)
        defer { listener.close() }
        try listener.listen("matterflow_records")
        try PostgresRunStore.beginWatching("run-watched", on: listener)
        let committer = GroupCommitter(conninfo: conninfo, workerID: "me")
        defer { committer.shutdown() }
        func commit(_ sequence: Int) async throws -> [String] {
            for run in ["run-watched", "run-unwatched"] {
                try committer.append(encoded(payload: ["seq": .int(sequence), "type": "checkpoint"]), runID: run, sync: true)
            }
            for run in ["run-watched", "run-unwatched"] { try await committer.flush(runID: run) }
            // Committed by now: a notification sent is on its way, ahead of a marker sent after it; one not sent never
            // comes. Read until the marker, for up to a minute on a loaded machine.
            try store.execute("SELECT pg_notify('matterflow_records', 'marker-\(sequence)')", doing: "test")
            var announced: [String] = []
            let deadline = ContinuousClock.now + .seconds(60)
            while !announced.contains("marker-\(sequence)"), ContinuousClock.now < deadline {
                announced += try listener.notifications(timeoutMilliseconds: 100).map(\.payload)
            }
            #expect(announced.last == "marker-\(sequence)")
            return announced.filter { !$0.hasPrefix("marker-") }
        }
        #expect(try await commit(1) == ["run-watched"])
        PostgresRunStore.endWatching("run-watched", on: listener)
        #expect(try await commit(2) == [])
        #expect(try store.execute("SELECT count(*) FROM matterflow_watchers", doing: "test").rows == [["0"]])
        #expect(try store.records(of: "run-watched").map(\.sequence) == [1, 2])
    }

    @Test("a batch a run waits for is held back until the worker's other runs in progress wait too, then carries them all")
    func batchGathersTheRunsInProgress() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try TestPostgres.insertRunning([("run-a", "s1", "me"), ("run-b", "s2", "me")], into: store)
        // A limit no test machine reaches: the batch goes only when both runs wait.
        let committer = GroupCommitter(conninfo: conninfo, workerID: "me", gatherMicroseconds: 60_000_000)
        defer { committer.shutdown() }
        committer.runBegan()
        committer.runBegan()
        try committer.append(encoded(payload: ["seq": 1, "type": "intent"]), runID: "run-a", sync: true)
        let first = Task { try await committer.flush(runID: "run-a") }
        let deadline = ContinuousClock.now + .seconds(20)
        while committer.waitingRunCount < 1 && ContinuousClock.now < deadline { await Task.yield() }
        #expect(committer.waitingRunCount == 1)
        // run-a waits; run-b is still in progress, so its record, appended now, joins run-a's batch.
        try committer.append(encoded(payload: ["seq": 1, "type": "intent"]), runID: "run-b", sync: true)
        try await committer.flush(runID: "run-b")
        try await first.value
        #expect(committer.statistics.batches == 1)
        #expect(committer.statistics.records == 2)
        // Once a run has ended, the batch goes when the runs still in progress wait (long before the limit).
        committer.runEnded()
        var started = ContinuousClock.now
        try committer.append(encoded(payload: ["seq": 2, "type": "intent"]), runID: "run-a", sync: true)
        try await committer.flush(runID: "run-a")
        #expect(ContinuousClock.now - started < .seconds(20), "the batch waited for a run that had ended")
        #expect(committer.statistics.batches == 2)
        // A stopping worker's runs park and stay counted: with gathering stopped, a batch goes without them.
        committer.runBegan()
        committer.stopGathering()
        started = ContinuousClock.now
        try committer.append(encoded(payload: ["seq": 3, "type": "intent"]), runID: "run-a", sync: true)
        try await committer.flush(runID: "run-a")
        #expect(ContinuousClock.now - started < .seconds(20), "the batch waited for a run in progress after gathering stopped")
        #expect(committer.statistics.batches == 3)
        #expect(try store.records(of: "run-a").map(\.sequence) == [1, 2, 3])
        #expect(try store.records(of: "run-b").map(\.sequence) == [1])
    }

    @Test("store migrate creates the schema once; again changes nothing; concurrent migrators apply it exactly once")
    func migrations() async throws {
        let conninfo = try TestPostgres.database(migrated: false)
        let before = #expect(throws: StoreError.self) { _ = try PostgresRunStore(conninfo: conninfo) }
        #expect(before?.code == .schemaOutdated)
        #expect(before?.message.contains("matterflow store migrate") == true)

        let results = await withTaskGroup(of: [Int].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    guard let connection = try? PostgresConnection(conninfo) else { return [-1] }
                    defer { connection.close() }
                    return (try? StoreMigrator(connection: connection).migrate().applied) ?? [-1]
                }
            }
            var all: [[Int]] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.sorted { $0.count > $1.count } == [Array(1...StoreMigrations.latest), [], [], []])
        let again = await matterflow(["store", "migrate", "--store", conninfo])
        #expect(again.code == 0)
        #expect(again.stdout == "schema version \(StoreMigrations.latest) (already current)\n")
        // Rows of records are compressed with lz4 where the server has it (migration 4), pglz elsewhere (before
        // PostgreSQL 14 a column has no compression setting at all).
        let store = try PostgresRunStore(conninfo: conninfo)
        let server = try store.execute(
            """
            SELECT current_setting('server_version_num')::integer >= 140000, EXISTS (
                SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals))
            """, doing: "test").rows
        if server.first?.first == "t" {
            let compression = try store.execute(
                """
                SELECT attcompression::text FROM pg_attribute
                WHERE attrelid = 'matterflow_record_batches'::regclass AND attname = 'records'
                """, doing: "test")
            #expect(compression.rows == [[server.first?.last == "t" ? "l" : ""]])
        }
        _ = try PostgresRunStore(conninfo: conninfo)

        // A newer MatterFlow migrated the store further: this one says so, and neither migrates nor uses it.
        try store.execute("INSERT INTO matterflow_migrations (version, name) VALUES (99, 'from a newer MatterFlow')", doing: "test")
        let newer = await matterflow(["store", "migrate", "--store", conninfo])
        #expect(newer.code == 2)
        #expect(newer.stderr.contains("error[schemaNewer]: the store") && newer.stderr.contains("has schema version 99, newer than this MatterFlow knows (\(StoreMigrations.latest))"), "\(newer.stderr)")
        let listed = await matterflow(["runs", "--store", conninfo])
        #expect(listed.code == 2)
        #expect(listed.stderr.contains("error[schemaNewer]"), "\(listed.stderr)")
    }

    @Test("store migrate upgrades a version-1 store: its records read back the same, a run's batch of records is one row")
    func migrationFromVersion1() async throws {
        let conninfo = try TestPostgres.database(migrated: false)
        let connection = try PostgresConnection(conninfo)
        defer { connection.close() }
        #expect(try StoreMigrator(connection: connection).migrate(Array(StoreMigrations.all.prefix(1))).version == 1)
        // A run and its records as a version-1 worker left them (the payloads as jsonb).
        try connection.execute(
            """
            INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, worker_id)
            VALUES ('run-old', 'w', '/w.json', 's', '{}', 'running', 'me')
            """)
        let old: [JSONObject] = [
            ["seq": 1, "type": "runStarted", "runID": "run-old", "inputs": ["name": "Lämp \"1\" \\ \u{1}"]],
            ["seq": 2, "type": "stateEntered", "state": "prepare"],
        ]
        for record in old.reversed() {
            try connection.execute(
                "INSERT INTO matterflow_records (run_id, seq, type, payload) VALUES ('run-old', $1::integer, $2, $3::jsonb)",
                [String(record["seq"]?.intValue ?? 0), record["type"]?.stringValue ?? "", JSONWriter.compact(.object(record))])
        }
        let outdated = #expect(throws: StoreError.self) { _ = try PostgresRunStore(conninfo: conninfo) }
        #expect(outdated?.code == .schemaOutdated)

        let upgrade = await matterflow(["store", "migrate", "--store", conninfo])
        #expect(upgrade.code == 0, "\(upgrade.stderr)")
        #expect(upgrade.stdout == "schema version \(StoreMigrations.latest) (applied \((2...StoreMigrations.latest).map(String.init).joined(separator: ", ")))\n")
        let store = try PostgresRunStore(conninfo: conninfo)
        // The same members, in sequence order (jsonb had put each record's members in its own order).
        let upgraded = try store.records(of: "run-old").map(\.payload)
        #expect(upgraded.count == 2 && zip(upgraded, old).allSatisfy { sameJSON(.object($0), .object($1)) }, "\(upgraded)")
        #expect(try store.runs().first { $0.runID == "run-old" }?.recordCount == 2)
        let foreignKeys = try connection.execute(
            "SELECT count(*) FROM pg_constraint WHERE conrelid = 'matterflow_record_batches'::regclass AND contype = 'f'")
        #expect(foreignKeys.rows == [["0"]])

        // New records join the old ones through the committer, whatever their text holds, and read back as written:
        // the two appended before one flush are one row.
        let committer = GroupCommitter(conninfo: conninfo, workerID: "me")
        defer { committer.shutdown() }
        let new: [JSONObject] = [
            ["seq": 3, "type": "checkpoint", "vars": ["note": "ünïcode \\ \" \u{1} {\"a\",\"b\"} NULL ] ["]],
            ["seq": 4, "type": "intent", "operation": "prepareCommissioning"],
        ]
        for record in new { try committer.append(encoded(payload: record), runID: "run-old", sync: false) }
        try await committer.flush(runID: "run-old")
        let all = try store.records(of: "run-old").map(\.payload)
        #expect(all.count == 4 && zip(all, old).allSatisfy { sameJSON(.object($0), .object($1)) } && Array(all.suffix(2)) == new, "\(all)")
        #expect(try store.records(of: "run-old", after: 1).map(\.sequence) == [2, 3, 4])
        #expect(try store.records(of: "run-old", after: 3).map(\.type) == ["intent"])
        let rows = try connection.execute(
            "SELECT first_seq, last_seq FROM matterflow_record_batches WHERE run_id = 'run-old' ORDER BY first_seq")
        #expect(rows.rows == [["1", "1"], ["2", "2"], ["3", "4"]])
        #expect(try store.runs().first { $0.runID == "run-old" }?.recordCount == 4)
        // SQL readers still see one row per record, in the view of the same name as the former table.
        let view = try connection.execute(
            "SELECT seq::text, type, payload::jsonb->>'operation' FROM matterflow_records WHERE run_id = 'run-old' ORDER BY seq")
        #expect(view.rows.map { $0[0] } == ["1", "2", "3", "4"])
        #expect(view.rows.last == ["4", "intent", "prepareCommissioning"])
    }

    @Test("rows of records: one that is not a JSON array of records, or that overlaps another, is a damagedRecords error naming the run")
    func recordRowsReadStrictly() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try TestPostgres.insertRunning([("run-bad", "s", "me")], into: store)
        func put(_ rows: [(Int, Int, String)]) throws {
            try store.execute("DELETE FROM matterflow_record_batches", doing: "test")
            for (first, last, text) in rows {
                try store.execute(
                    "INSERT INTO matterflow_record_batches (run_id, first_seq, last_seq, records) VALUES ('run-bad', $1::integer, $2::integer, $3)",
                    [String(first), String(last), text], doing: "test")
            }
        }
        for (text, expected) in [
            ("not json", "is not a JSON array of records"), (#"{"seq": 1}"#, "is not a JSON array of records"),
            ("[1]", "is not a JSON object"), (#"[{"type": "runStarted"}]"#, "has no sequence number"),
        ] {
            try put([(1, 1, text)])
            let error = #expect(throws: StoreError.self) { _ = try store.records(of: "run-bad") }
            #expect(error?.code == .damagedRecords)
            #expect(error?.message.contains("run-bad") == true && error?.message.contains(expected) == true, "\(error?.message ?? "")")
        }
        // Rows that overlap were not both written by the run's lease holder: which copy is the run's cannot be told,
        // so reading refuses them (the record count `runs` shows then counts both), rather than keep one silently.
        for rows in [
            [(1, 2, #"[{"seq": 1, "type": "a"}, {"seq": 2, "type": "b"}]"#), (2, 3, #"[{"seq": 2, "type": "again"}, {"seq": 3, "type": "c"}]"#)],
            [(1, 3, #"[{"seq": 1, "type": "a"}, {"seq": 3, "type": "c"}]"#), (2, 2, #"[{"seq": 2, "type": "b"}]"#)],
            [(1, 2, #"[{"seq": 2, "type": "b"}, {"seq": 1, "type": "a"}]"#)],
        ] {
            try put(rows)
            for after in [0, 1] {
                let error = #expect(throws: StoreError.self) { _ = try store.records(of: "run-bad", after: after) }
                #expect(error?.code == .damagedRecords && error?.message.contains("run-bad") == true && error?.message.contains("overlap") == true, "\(error?.message ?? "")")
            }
        }
        // A reader that starts inside a row skips the records before its start, and only those.
        try put([
            (1, 2, #"[{"seq": 1, "type": "a"}, {"seq": 2, "type": "b"}]"#),
            (3, 5, #"[{"seq": 3, "type": "c"}, {"seq": 4, "type": "d"}, {"seq": 5, "type": "e"}]"#),
        ])
        #expect(try store.records(of: "run-bad").map(\.type) == ["a", "b", "c", "d", "e"])
        #expect(try store.records(of: "run-bad", after: 3).map(\.type) == ["d", "e"])
        #expect(try store.records(of: "run-bad", after: 2).map(\.type) == ["c", "d", "e"])
        #expect(try store.runs().first { $0.runID == "run-bad" }?.recordCount == 5)
    }

    @Test("group commit: records of many runs share transactions; a run leased to another worker is refused")
    func groupCommit() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try TestPostgres.insertRunning((0..<16).map { ("run-\($0)", "s", $0 == 15 ? "someone-else" : "me") }, into: store)
        let committer = GroupCommitter(conninfo: conninfo, workerID: "me")
        // Each round, every run appends a record, then (every second round, the record marked for durability) all
        // wait for their records at once, as a worker's runs do, each in a task of its own. The appends of a round
        // come before any wait, so the round's flushes find their records pending together, however the tasks are
        // scheduled on a busy machine.
        var refused: [String] = []
        for sequence in 1...20 {
            let runs = (0..<16).map { "run-\($0)" }.filter { !refused.contains($0) }
            for run in runs {
                let record = encoded(payload: ["seq": .int(sequence), "type": .string("intent")])
                do { try committer.append(record, runID: run, sync: sequence % 2 == 0) } catch { refused.append(run) }
            }
            guard sequence % 2 == 0 else { continue }
            let failed = await withTaskGroup(of: String?.self) { group in
                for run in runs where !refused.contains(run) {
                    group.addTask {
                        do { try await committer.flush(runID: run) } catch { return run }
                        return nil
                    }
                }
                var failed: [String] = []
                for await run in group { if let run { failed.append(run) } }
                return failed
            }
            refused += failed
        }
        committer.shutdown()
        #expect(refused == ["run-15"])
        for index in 0..<15 {
            #expect(try store.records(of: "run-\(index)").map(\.sequence) == Array(1...20))
        }
        #expect(try store.records(of: "run-15").isEmpty)
        let statistics = committer.statistics
        #expect(statistics.records >= 15 * 20)
        // 150 flushes: with each task waiting for a batch of its own there would be about as many batches.
        #expect(statistics.batches * 4 < 150, "flushes of concurrent runs did not share batches: \(statistics)")
    }

    @Test("submit, worker, runs, history: runs shared through the store end succeeded; no secret is stored")
    func workerRunsQueuedRuns() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try Self.secretsDirectory(in: directory)

        let refused = await matterflow(["submit", Repository.workflow("commission-device"), "--store", conninfo] + commissionInputs())
        #expect(refused.code == 64)
        #expect(refused.stderr.contains("--secrets DIR"))

        var runIDs: [String] = []
        for index in 0..<12 {
            let submitted = await matterflow(
                ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets,
                 "--structure", "home-\(index)"] + commissionInputs(name: "Lamp \(index)"))
            #expect(submitted.code == 0, "\(submitted.stderr)")
            runIDs.append(submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        // A lease of a minute: heartbeats keep up however loaded the machine, so no call needs its lease confirmed.
        let metricsFile = directory.file("w1.prom")
        let worker = await matterflowVirtual(
            ["worker", "--store", conninfo, "--secrets", secrets, "--exit-when-idle", "--concurrency", "4", "--worker-id", "w1",
             "--lease", "60", "--metrics-file", metricsFile])
        #expect(worker.code == 0, "\(worker.stderr)")
        #expect(worker.stderr.contains("finished: succeeded 12"), "\(worker.stderr)")
        #expect(!worker.stderr.contains("warning:"), "\(worker.stderr)")
        let metrics = try String(contentsOfFile: metricsFile, encoding: .utf8)
        #expect(metrics.contains(#"matterflow_worker_lease_confirmations_total{worker="w1"} 0"#), "\(metrics)")
        #expect(metrics.contains(#"matterflow_worker_runs_finished_total{worker="w1",status="succeeded"} 12"#), "\(metrics)")

        let listed = await matterflow(["runs", "--store", conninfo, "--json"])
        let runs = try #require(try parseJSON(listed.stdout) as? [[String: Any]])
        #expect(Set(runs.compactMap { $0["runID"] as? String }) == Set(runIDs))
        #expect(runs.allSatisfy { $0["status"] as? String == "succeeded" })

        // What the run made (its devices) is read back from any machine.
        let history = await matterflow(["history", runIDs[0], "--store", conninfo])
        #expect(history.code == 0)
        #expect(history.stdout.contains("runStarted"))
        let outputLine = try #require(history.stdout.split(separator: "\n").last, "\(history.stdout)")
        #expect(outputLine.hasPrefix("output: {\"name\":\"Lamp 0\"") && outputLine.contains("\"deviceIDs\":[\"device-"), "\(history.stdout)")
        #expect(history.stdout.contains("status: succeeded\noutput: "), "\(history.stdout)")
        let historyJSON = try #require(try parseJSON(await matterflow(["history", runIDs[0], "--store", conninfo, "--json"]).stdout) as? [String: Any])
        #expect(((historyJSON["output"] as? [String: Any])?["deviceIDs"] as? [String])?.count == 1, "\(historyJSON)")
        let watch = await matterflow(["watch", runIDs[1], "--store", conninfo])
        #expect(watch.code == 0)
        #expect(watch.stdout.contains("runFinished"))
        #expect(watch.stdout.contains("status: succeeded\noutput: {\"name\":\"Lamp 1\""), "\(watch.stdout)")

        let store = try PostgresRunStore(conninfo: conninfo)
        let leaked = try store.execute(
            """
            SELECT (SELECT count(*) FROM matterflow_record_batches WHERE records LIKE '%' || $1 || '%')
                 + (SELECT count(*) FROM matterflow_runs WHERE inputs::text LIKE '%' || $1 || '%')
            """, [Payloads.specQR], doing: "test")
        #expect(leaked.rows.first?.first == "0", "the onboarding payload reached the store")
        #expect(try store.sessions().isEmpty)
        // What stays in the secrets directory is the key of the runs' secret digests: the store keeps digests made
        // with it, which cannot be searched for the payload without it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: secrets) == [SecretDigestKey.fileName], "secrets files were not removed")
        let key = try #require(try SecretDigestKey.load(fromDirectory: secrets))
        let started = try #require(try store.records(of: runIDs[0]).first { $0.type == "runStarted" })
        let digests = try #require(started.payload["secretDigests"])
        #expect(digests["scheme"] == "hmac-sha256" && digests["key"]?.stringValue == key.id && digests["rounds"] == nil, "\(digests)")
        // A key others can read is named by the next worker that starts, with what to do.
        let keyPath = secrets + "/" + SecretDigestKey.fileName
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: keyPath)
        let idle = await matterflowVirtual(["worker", "--store", conninfo, "--secrets", secrets, "--exit-when-idle", "--worker-id", "w2"])
        #expect(idle.code == 0, "\(idle.stderr)")
        #expect(idle.stderr.contains("warning: worker w2: the secret digest key \(keyPath) can be read or written by others than its owner (mode 0640)"), "\(idle.stderr)")
        let salt = try #require(digests["salt"]?.stringValue)
        let stretched = SecretDigests.digest(.string(Payloads.specQR), salt: salt)
        #expect(digests["inputs"]?["onboardingPayload"]?.stringValue
            == SecretDigests(salt: salt, scheme: .keyed(keyID: key.id), inputs: [:]).withKey(key).digest(.string(Payloads.specQR)))
        #expect(digests["inputs"]?["onboardingPayload"]?.stringValue != stretched)

        let unknown = await matterflow(["history", "run-nope", "--store", conninfo])
        #expect(unknown.code == 2)
        #expect(unknown.stderr.contains("error[runNotFound]"))
    }

    @Test("one session per structure across the fleet: a second worker, on a hub of its own, gets sessionBusy")
    func fleetWideSession() async throws {
        let conninfo = try TestPostgres.database()
        // prepare.json ends holding the structure's session, on purpose.
        let first = await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--structure", "shared"])
        #expect(first.code == 0)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        let one = await matterflowVirtual(["worker", "--store", conninfo, "--state", state, "--exit-when-idle", "--worker-id", "w1"])
        #expect(one.stderr.contains("finished: succeeded 1"), "\(one.stderr)")

        let second = await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--structure", "shared"])
        let other = await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--structure", "elsewhere"])
        // Another worker with its own (in-memory) simulated home: only the store knows the session is taken.
        let two = await matterflowVirtual(["worker", "--store", conninfo, "--exit-when-idle", "--worker-id", "w2"])
        #expect(two.code == 0)
        let store = try PostgresRunStore(conninfo: conninfo)
        let runs = Dictionary(uniqueKeysWithValues: try store.runs().map { ($0.runID, $0) })
        let busy = try #require(runs[second.stdout.trimmingCharacters(in: .whitespacesAndNewlines)])
        #expect(busy.status == "failed")
        #expect(JSONWriter.compact(busy.error ?? .null).contains("sessionBusy"), "\(busy.error.map { JSONWriter.compact($0) } ?? "")")
        // The refusal names the run holding the structure, the worker that ran it and since when, and, as that run
        // ended holding the session on purpose, how to release it.
        let holder = first.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let refusal = busy.error?["message"]?.stringValue ?? ""
        #expect(refusal.contains("in the fleet, held by run \(holder) (succeeded, worker w1) since 20"), "\(refusal)")
        #expect(refusal.hasSuffix("Z; that run ended holding it: release it with a cancel.json run of the structure"), "\(refusal)")
        #expect(runs[other.stdout.trimmingCharacters(in: .whitespacesAndNewlines)]?.status == "succeeded")
        #expect(Set(try store.sessions().map(\.structure)) == ["shared", "elsewhere"])

        // Releasing the session on the hub that holds it (cancel.json) frees the structure for the fleet.
        _ = await matterflow(["submit", Repository.workflow("cancel"), "--store", conninfo, "--structure", "shared"])
        let three = await matterflowVirtual(["worker", "--store", conninfo, "--state", state, "--exit-when-idle", "--worker-id", "w3"])
        #expect(three.code == 0)
        #expect(try store.sessions().map(\.structure) == ["elsewhere"])
    }

    @Test("--store errors: a server that is not there, a journal directory where PostgreSQL is needed")
    func storeErrors() async throws {
        let down = await matterflow(["runs", "--store", "host=/nonexistent-socket-dir dbname=x connect_timeout=2"])
        #expect(down.code == 2)
        #expect(down.stderr.hasPrefix("error[storeUnavailable]"))
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = await matterflow(["worker", "--store", directory.path])
        #expect(journal.code == 64)
        #expect(journal.stderr.contains("needs a PostgreSQL store"))
        let listed = await matterflow(["runs", "--store", directory.path])
        #expect(listed.code == 0)
    }

    @Test("answers given at submit reach the fleet's worker; unanswered questions are warned of; a secret answer waits in the secrets directory")
    func answersGivenAtSubmit() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = directory.file("secrets")
        try FileManager.default.createDirectory(atPath: secrets, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let interactive = Repository.workflow("commission-device-interactive")
        let payload = "onboardingPayload=" + Payloads.specQR

        // Without an answer for each question, submit warns: nobody in the fleet would answer it.
        let partly = await matterflow(["submit", interactive, "--store", conninfo, "--secrets", secrets, "--input", payload, "--answer", "room=Kitchen", "--run-id", "run-0000000a5e01"])
        #expect(partly.code == 0)
        #expect(partly.stderr.contains("warning: commission-device-interactive asks questions no --answer answers (name); each waits for `matterflow answer RUN --answer NAME=VALUE` until its timeout"), "\(partly.stderr)")
        let cancel = await matterflow(["submit", Repository.workflow("cancel"), "--store", conninfo, "--run-id", "run-0000000a5e02"])
        #expect(!cancel.stderr.contains("warning"), "\(cancel.stderr)")

        // Answered in advance, the run goes through both questions on the worker.
        let answered = await matterflow([
            "submit", interactive, "--store", conninfo, "--secrets", secrets, "--input", payload, "--answer", "room=Kitchen",
            "--answer", "name=Desk lamp", "--structure", "answered", "--run-id", "run-0000000a5e03",
        ])
        #expect(answered.code == 0, "\(answered.stderr)")
        #expect(!answered.stderr.contains("warning"), "\(answered.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo)
        // Only the answered run is left queued for the worker.
        _ = try store.execute("DELETE FROM matterflow_runs WHERE run_id <> 'run-0000000a5e03'", doing: "test")
        let kept = try store.execute("SELECT answers::text FROM matterflow_runs WHERE run_id = 'run-0000000a5e03'", doing: "test")
        #expect(kept.rows.first?.first == #"{"name": "Desk lamp", "room": "Kitchen"}"#)
        let state = directory.file("state")
        let worker = await matterflowVirtual([
            "worker", "--store", conninfo, "--secrets", secrets, "--state", state, "--exit-when-idle", "--worker-id", "w1",
        ])
        #expect(worker.stderr.contains("finished: succeeded 1"), "\(worker.stderr)")
        let home = try #require(try HomeStateStore.loadSaved(directory: state + "/answered"))
        let device = try #require(home.devices.first { $0.name == "Desk lamp" }, "\(home.devices.map(\.name))")
        #expect(device.room == "Kitchen")

        // A secret question's answer is never stored: it waits in the secrets directory for the worker, and the
        // submit needs that directory.
        let door = directory.file("door.json")
        try Data(#"""
            {"workflow": "door", "version": 1, "start": "door", "states": {
              "door": {"type": "ask", "question": "pin", "prompt": "Code?", "answer": {"text": {"pattern": "[0-9]{6}"}}, "secret": true,
                       "result": "code", "timeoutSeconds": 60, "next": "done", "onTimeout": "noAnswer"},
              "done": {"type": "succeed"},
              "noAnswer": {"type": "fail", "code": "deadlineExceeded", "message": "nobody answered"}
            }}
            """#.utf8).write(to: URL(fileURLWithPath: door))
        let nowhere = await matterflow(["submit", door, "--store", conninfo, "--answer", "pin=424242"])
        #expect(nowhere.code == 64)
        #expect(nowhere.stderr.contains("the answer to pin is secret and the store never keeps them; pass --secrets DIR"), "\(nowhere.stderr)")
        let secret = await matterflow([
            "submit", door, "--store", conninfo, "--secrets", secrets, "--answer", "pin=424242", "--run-id", "run-0000000a5e04",
        ])
        #expect(secret.code == 0, "\(secret.stderr)")
        let doorWorker = await matterflowVirtual([
            "worker", "--store", conninfo, "--secrets", secrets, "--exit-when-idle", "--worker-id", "w2",
        ])
        #expect(doorWorker.stderr.contains("finished: succeeded 1"), "\(doorWorker.stderr)")
        let stored = try store.execute(
            "SELECT answers::text FROM matterflow_runs WHERE run_id = 'run-0000000a5e04'", doing: "test").rows.first?.first
        #expect(stored == #"{"pin": "<redacted>"}"#)
        let named = try store.execute(
            "SELECT secret_answers::text FROM matterflow_runs WHERE run_id = 'run-0000000a5e04'", doing: "test").rows.first?.first
        #expect(named == "{pin}")
        let everything = try store.execute(
            "SELECT string_agg(records, '') FROM matterflow_record_batches WHERE run_id = 'run-0000000a5e04'", doing: "test")
        #expect(everything.rows.first?.first??.contains("424242") == false)
        // The workers removed the files of the runs they finished (the first run's stays: it was never run).
        #expect(try PostgresStoreTests.runFiles(in: secrets) == ["run-0000000a5e01.secrets"])
    }
}

/// The runs whose records the committer refused, collected from concurrent tasks.
final class RefusedRuns: Sendable {
    let runs = Mutex<[String]>([])
}
