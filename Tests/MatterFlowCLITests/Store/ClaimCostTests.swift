import Foundation
import MatterFlow
import MatterFlowJSON
@testable import MatterFlowStore
import Testing

/// What a claim reads when the queue's head waits for its structure's turn, and that the runs behind such a backlog
/// are claimed by the same rules as at the queue's head.
extension PostgresStoreTests {
    @Test("a claim behind thousands of runs waiting for their structures' turns reads hundreds of rows and buffers, in a custom and a generic plan, not the backlog")
    func claimCostFollowsStructures() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        // 10 structures, each with a run working in the session running and 300 more queued behind it.
        for structure in 0..<10 {
            try TestPostgres.insertRunning([(run: "run-busy-\(structure)", structure: "busy-\(structure)", worker: "w-busy")], into: store)
        }
        try store.execute("UPDATE matterflow_runs SET works_in_session = true, lease_until = now() + interval '1 hour'", doing: "test setup")
        try Self.queue(3000, structures: 10, named: "busy", store: store)

        #expect(try store.claim(by: "w1", limit: 32, leaseSeconds: 60).isEmpty)
        for (mode, plan, text) in try Self.explainedClaims(conninfo) {
            let hits = try #require(plan?["Shared Hit Blocks"]?.intValue, "\(text)")
            #expect(plan?["Actual Rows"]?.intValue == 0)
            // Walking the 3,000 queued runs, each with a look at its structure's, handled 78,000 rows and read 3,750
            // buffers (4,600-12,000 with wider rows; a sequential scan reads fewer buffers, but every row); this
            // way, 800 rows and 440 buffers.
            let rows = Self.rowsHandled(plan)
            #expect(rows < 3000, "\(mode): a claim behind 3,000 waiting runs handled \(rows) rows:\n\(text)")
            #expect(hits < 1500, "\(mode): a claim behind 3,000 waiting runs read \(hits) buffers:\n\(text)")
        }
    }

    @Test("a claim planned while the table has no column statistics (a queue just filled and vacuumed, not yet analyzed) does not read a structure's backlog for each run of the queue's front")
    func claimCostWithoutStatistics() throws {
        // 30,000 runs queued on one structure, the first 3,000 of them ended; then the first autovacuum's VACUUM sets the
        // table's size, and a plan made before its ANALYZE has no statistics to go by.
        let (conninfo, store) = try Self.storeWithoutStatistics(queuing: 30000, on: 1)
        try store.execute(
            "UPDATE matterflow_runs SET status = 'failed', started_at = now(), finished_at = now() WHERE run_id <= 'run-line-003000'",
            doing: "test setup")
        try store.execute("VACUUM matterflow_runs", doing: "test setup")
        for (mode, plan, text) in try Self.explainedClaims(conninfo, analyzed: false) {
            #expect(plan?["Actual Rows"]?.intValue == 1, "the structure's first queued run: \(text)")
            // Each of the front's runs looks for its structure's turn among the runs queued before it, not among all
            // 27,000 (2,500,000 rows and 1.4 s a claim).
            let rows = Self.rowsHandled(plan)
            #expect(rows < 200_000, "\(mode): a claim without statistics handled \(rows) rows:\n\(text)")
        }
        #expect(try store.claim(by: "w1", limit: 32, leaseSeconds: 60).map(\.runID) == ["run-line-003001"])
    }

    @Test("a claim on structures with thousands of runs queued at one moment and none running reads hundreds of rows, not each structure's backlog or the whole queue")
    func claimCostWithNothingRunning() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        // 3,000 runs on 10 structures, queued by one transaction: one submission time.
        try Self.queue(3000, structures: 10, named: "line", store: store)
        try store.execute("UPDATE matterflow_runs SET submitted_at = timestamptz '2026-01-01 00:00:00+00'", doing: "test setup")
        for (mode, plan, text) in try Self.explainedClaims(conninfo) {
            #expect(plan?["Actual Rows"]?.intValue == 10, "each structure's first run: \(text)")
            // Before, each structure's look for a running run read its 300 queued ones, and the queue's head was
            // sorted from all 3,000.
            let rows = Self.rowsHandled(plan)
            #expect(rows < 1500, "\(mode): a claim handled \(rows) rows:\n\(text)")
        }
        #expect(try store.claim(by: "w1", limit: 32, leaseSeconds: 60).count == 10)
    }

    @Test("a claim from a queue just filled, never analyzed (a factory line's batch), finds the front's runs by their keys, not by comparing every queued run with them")
    func claimFromAQueueNeverAnalyzed() throws {
        // 3,000 runs, each on a structure of its own, as a bulk submission leaves them.
        let (conninfo, store) = try Self.storeWithoutStatistics(queuing: 3000, on: 3000)
        #expect(try store.execute("SELECT count(*) FROM pg_stats WHERE tablename = 'matterflow_runs'", doing: "test").rows == [["0"]])
        for (mode, plan, text) in try Self.explainedClaims(conninfo, analyzed: false) {
            #expect(plan?["Actual Rows"]?.intValue == 32, "\(mode): \(text)")
            // Found through the index of the queue's order, the front's 64 keys were compared with every queued
            // run's entry there: about 1,800 buffers, against 900 found by their keys (the rest is the front's scan,
            // which reads the queue once without statistics).
            let early = Self.indexes(in: plan, under: "CTE early")
            #expect(early.contains("matterflow_runs_pkey") && !early.contains("matterflow_runs_queue_order"), "\(mode): \(early.sorted()) \(text)")
            let buffers = (plan?["Shared Hit Blocks"]?.intValue ?? 0) + (plan?["Shared Read Blocks"]?.intValue ?? 0)
            #expect(buffers < 1300, "\(mode): a claim from a queue never analyzed read \(buffers) buffers:\n\(text)")
        }
        #expect(try store.claim(by: "w1", limit: 32, leaseSeconds: 60).map(\.runID) == (1...32).map { "run-line-" + String(format: "%06d", $0) })
    }

    @Test("a claim whose queue head waits behind running session runs takes the runs after them from the queue's first rows, without a look at each of 2,000 structures")
    func claimPastABlockedHead() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        // The queue's head: 150 runs of 5 structures whose session runs are running (one waiting for an answer, say).
        for structure in 0..<5 {
            try TestPostgres.insertRunning([(run: "run-busy-\(structure)", structure: "busy-\(structure)", worker: "w-busy")], into: store)
        }
        try store.execute("UPDATE matterflow_runs SET works_in_session = true, lease_until = now() + interval '1 hour'", doing: "test setup")
        try Self.queue(150, structures: 5, named: "busy", store: store)
        // Behind it, one run on each of 2,000 other structures.
        try Self.queue(2000, structures: 2000, named: "home", from: 1000, store: store)
        for (mode, plan, text) in try Self.explainedClaims(conninfo) {
            #expect(plan?["Actual Rows"]?.intValue == 32, "\(mode): \(text)")
            // A look at each structure with open runs handled 43,000 rows.
            let rows = Self.rowsHandled(plan)
            #expect(rows < 2000, "\(mode): a claim handled \(rows) rows:\n\(text)")
        }
        let claimed = try store.claim(by: "w1", limit: 32, leaseSeconds: 60).map(\.runID)
        #expect(claimed == (1000..<1032).map { "run-home-" + String(format: "%06d", $0) }, "the first 32 behind the head, in queue order: \(claimed)")
    }

    @Test("behind a queue head of runs waiting for their structure's turn, runs are claimed as at the head: each structure's first session run in queue order, sessionless runs, no run behind a secret one, the limit over all")
    func claimBehindAWaitingHead() throws {
        let store = try PostgresRunStore(conninfo: try TestPostgres.database())
        try TestPostgres.insertRunning([(run: "run-busy", structure: "busy", worker: "w-busy")], into: store)
        try store.execute("UPDATE matterflow_runs SET works_in_session = true, lease_until = now() + interval '1 hour'", doing: "test setup")
        // The queue: one run leaving the session alone, then 200 runs waiting for busy's turn, then the runs to claim.
        try Self.queueRun("run-q00", structure: "free", worksInSession: false, at: 0, store: store)
        try Self.queue(200, structures: 1, named: "busy", from: 1, store: store)
        let behind: [(run: String, structure: String, worksInSession: Bool?, secret: Bool)] = [
            ("run-q01", "s1", true, false), ("run-q02", "s1", true, false), ("run-q03", "s1", false, false),
            ("run-q04", "s2", true, false),
            // Queued before the store knew what its workflow does: taken to work in the session.
            ("run-q05", "s3", nil, false), ("run-q06", "s3", true, false),
            // A run with secrets holds its structure's turn also for workers that cannot claim it.
            ("run-q07", "sec", true, true), ("run-q08", "sec", true, false),
            ("run-q09", "sec2", false, true),
        ]
        for (index, run) in behind.enumerated() {
            try Self.queueRun(run.run, structure: run.structure, worksInSession: run.worksInSession, secret: run.secret, at: 1000 + index, store: store)
        }
        #expect(try store.isIdle(takesSecrets: false) == false)
        #expect(try store.claim(by: "w-plain", limit: 3, leaseSeconds: 60, takesSecrets: false).map(\.runID) == ["run-q00", "run-q01", "run-q03"])
        #expect(try store.claim(by: "w-plain", limit: 10, leaseSeconds: 60, takesSecrets: false).map(\.runID) == ["run-q04", "run-q05"])
        #expect(try store.claim(by: "w-plain", limit: 10, leaseSeconds: 60, takesSecrets: false).isEmpty)
        #expect(try store.claim(by: "w-secrets", limit: 10, leaseSeconds: 60).map(\.runID) == ["run-q07", "run-q09"])
        #expect(try store.claim(by: "w-secrets", limit: 10, leaseSeconds: 60).isEmpty)
        // A structure's turn passes when its session run ends.
        try store.execute("UPDATE matterflow_runs SET status = 'succeeded' WHERE run_id IN ('run-q01', 'run-q07')", doing: "test")
        #expect(try store.claim(by: "w-secrets", limit: 10, leaseSeconds: 60).map(\.runID) == ["run-q02", "run-q08"])
    }

    @Test("with --exit-when-idle, a worker without --secrets is idle when hundreds of runs wait behind a run with secrets on their structure, and not when a run it can claim is queued behind them")
    func idleBehindALongSecretTurn() throws {
        let store = try PostgresRunStore(conninfo: try TestPostgres.database())
        try Self.queueRun("run-secret", structure: "line", worksInSession: true, secret: true, at: 0, store: store)
        try Self.queue(200, structures: 1, named: "line", from: 1, store: store)
        #expect(try store.isIdle(takesSecrets: false))
        #expect(try store.claim(by: "w-plain", limit: 10, leaseSeconds: 60, takesSecrets: false).isEmpty)
        #expect(try !store.isIdle(takesSecrets: true))
        try Self.queueRun("run-elsewhere", structure: "other", worksInSession: true, at: 500, store: store)
        #expect(try !store.isIdle(takesSecrets: false))
        #expect(try store.claim(by: "w-plain", limit: 10, leaseSeconds: 60, takesSecrets: false).map(\.runID) == ["run-elsewhere"])
    }

    /// A claim of 32 runs by `w1`, taking runs with secrets, explained (analyzed, then rolled back) after an `ANALYZE`
    /// (unless not `analyzed`), in a custom and in a generic plan: each plan-cache mode with the plan's top node and
    /// the whole plan's text.
    static func explainedClaims(_ conninfo: String, analyzed: Bool = true) throws -> [(mode: String, plan: JSONValue?, text: String)] {
        let connection = try PostgresConnection(conninfo)
        defer { connection.close() }
        if analyzed { try connection.execute("ANALYZE matterflow_runs") }
        try connection.execute("PREPARE claim_cost AS \(PostgresRunStore.claimStatement)")
        return try ["force_custom_plan", "force_generic_plan"].map { mode in
            try connection.execute("BEGIN")
            try connection.execute("SET LOCAL plan_cache_mode = \(mode)")
            let explained = try connection.execute(
                "EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) EXECUTE claim_cost('w1', '60', '32', 'token', '{}', 't', 't')")
            try connection.execute("ROLLBACK")
            let text = try #require(explained.rows.first?.first ?? nil)
            return (mode, try JSONDocument.parse(text, file: "<explain>").value.arrayValue?.first?["Plan"], text)
        }
    }

    @Test("a scrape's startable age of the queue reads a few rows per structure, not the queue: 20,000 runs leaving the session alone, some handed back, and backlogs behind sessions")
    func startableAgeCost() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try Self.queue(20000, structures: 1, named: "free", store: store)
        try store.execute("UPDATE matterflow_runs SET works_in_session = false", doing: "test setup")
        // 200 of them handed back at a checkpoint over the last minutes; 10 structures with 300 runs behind a running one.
        try store.execute(
            "UPDATE matterflow_runs SET queued_at = now() - make_interval(secs => substr(run_id, 10)::float8 - 19800) WHERE run_id > 'run-free-019800'",
            doing: "test setup")
        for structure in 0..<10 {
            try TestPostgres.insertRunning([(run: "run-busy-\(structure)", structure: "busy-\(structure)", worker: "w-busy")], into: store)
        }
        try store.execute("UPDATE matterflow_runs SET works_in_session = true, lease_until = now() + interval '1 hour' WHERE status = 'running'", doing: "test setup")
        try Self.queue(3000, structures: 10, named: "busy", from: 100_000, store: store)
        let connection = try PostgresConnection(conninfo)
        defer { connection.close() }
        try connection.execute("ANALYZE matterflow_runs")
        let explained = try connection.execute("EXPLAIN (ANALYZE, FORMAT JSON) \(PostgresRunStore.oldestStartable)")
        let text = try #require(explained.rows.first?.first ?? nil)
        let plan = try JSONDocument.parse(text, file: "<explain>").value.arrayValue?.first?["Plan"]
        let rows = Self.rowsHandled(plan)
        #expect(rows < 2000, "the startable age handled \(rows) rows:\n\(text)")
        // The oldest never handed back: the first submitted, at the start of 2026 (and a millisecond).
        let expected = try #require(try store.execute("SELECT extract(epoch FROM now() - timestamptz '2026-01-01 00:00:00.001+00')::float8", doing: "test")
            .rows.first?.first.flatMap { $0.flatMap(Double.init) })
        #expect(abs(try store.metrics().oldestStartableAge - expected) < 60)
    }

    /// A new store of `count` runs queued as `run-line-...` on `structures` structures, whose table autovacuum leaves
    /// alone while the test runs: it has no column statistics until the test makes them.
    static func storeWithoutStatistics(queuing count: Int, on structures: Int, _ test: String = #function) throws -> (String, PostgresRunStore) {
        let conninfo = try TestPostgres.database(test)
        let store = try PostgresRunStore(conninfo: conninfo)
        try store.execute("ALTER TABLE matterflow_runs SET (autovacuum_enabled = false)", doing: "test setup")
        try Self.queue(count, structures: structures, named: "line", store: store)
        return (conninfo, store)
    }

    /// The indexes the nodes of the plan's part named `part` (its `Subplan Name`, such as `CTE early`) scan.
    static func indexes(in node: JSONValue?, under part: String, inside: Bool = false) -> Set<String> {
        guard let node else { return [] }
        let within = inside || node["Subplan Name"]?.stringValue == part
        var found: Set<String> = within ? Set([node["Index Name"]?.stringValue].compactMap { $0 }) : []
        for child in node["Plans"]?.arrayValue ?? [] { found.formUnion(indexes(in: child, under: part, inside: within)) }
        return found
    }

    /// The rows a plan's nodes produced or removed with a filter, each times its loops, summed over the plan.
    static func rowsHandled(_ node: JSONValue?) -> Int {
        guard let node else { return 0 }
        let rows = (node["Actual Rows"]?.intValue ?? 0) + (node["Rows Removed by Filter"]?.intValue ?? 0)
        return rows * (node["Actual Loops"]?.intValue ?? 1) + (node["Plans"]?.arrayValue ?? []).map(rowsHandled).reduce(0, +)
    }

    /// Queues `count` runs working in the session on the structures `named-0`... (or `named` for one), in turn,
    /// submitted `from` milliseconds after the start of 2026 on, one a millisecond.
    static func queue(_ count: Int, structures: Int, named name: String, from start: Int = 1, store: PostgresRunStore) throws {
        try store.execute(
            """
            INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, submitted_at, works_in_session)
            SELECT 'run-' || $1 || '-' || lpad(g::text, 6, '0'), 'w', '/w.json',
                CASE WHEN $2::integer = 1 THEN $1 ELSE $1 || '-' || (g % $2::integer) END,
                '{"deviceName": "Lamp"}', 'queued', timestamptz '2026-01-01 00:00:00+00' + g * interval '1 ms', true
            FROM generate_series($3::integer, $3::integer + $4::integer - 1) g
            """, [name, String(structures), String(start), String(count)], doing: "test setup")
    }

    /// Queues one run, submitted `at` milliseconds after the start of 2026.
    static func queueRun(_ runID: String, structure: String, worksInSession: Bool?, secret: Bool = false, at milliseconds: Int, store: PostgresRunStore) throws {
        try store.execute(
            """
            INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, secret_inputs, status, submitted_at, works_in_session)
            VALUES ($1, 'w', '/w.json', $2, '{}', $3::text[], 'queued', timestamptz '2026-01-01 00:00:00+00' + $4::integer * interval '1 ms', $5::boolean)
            """, [runID, structure, secret ? "{onboardingPayload}" : "{}", String(milliseconds), worksInSession.map { $0 ? "t" : "f" }],
            doing: "test setup")
    }
}
