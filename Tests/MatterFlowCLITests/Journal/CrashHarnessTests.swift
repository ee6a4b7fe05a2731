import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
import Synchronization
import Testing

/// Crash tests: real `matterflow run --journal` processes killed with SIGKILL — at every journal boundary of
/// commission-device (through the `MATTERFLOW_CRASH_AT` test hook) and at 100 seeded random moments — then
/// `matterflow recover`. After each: every journal is readable, every run's final status is known, no session is
/// left active (so no device is left pending), every device has a journal record of its creation, a second
/// recovery changes no byte, and a new commissioning on the same state succeeds.
@Suite("crash harness")
struct CrashHarnessTests {
    static let workflow = Repository.workflow("commission-device")
    static let startingDevices: Set<String> = ["device-existing"]
    /// Crashed runs proceed one at a time, leaving a core to the rest of the suite.
    static let parallelism = 1

    /// One crash: the run is started, dies (or finishes), and is recovered; the world is then checked.
    static func crash(
        label: String, homeJSON: String, extraRunArguments: [String] = [], environment: [String: String] = [:],
        killAfter delay: Duration? = nil
    ) async throws -> Int32 {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(homeJSON, to: "home.json")
        let world = RecoveredWorld(journalDirectory: directory.file("journal"), stateDirectory: directory.file("state"))
        let child = try JournalChild.launch(
            ["run", workflow, "--home", home, "--state", world.stateDirectory, "--journal", world.journalDirectory,
                "--trace", "none"] + extraRunArguments + commissionInputs(),
            environment: environment)
        defer { child.kill() }
        if let delay {
            try await Task.sleep(for: delay)
            child.kill()
        }
        if await !child.waitForExit() {
            let report = await child.hangReport()
            Issue.record("\(label): the run did not end\n\(report)")
            throw ChildProcessHung()
        }
        let status = child.status

        // Like the run, recovery names the home that seeds an empty state directory.
        let journaled = FileManager.default.fileExists(atPath: world.journalDirectory)
        let recover = try await JournalChild.run(
            ["recover", "--journal", world.journalDirectory, "--state", world.stateDirectory, "--home", home],
            label: "recovery after \(label)")
        if journaled {
            #expect(recover.status == 0, "\(label): recover exited \(recover.status): \(recover.stderr)")
        } else {
            // The run died before it created its journal directory, so before it touched the hub: recovery reports
            // the missing directory and creates nothing.
            #expect(recover.status == 2 && recover.stderr.contains("journalNotFound"), "\(label): \(recover.stderr)")
            #expect(!FileManager.default.fileExists(atPath: world.journalDirectory), "\(label): recover created the journal directory")
        }
        try world.check(label, startingDevices: startingDevices)

        let settled = try world.fingerprint()
        let again = await matterflowVirtual(
            ["recover", "--journal", world.journalDirectory, "--state", world.stateDirectory, "--home", home])
        #expect(again.code == 0, "\(label): \(again.stderr)")
        #expect(!again.stderr.contains("recovered →"), "\(label): a second recovery recovered again: \(again.stderr)")
        #expect(try world.fingerprint() == settled, "\(label): a second recovery changed the journal or the home")

        // Nothing is left blocking the structure: a new commissioning succeeds.
        let next = await matterflowVirtual(
            ["run", workflow, "--home", home, "--state", world.stateDirectory, "--journal", world.journalDirectory,
                "--trace", "none"] + commissionInputs(payload: Payloads.lampQR, name: "Desk Lamp"))
        #expect(next.code == 0, "\(label): a run after recovery failed: \(next.stdout)")
        try world.check(label + " (after the next run)", startingDevices: startingDevices)
        return status
    }

