import Foundation
import MatterFlow
import MatterFlowCLI
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
import Testing

/// `matterflow` as a child process with a chosen environment (for the crash-test hook).
final class JournalChild {
    let process: Process
    let stdout: PipeCollector
    let stderr: PipeCollector

    private init(process: Process, stdout: PipeCollector, stderr: PipeCollector) {
        self.process = process
        self.stdout = stdout
        self.stderr = stderr
    }

    static func launch(_ arguments: [String], environment extra: [String: String] = [:]) throws -> JournalChild {
        let executable = try #require(Executable.path, "the matterflow executable was not found")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = FileManager.default.temporaryDirectory
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "MATTERFLOW_CRASH_AT")
        environment.removeValue(forKey: "MATTERFLOW_TEST_HOOKS")
        for (key, value) in extra { environment[key] = value }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return JournalChild(process: process, stdout: PipeCollector(out), stderr: PipeCollector(err))
    }

    /// Runs to the end (or 60 s) and returns the exit status (128 + signal when killed by a signal).
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try launch(arguments, environment: environment)
        defer { child.kill() }
        try #require(await child.waitForExit(), "matterflow \(arguments.joined(separator: " ")) did not exit")
        return (child.status, child.stdout.text, child.stderr.text)
    }

    func waitForExit(within limit: Duration = .seconds(60)) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while process.isRunning || !stdout.ended || !stderr.ended {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    var status: Int32 {
        process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    func kill() {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
    }
}

/// What a state directory and a journal directory look like after recovery: the invariants the crash tests
/// check.
struct RecoveredWorld {
    let journalDirectory: String
    let stateDirectory: String

    /// Checks: every journal readable without damage; every run's status final; no active session; every device
    /// beyond the starting home's has a journal record of its creation.
    func check(_ label: String, startingDevices: Set<String>, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws {
        let journal = try RunJournal(directory: journalDirectory)
        var created = Set<String>()
        for path in try journal.journalPaths() {
            let contents = try JournalReader.read(path: path)
            #expect(contents.problems.isEmpty, "\(label): \(path) is damaged: \(contents.problems)", sourceLocation: sourceLocation)
            if !contents.records.isEmpty {
                #expect(contents.tornTail == nil, "\(label): a recovered journal kept a torn tail", sourceLocation: sourceLocation)
            }
            for record in contents.records {
                created.formUnion(record.payload["devices"]?.arrayValue?.compactMap(\.stringValue) ?? [])
                created.formUnion(record.payload["result"]?["deviceIDs"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            }
        }
        for run in try journal.runs() {
            #expect(
                [.succeeded, .failed, .cancelled, .notStarted].contains(run.status),
                "\(label): run \(run.runID) is \(run.status.rawValue) after recovery", sourceLocation: sourceLocation)
        }
        guard let home = try HomeStateStore.loadSaved(directory: stateDirectory) else { return }
        #expect(home.activeSession == nil, "\(label): a session is still active: \(home.activeSession.map { "\($0)" } ?? "")", sourceLocation: sourceLocation)
        for device in home.devices where !startingDevices.contains(device.id) {
            #expect(created.contains(device.id), "\(label): device \(device.id) has no journal record of its creation", sourceLocation: sourceLocation)
        }
    }

    /// The bytes of every journal and of home.json, to show that a second recovery changes nothing.
    func fingerprint() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for path in try RunJournal(directory: journalDirectory).journalPaths() {
            files[path] = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        let home = stateDirectory + "/" + HomeStateStore.fileName
        if FileManager.default.fileExists(atPath: home) { files[home] = try Data(contentsOf: URL(fileURLWithPath: home)) }
        return files
    }
}

/// Runs `matterflow` in-process on virtual time (recovery replays nothing, but the hub may wait on its clock).
func matterflowVirtual(_ arguments: [String]) async -> ToolRun {
    let out = CapturedText()
    let err = CapturedText()
    let code = await MatterflowTool.main(
        arguments: arguments,
        environment: ToolEnvironment(standardOutput: out, standardError: err, handlesInterrupts: false, clock: VirtualClock()))
    return ToolRun(code: code, stdout: out.text, stderr: err.text)
}
