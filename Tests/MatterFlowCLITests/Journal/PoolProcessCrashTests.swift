import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real process holding journaled runs in a ``RunPool`` is killed with SIGKILL while they wait; this process then
/// recovers them into a pool of its own (`RunJournal.recover(into:)`), where they wait again and end as their event
/// says, each journal ended by recovery.
@Suite("a killed process's pool")
struct PoolProcessCrashTests {
    static let runs = 12

    /// `matterflow-bench`, built beside `matterflow`.
    static var bench: String? {
        Executable.path.map { URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("matterflow-bench").path }
            .flatMap { FileManager.default.isExecutableFile(atPath: $0) ? $0 : nil }
    }

    @Test("its waiting runs come back into a new pool, wait there, and end as their event says")
    func waitingRunsComeBack() async throws {
        let bench = try #require(Self.bench, "matterflow-bench was not found beside matterflow")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = try ChildProcess.launch(["--hold-waiting-runs", String(Self.runs), directory.path], program: bench)
        defer { child.kill() }
        #expect(await child.stdout.waitForLine { $0.hasPrefix("\(Self.runs) journaled runs waiting") }, "\(child.stderr.text)")
        child.signal(SIGKILL)
        #expect(await child.waitForExit())
        #expect(child.status == 128 + SIGKILL)

        let journal = try RunJournal(directory: directory.file("journal"))
        let hub = try SimulatedHub(home: HomeDescription(structure: .init(id: "held", name: "Held"), rooms: [], seed: 1))
        let pool = RunPool(hub: hub, clock: ManualClock(), random: SeededRandomSource(seed: 3))
        let report = await journal.recover(into: pool, options: RecoveryOptions(resume: true))
        #expect(report.runs.count == Self.runs)
        #expect(report.runs.allSatisfy { $0.action == .continuing && $0.resumed }, "\(report.runs.map(\.notes))")
        #expect(pool.waitingForEvents == Self.runs)

        pool.deliver(HubEvent(
            name: "epskcModeDeactivated", structureID: "held", value: "keyUsed", fields: ["deviceID": "router-1"], time: .zero))
        for run in report.runs {
            let pooled = try #require(run.pooled)
            let result = try #require(await pool.result(of: pooled))
            #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
            #expect(result.output?["router"] == "router-1")
            let records = try journal.read(runID: run.runID).records
            #expect(records.suffix(2).map(\.type) == [JournalEntry.Kind.runFinished.rawValue, JournalEntry.Kind.recoveryFinished.rawValue])
        }
        // Every journal is closed and finished: another recovery has nothing to do.
        let again = await journal.recover(on: hub)
        #expect(again.runs.map(\.action) == Array(repeating: .alreadyFinished, count: Self.runs))
    }
}
