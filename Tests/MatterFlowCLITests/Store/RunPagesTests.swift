import Foundation
@testable import MatterFlowCLI
import MatterFlowJSON
import MatterFlowSimulator
@testable import MatterFlowStore
import Testing

/// `runs --all --json` reads a PostgreSQL store a page at a time (``PostgresRunStore/forEachRun(_:_:)``): the pages
/// together must be the listing read whole, in its order, and no run may be listed twice or missed while runs start
/// and end between pages.
@Suite(.serialized) struct RunPagesTests {
    /// A store of 257 runs: ended ones (some submitted at the same moment, so that a page can end between runs of
    /// one time), queued ones and running ones.
    static func store() throws -> (PostgresRunStore, String) {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try store.execute(
            """
            INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, worker_id, lease_until,
                started_at, finished_at, submitted_at)
            SELECT 'run-' || lpad(g::text, 4, '0'), 'w', '/w.json', 'home-' || g, '{}',
                (ARRAY['succeeded', 'failed', 'cancelled', 'queued', 'running'])[1 + g % 5],
                CASE WHEN g % 5 = 4 THEN 'w1' END, CASE WHEN g % 5 = 4 THEN now() + interval '1 hour' END,
                CASE WHEN g % 5 <> 3 THEN timestamptz '2026-12-01 00:00:00+00' + make_interval(secs => g) END,
                CASE WHEN g % 5 < 3 THEN now() END,
                timestamptz '2026-12-01 00:00:00+00' + make_interval(secs => g / 4)
            FROM generate_series(1, 257) g
            """, doing: "test setup")
        return (store, conninfo)
    }

    static func listed(_ store: PostgresRunStore, _ filter: RunFilter, pageSize: Int) throws -> [String] {
        var runIDs: [String] = []
        try store.forEachRun(filter, pageSize: pageSize) { runIDs.append($0.runID) }
        return runIDs
    }

    @Test("pages of any size are the listing read whole, with every filter")
    func pagesAreTheWholeListing() throws {
        let (store, _) = try Self.store()
        let filters = [
            RunFilter(), RunFilter(statuses: ["succeeded"]), RunFilter(statuses: ["queued", "running"]),
            RunFilter(since: 1_796_083_300), RunFilter(statuses: ["failed", "queued"], since: 1_796_083_250), RunFilter(statuses: ["needsAttention"]),
        ]
        for filter in filters {
            let whole = try store.runs(filter).map(\.runID)
            for pageSize in [1, 4, 7, 100, 257, 1000] {
                #expect(try Self.listed(store, filter, pageSize: pageSize) == whole, "\(filter), pages of \(pageSize)")
            }
        }
        #expect(try store.runs(RunFilter()).count == 257)
        // A limit lists the newest, as runs(_:) does.
        let newest = try store.runs(RunFilter(limit: 3)).map(\.runID)
        #expect(try Self.listed(store, RunFilter(limit: 3), pageSize: 1) == newest)
        // A structure (a home) narrows every form of the listing to its runs.
        let homes = RunFilter(structures: ["home-7", "home-12", "home-nosuch"])
        #expect(try store.runs(homes).map(\.runID) == ["run-0007", "run-0012"])
        for pageSize in [1, 1000] { #expect(try Self.listed(store, homes, pageSize: pageSize) == ["run-0007", "run-0012"]) }
        #expect(try store.runs(RunFilter(limit: 1, structures: ["home-7", "home-12"])).map(\.runID) == ["run-0012"])
        #expect(try store.runs(RunFilter(statuses: ["cancelled"], structures: ["home-7", "home-11"])).map(\.runID) == ["run-0007"])
    }

    @Test("runs --structure lists one home's runs (repeatable), from a store and from a journal directory; with --waiting it is refused")
    func runsOfAStructure() async throws {
        let (_, conninfo) = try Self.store()
        let listed = await matterflow(["runs", "--store", conninfo, "--structure", "home-7", "--structure", "home-8", "--json"])
        #expect(listed.code == 0, "\(listed.stderr)")
        let ids = try #require(try JSONDocument.parse(listed.stdout, file: "<out>").value.arrayValue).compactMap { $0["runID"]?.stringValue }
        #expect(ids == ["run-0007", "run-0008"], "\(listed.stdout)")
        #expect(await matterflow(["runs", "--store", conninfo, "--structure", "home-7", "--waiting"]).code == 64)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        for structure in ["alpha", "beta"] {
            var home = HomeDescription.defaultHome
            home.structure.id = structure
            let file = try directory.write(JSONWriter.pretty(home.jsonValue), to: "\(structure).json")
            let run = await matterflow(["run", Repository.workflow("rooms"), "--home", file, "--journal", journal])
            #expect(run.code == 0, "\(run.stderr)")
        }
        let fromJournal = await matterflow(["runs", "--journal", journal, "--structure", "beta", "--json"])
        let structures = try #require(try JSONDocument.parse(fromJournal.stdout, file: "<out>").value.arrayValue).compactMap { $0["structureID"]?.stringValue }
        #expect(structures == ["beta"], "\(fromJournal.stdout)")
    }

