import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator

/// The runs a `matterflow worker` makes, without the store: `runs` commission-device runs in this process,
/// `concurrency` at a time, each on a simulated home of its own structure (the built-in home, virtual time), not
/// durable or with a file journal. `Tests/Postgres/fleet-bench.sh` starts as many of these processes as it starts
/// workers, so the store's figures stand next to the same work done without it.
struct WorkerBaselineBenchmark {
    enum Durability: String {
        /// No record of the run is kept.
        case none
        /// Every run is journaled to a file in a directory (fsynced at each side-effect boundary).
        case journal
    }

    let durability: Durability
    let runs: Int
    let concurrency: Int
    /// The journal directory (``Durability/journal``).
    let directory: String?
    /// The workflow file, found from this source file.
    let workflowPath: String

    /// Makes the runs; returns the wall time and how many succeeded.
    func run() async throws -> (seconds: Double, succeeded: Int) {
        let engine = WorkflowEngine()
        let workflow = try engine.load(path: workflowPath)
        let journal = try directory.map { path throws(JournalError) in try RunJournal(directory: path) }
        let clock = VirtualClock()
        let inputs: JSONObject = [
            "onboardingPayload": .string(BenchmarkSuite.payload), "deviceName": "Lamp", "roomName": "Kitchen",
        ]
        let prefix = "base-\(getpid())"
        let started = ContinuousClock.now
        let succeeded = try await withThrowingTaskGroup(of: Bool.self) { group in
            var next = 0
            var succeeded = 0
            func launch() {
                let index = next
                next += 1
                group.addTask {
                    var home = HomeDescription.defaultHome
                    home.structure.id = "\(prefix)-\(index)"
                    let hub = try SimulatedHub(home: home, clock: clock)
                    let options = RunOptions(structureID: home.structure.id, clock: clock, runID: "\(prefix)-\(index)")
                    let result: RunResult
                    if let journal {
                        result = try await journal.run(workflow, inputs: inputs, on: hub, options: options, engine: engine)
                    } else {
                        result = try await engine.run(workflow, inputs: inputs, on: hub, options: options)
                    }
                    return result.outcome == .succeeded
                }
            }
            while next < min(concurrency, runs) { launch() }
            while let ok = try await group.next() {
                if ok { succeeded += 1 }
                if next < runs { launch() }
            }
            return succeeded
        }
        let elapsed = ContinuousClock.now - started
        return (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, succeeded)
    }
}