    /// Runs `work` for every element, `parallelism` at a time.
    static func forEach<Element: Sendable>(
        _ elements: [Element], _ work: @escaping @Sendable (Element) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            var pending = elements[...]
            for _ in 0..<parallelism {
                guard let next = pending.popFirst() else { break }
                group.addTask { try await work(next) }
            }
            while try await group.next() != nil {
                guard let next = pending.popFirst() else { continue }
                group.addTask { try await work(next) }
            }
        }
    }

    @Test("SIGKILL at every journal boundary of commission-device, then recover", .timeLimit(.minutes(5)))
    func everyBoundary() async throws {
        // Learn the boundaries from an uninterrupted journaled run.
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let journal = directory.file("journal")
        let complete = try await JournalChild.run(
            ["run", Self.workflow, "--home", home, "--journal", journal, "--trace", "none"] + commissionInputs())
        #expect(complete.status == 0)
        let path = try #require(try RunJournal(directory: journal).journalPaths().first)
        let records = try JournalReader.read(path: path).records
        #expect(records.count > 30)
        var boundaries: [String] = []
        for record in records {
            boundaries += ["after:\(record.sequence)", "torn:\(record.sequence)"]
            // Just before an outcome record the hub call has happened: the in-doubt moment.
            if record.type == JournalEntry.Kind.outcome.rawValue { boundaries.append("before:\(record.sequence)") }
        }
        #expect(boundaries.count >= 2 * records.count)
        try await Self.forEach(boundaries) { boundary in
            let status = try await Self.crash(
                label: "MATTERFLOW_CRASH_AT=\(boundary)", homeJSON: TestHomes.json(),
                environment: ["MATTERFLOW_CRASH_AT": boundary, "MATTERFLOW_TEST_HOOKS": "1"])
            #expect(status == 128 + SIGKILL, "MATTERFLOW_CRASH_AT=\(boundary): the run was not killed there (status \(status))")
        }
    }

    @Test("SIGKILL of recovery itself at each of its boundaries: the next recovery finishes the job", .timeLimit(.minutes(5)))
    func crashDuringRecovery() async throws {
        // The run dies just before the outcome of commissionDevice: the device was added, so recovery has an
        // in-doubt call to reconcile and a session to release.
        let probe = try TemporaryDirectory()
        defer { probe.remove() }
        let probeHome = try probe.write(TestHomes.json(), to: "home.json")
        _ = try await JournalChild.run(
            ["run", Self.workflow, "--home", probeHome, "--journal", probe.file("journal"), "--trace", "none"] + commissionInputs())
        let records = try JournalReader.read(path: try #require(try RunJournal(directory: probe.file("journal")).journalPaths().first)).records
        let commissioned = try #require(records.first { $0.type == JournalEntry.Kind.outcome.rawValue && $0.string("operation") == "commissionDevice" })
        let crashAt = "before:\(commissioned.sequence)"
        // Recovery writes records from there on: recoveryStarted, resolution, intent, outcome, runFinished, recoveryFinished.
        let first = commissioned.sequence
        var boundaries: [String] = []
        for sequence in first..<(first + 6) { boundaries += ["before:\(sequence)", "after:\(sequence)", "torn:\(sequence)"] }
        try await Self.forEach(boundaries) { boundary in
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let home = try directory.write(TestHomes.json(), to: "home.json")
            let world = RecoveredWorld(journalDirectory: directory.file("journal"), stateDirectory: directory.file("state"))
            let common = ["--home", home, "--state", world.stateDirectory, "--journal", world.journalDirectory]
            let run = try await JournalChild.run(
                ["run", Self.workflow, "--trace", "none"] + common + commissionInputs(),
                environment: ["MATTERFLOW_CRASH_AT": crashAt, "MATTERFLOW_TEST_HOOKS": "1"])
            #expect(run.status == 128 + SIGKILL)
            let recovery = try await JournalChild.run(
                ["recover"] + common,
                environment: ["MATTERFLOW_CRASH_AT": boundary, "MATTERFLOW_TEST_HOOKS": "1"])
            #expect([0, 128 + SIGKILL].contains(recovery.status), "recovery killed at \(boundary): \(recovery.status)")
            let settle = try await JournalChild.run(["recover"] + common)
            #expect(settle.status == 0, "after recovery was killed at \(boundary): \(settle.stderr)")
            try world.check("recovery killed at \(boundary)", startingDevices: Self.startingDevices)
            let settled = try world.fingerprint()
            _ = await matterflowVirtual(["recover"] + common)
            #expect(try world.fingerprint() == settled, "recovery killed at \(boundary): a further recovery changed something")
        }
    }

    @Test("SIGKILL at 100 seeded random moments of real-time runs, then recover", .timeLimit(.minutes(5)))
    func randomMoments() async throws {
        // Small real latencies make a run last ~0.2 s, so the kills land all along it.
        let homeJSON = TestHomes.json(extra: #"""
            "simulation": { "latencySeconds": { "prepareCommissioning": 0.02, "createAddDeviceRequest": 0.01, "commissionDevice": 0.06, "fetchRooms": 0.01, "configureDevice": 0.01, "completeCommissioning": 0.02, "cancelCommissioning": 0.01 } }
            """#)
        let random = SeededRandomSource(seed: 0x5EED_C0DE)
        let delays = (0..<100).map { _ in Int(random.uniform(below: 300)) }
        let killed = Counter()
        try await Self.forEach(Array(delays.enumerated())) { index, milliseconds in
            let status = try await Self.crash(
                label: "random moment #\(index) (+\(milliseconds) ms)", homeJSON: homeJSON,
                extraRunArguments: ["--clock", "real"], killAfter: .milliseconds(milliseconds))
            #expect([0, 128 + SIGKILL].contains(status), "random moment #\(index): status \(status)")
            if status == 128 + SIGKILL { killed.increment() }
        }
        #expect(killed.value >= 50, "most random moments should land inside the run; only \(killed.value) did")
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let count = Mutex(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}