    @Test("pages follow each other by the exact microsecond, whatever the session's DateStyle and TimeZone")
    func pagesWhateverTheDateStyle() throws {
        let (store, conninfo) = try Self.store()
        // Times a microsecond apart, and the zone abbreviation "CST", which PostgreSQL reads back as US Central.
        try store.execute(
            "UPDATE matterflow_runs SET submitted_at = timestamptz '2026-12-01 00:00:00.000001+00' + make_interval(secs => (substr(run_id, 5)::int % 7) / 1000000.0)",
            doing: "test")
        let database = try #require(try store.execute("SELECT current_database()", doing: "test").rows.first?.first ?? nil)
        try store.execute("ALTER DATABASE \(database) SET DateStyle = 'SQL, DMY'", doing: "test")
        try store.execute("ALTER DATABASE \(database) SET TimeZone = 'Asia/Shanghai'", doing: "test")
        let shanghai = try PostgresRunStore(conninfo: conninfo)
        #expect(try shanghai.execute("SHOW DateStyle", doing: "test").rows.first?.first == "SQL, DMY")
        let whole = try shanghai.runs(RunFilter()).map(\.runID)
        #expect(whole.count == 257)
        for pageSize in [1, 3, 10] {
            #expect(try Self.listed(shanghai, RunFilter(), pageSize: pageSize) == whole, "pages of \(pageSize)")
        }
    }

    @Test("runs that start and end between pages are listed once each, none missed")
    func runsChangingBetweenPagesAreListedOnce() throws {
        let (store, _) = try Self.store()
        var runIDs: [String] = []
        var changed = false
        try store.forEachRun(RunFilter(), pageSize: 10) { run in
            runIDs.append(run.runID)
            guard !changed else { return }
            changed = true
            // Every running run ends, and every queued one starts, after the first page was read.
            _ = try? store.execute(
                """
                UPDATE matterflow_runs SET status = CASE status WHEN 'running' THEN 'succeeded' ELSE 'running' END,
                    finished_at = CASE status WHEN 'running' THEN now() END
                WHERE status IN ('queued', 'running')
                """, doing: "test")
        }
        #expect(runIDs.count == 257 && Set(runIDs).count == 257, "\(runIDs.count) listed, \(Set(runIDs).count) different")
        #expect(runIDs == runIDs.sorted(), "oldest first, ties by run ID")
    }

    @Test("runs --all --json writes every run as the table lists them, in the order read, as valid JSON")
    func everyRunAsJSON() async throws {
        let (store, conninfo) = try Self.store()
        let json = await matterflow(["runs", "--store", conninfo, "--all", "--json"])
        #expect(json.code == 0 && json.stderr.isEmpty, "\(json.stderr)")
        let listed = try #require(try JSONDocument.parse(json.stdout, file: "<out>").value.arrayValue)
        let whole = try store.runs(RunFilter())
        #expect(listed.compactMap { $0["runID"]?.stringValue } == whole.map(\.runID))
        #expect(json.stdout == JSONWriter.pretty(.array(whole.map(\.jsonValue))) + "\n", "the text the whole listing made")
        let none = await matterflow(["runs", "--store", conninfo, "--all", "--json", "--status", "needsAttention"])
        #expect(none.code == 0 && none.stdout == "[]\n", "\(none.stdout)")
    }
}
