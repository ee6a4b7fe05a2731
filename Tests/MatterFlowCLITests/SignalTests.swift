import Foundation
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT, SIGTERM and SIGHUP (and SIGUSR1, SIGUSR2, SIGALRM, SIGPWR) all take the cancel path: the session is released and the journal records the run
/// as cancelled before the process exits, by itself, with 128 + the signal's number.
@Suite("signals take the cancel path")
struct SignalTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var number: Int32
        var testDescription: String { name }
    }

    static let cases = [
        Case(name: "SIGINT", number: SIGINT), Case(name: "SIGTERM", number: SIGTERM), Case(name: "SIGHUP", number: SIGHUP),
        // Their default would end the process at once, holding the session.
        Case(name: "SIGUSR1", number: SIGUSR1), Case(name: "SIGUSR2", number: SIGUSR2), Case(name: "SIGALRM", number: SIGALRM),
    ] + linuxCases

    #if os(Linux)
        static let linuxCases = [Case(name: "SIGPWR", number: SIGPWR)]
    #else
        static let linuxCases: [Case] = []
    #endif

    /// `matterflow run commission-device` started in a child process on the home `homeJSON`, with a state
    /// directory and a journal in `directory`, tracing JSON lines on the real clock.
    static func commissioning(homeJSON: String, in directory: TemporaryDirectory) throws -> (child: ChildProcess, state: String, journal: String) {
        let home = try directory.write(homeJSON, to: "home.json")
        let state = directory.file("state")
        let journal = directory.file("journal")
        let child = try ChildProcess.launch(
            ["run", Repository.workflow("commission-device"), "--home", home, "--state", state, "--journal", journal,
             "--trace", "jsonl", "--clock", "real"] + commissionInputs())
        return (child, state, journal)
    }

    @Test("a signal while commissioning releases the session, journals the run cancelled and exits 128 + signal", arguments: cases)
    func signalWhileCommissioning(_ signal: Case) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (child, state, journal) = try Self.commissioning(homeJSON: TestHomes.slowCommissioning(), in: directory)
        defer { child.kill() }

        let commissioning = await child.signalWhileCommissioning(signal.number, state: state)
        try #require(commissioning.signalled, "commissionDevice never started; stderr so far:\n\(child.stderr.text)")
        // The session was open and saved while the device was being commissioned (read just before the signal).
        #expect(commissioning.sessionOpen)

        try #require(await child.waitForExit(), "matterflow did not exit after \(signal.name)")
        #expect(child.process.terminationReason == .exit, "\(signal.name) killed the process instead of cancelling the run")
        #expect(child.status == 128 + signal.number)

        let result = try #require(try parseJSON(child.stdout.text) as? [String: Any], "stdout: \(child.stdout.text)")
        #expect(result["outcome"] as? String == "cancelled")
        #expect((result["cancelledBecause"] as? [String: Any])?["signal"] as? String == signal.name, "\(result)")
        #expect(try savedHome(in: state).activeSession == nil, "the session is still held")
        let runs = try RunJournal(existingDirectory: journal).runs()
        #expect(runs.map(\.status) == [.cancelled])
        let records = try JournalReader.read(path: try #require(runs.first).path).records
        #expect(records.contains {
            $0.type == JournalEntry.Kind.outcome.rawValue && $0.string("operation") == "cancelCommissioning"
                && $0.payload["succeeded"]?.boolValue == true
        })
        // Why it was cancelled is kept: in the journal, for a post-mortem, and in the result's error.
        let reasons = records.filter { $0.type == "cancelRequested" }.map { $0.string("reason") }
        #expect(!reasons.isEmpty && reasons.allSatisfy { $0 == "\(signal.name) received" }, "\(reasons)")
        let message = (result["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.hasPrefix("the run was cancelled in state commission/commission (\(signal.name) received); "), "\(message)")
    }

    @Test("a second SIGINT while the cancel path runs is answered: already cancelling, and what SIGKILL would leave to recover")
    func secondSignalIsAnswered() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (child, state, journal) = try Self.commissioning(
            homeJSON: TestHomes.json(extra: #""simulation": { "latencySeconds": { "commissionDevice": 30, "cancelCommissioning": 30 } }"#),
            in: directory)
        defer { child.kill() }
        let first = await child.signalWhileCommissioning(SIGINT, state: state)
        try #require(first.signalled, "commissionDevice never started: \(child.stderr.text)")
        let stderr = child.stderr
        let second = await child.signal(SIGINT, within: ProcessTests.limit) { stderr.text.contains(#""operation":"cancelCommissioning""#) }
        try #require(second != nil, "the cancel path never called cancelCommissioning: \(stderr.text)")
        let answered = await child.signal(SIGKILL, within: ProcessTests.limit) { stderr.text.contains("received again") }
        try #require(answered != nil, "the second SIGINT was not answered: \(stderr.text)")
        #expect(
            stderr.text.contains(
                "SIGINT received again: already cancelling; the run ends once its cancel path has released what it holds (SIGKILL stops it at once and leaves that to `matterflow recover --journal \(ShellWord.quoted(journal))`)"),
            "\(stderr.text)")
    }

    @Test("SIGTERM while recover --resume commissions again: the resumed run is cancelled and releases the session, exit 143")
    func signalWhileResuming() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (state, journal) = try await killWhileCommissioning(Repository.workflow("commission-device"), in: directory)
        let path = try #require(try RunJournal(existingDirectory: journal).runs().first).path
        let child = try ChildProcess.launch(
            ["recover", "--journal", journal, "--state", state, "--resume", "--clock", "real",
             "--input", "onboardingPayload=\(Payloads.specQR)"])
        defer { child.kill() }

        // SIGTERM once the resumed run has started commissioning again, as its journal shows.
        let commissioning = await child.signal(SIGTERM, within: ProcessTests.limit) {
            let records = (try? JournalReader.read(path: path).records) ?? []
            guard let started = records.firstIndex(where: { $0.type == JournalEntry.Kind.recoveryStarted.rawValue }) else { return false }
            return records[started...].contains { $0.type == JournalEntry.Kind.intent.rawValue && $0.string("operation") == "commissionDevice" }
        }
        try #require(commissioning != nil, "the resumed run never commissioned again; stderr: \(child.stderr.text)")
        try #require(await child.waitForExit(), "matterflow recover did not exit after SIGTERM")
        #expect(child.process.terminationReason == .exit, "SIGTERM killed recover instead of cancelling the resumed run")
        #expect(child.status == 143, "\(child.stderr.text)")
        #expect(try savedHome(in: state).activeSession == nil, "the session is still held")
        let runs = try RunJournal(existingDirectory: journal).runs()
        #expect(runs.map(\.status) == [.cancelled])
        let report = try #require(try parseJSON(child.stdout.text) as? [String: Any], "stdout: \(child.stdout.text)")
        let run = try #require((report["runs"] as? [[String: Any]])?.first)
        #expect(run["status"] as? String == "cancelled")
        #expect((run["notes"] as? [String])?.contains { $0.contains("a signal interrupted the resumed run") } == true, "\(run)")
        let records = try JournalReader.read(path: path).records
        let started = try #require(records.firstIndex { $0.type == JournalEntry.Kind.recoveryStarted.rawValue })
        let reasons = records[started...].filter { $0.type == "cancelRequested" }.map { $0.string("reason") }
        #expect(!reasons.isEmpty && reasons.allSatisfy { $0 == "recovery interrupted: SIGTERM received" }, "\(reasons)")
    }

    @Test("a reader of its output that goes away (`2>&1 | head -1`) does not end a run mid-call: it goes on, releases the session and exits 1, its output lost")
    func readerGoesAway() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.slowCommissioning(seconds: 2), to: "slow-home.json")
        let state = directory.file("state")
        let output = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(Executable.path))
        process.arguments = ["run", Repository.workflow("commission-device"), "--home", home, "--state", state, "--clock", "real"] + commissionInputs()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        // The run's first lines, then the reader goes away while the device is being commissioned.
        #expect(!output.fileHandleForReading.availableData.isEmpty)
        try output.fileHandleForReading.close()
        let deadline = ContinuousClock.now + ProcessTests.limit
        while process.isRunning && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        try #require(!process.isRunning, "matterflow run did not exit")
        #expect(process.terminationReason == .exit, "SIGPIPE ended the run (signal \(process.terminationStatus))")
        #expect(process.terminationStatus == 1)
        let saved = try savedHome(in: state)
        #expect(saved.activeSession == nil, "the session is still held")
        #expect(saved.devices.map(\.name).contains("Lamp"), "the run stopped before configuring the device: \(saved.devices.map(\.name))")
    }
}
