import Foundation
import MatterFlow
import MatterFlowCLI
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
import Testing

/// `matterflow` as a child process with a chosen environment (for the crash-test hook).
typealias JournalChild = ChildProcess

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
            #expect(throws: Never.self, "\(label): every record decodes", sourceLocation: sourceLocation) { try contents.entries() }
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

/// A run killed with SIGKILL while the hub commissions the device (30 s of simulated latency, real time).
func killWhileCommissioning(_ workflow: String, in directory: TemporaryDirectory) async throws -> (state: String, journal: String) {
    let home = try directory.write(TestHomes.slowCommissioning(), to: "slow-home.json")
    let state = directory.file("state")
    let journal = directory.file("journal")
    let child = try JournalChild.launch(
        ["run", workflow, "--home", home, "--state", state, "--journal", journal, "--trace", "jsonl", "--clock", "real"]
            + commissionInputs())
    defer { child.kill() }
    // Killed once commissionDevice has started and the home saved its session as commissioning (the 30 s call is
    // still running then), whatever the machine's load.
    let stderr = child.stderr
    let killed = await child.signal(SIGKILL) {
        stderr.hasLine(startsCommissionDevice) && (try? HomeStateStore.loadSaved(directory: state))?.activeSession?.phase == .commissioning
    }
    try #require(killed != nil, "commissionDevice never started with its session saved: \(child.stderr.text)")
    try #require(await child.waitForExit())
    #expect(child.status == 128 + SIGKILL)
    #expect(try savedHome(in: state).activeSession?.phase == .commissioning, "the killed run left no session commissioning")
    return (state, journal)
}

/// Raw members of a record as the file holds them, for tests that check the on-disk format itself.
extension JournalRecord {
    func string(_ member: String) -> String? { payload[member]?.stringValue }
}
