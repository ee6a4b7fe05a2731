import Foundation
import MatterFlow
import MatterFlowJournal
import MatterFlowSimulator
@testable import MatterFlowStore
import Testing

/// A dead worker's run, claimed for takeover by a worker that is told to stop before it started it, goes back to be
/// taken over: settled from its records as the dead worker left them, never resumed as if it had been handed back
/// at a checkpoint.
extension PostgresStoreTests {
    @Test("SIGTERM: a dead worker's run claimed for takeover and not started is handed back for takeover, and the next worker settles it, not resumes it")
    func unstartedTakeoverIsHandedBackForTakeover() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Reads take 30 s, so the first worker dies in the middle of one; releasing a session takes 20 s, so the
        // second worker's two takeovers hold its two slots while the third waits, claimed ahead.
        let home = try Self.slowHome(in: directory, latencies: ["fetchRooms": 30, "cancelCommissioning": 20])
        let state = directory.file("state")
        let secrets = try Self.secretsDirectory(in: directory)
        let runIDs = try await submitCommissions(3, conninfo: conninfo, secrets: secrets, prefix: "ahead")
        let store = try PostgresRunStore(conninfo: conninfo)

        // The first worker reaches the read in all three runs, and dies.
        let doomed = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--home", home, "--state", state, "--secrets", secrets, "--clock", "real",
             "--lease", "1", "--concurrency", "3", "--worker-id", "doomed"])
        defer { doomed.kill() }
        let killed = await doomed.signal(SIGKILL, within: .seconds(60)) { runIDs.allSatisfy { store.hasIntent(of: "fetchRooms", run: $0) } }
        try #require(killed != nil, "the runs never all reached fetchRooms; worker said:\n\(doomed.stderr.text)")
        try #require(await doomed.waitForExit(), "the killed worker did not go")
        // All three leases run out before the next worker looks, so its first claim takes all three: two for its
        // slots, one ahead.
        let expired = await act(within: .seconds(30), when: {
            let rows = try? store.execute(
                "SELECT count(*) FROM matterflow_runs WHERE run_id = ANY($1::text[]) AND lease_until < now()",
                [PostgresRunStore.textArrayLiteral(runIDs)], doing: "reading leases")
            return rows?.rows.first?.first == "3"
        }) {}
        try #require(expired != nil, "the dead worker's leases did not run out")

        let leaving = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--home", home, "--state", state, "--secrets", secrets, "--clock", "real",
             "--lease", "30", "--concurrency", "2", "--worker-id", "leaving"])
        defer { leaving.kill() }
        let releasing = { @Sendable (runID: String) in store.hasIntent(of: "cancelCommissioning", run: runID) }
        let signalled = await leaving.signal(SIGTERM, within: .seconds(60)) { runIDs.filter(releasing).count == 2 }
        try #require(signalled != nil, "two takeovers never reached their release; worker said:\n\(leaving.stderr.text)")
        try #require(await leaving.waitForExit(within: .seconds(40)), "the worker did not exit within 40 s of SIGTERM")
        #expect(leaving.status == 0, "\(leaving.stderr.text)")
        let unstarted = try #require(runIDs.first { !releasing($0) })
        #expect(
            leaving.stderr.text.contains("handed back 1 run(s) claimed for takeover and not started, for takeover: \(unstarted)"),
            "\(leaving.stderr.text)")
        // Not back in the queue, where the next worker would resume it as if it had been parked at a checkpoint.
        #expect(try store.status(of: unstarted) == "running")

        let staying = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--home", home, "--state", state, "--secrets", secrets, "--clock", "virtual",
             "--lease", "30", "--exit-when-idle", "--worker-id", "staying"])
        defer { staying.kill() }
        try #require(await staying.waitForExit(within: .seconds(60)), "the third worker did not finish")
        #expect(staying.status == 0, "\(staying.stderr.text)")
        #expect(staying.stderr.text.contains("settling run \(unstarted)"), "\(staying.stderr.text)")
        #expect(!staying.stderr.text.contains("resuming run \(unstarted)"), "\(staying.stderr.text)")
        let settled = try #require(try store.runs().first { $0.runID == unstarted })
        #expect(settled.status == "cancelled", "\(settled.notes)")
        #expect(settled.recovered)
        for runID in runIDs {
            #expect(try store.status(of: runID) == "cancelled")
            let saved = try #require(try HomeStateStore.loadSaved(directory: state + "/ahead-\(runIDs.firstIndex(of: runID) ?? 0)"))
            #expect(saved.activeSession == nil)
        }
        #expect(try store.sessions().isEmpty)
    }
}
