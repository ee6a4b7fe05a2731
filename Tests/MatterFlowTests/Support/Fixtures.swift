import Foundation
import MatterFlow
import MatterFlowJSON

/// Paths inside the repository, found from this file rather than the working directory.
enum Repository {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()

    static func workflow(_ name: String) -> String { root + "/Workflows/" + name }
    static var workflowsDirectory: String { root + "/Workflows" }
}

/// Loads workflow text written in a test, resolving sub-workflows from the shipped Workflows folder.
func loadWorkflow(_ text: String, file: String = "test.json") throws -> Workflow {
    try WorkflowEngine().load(text: text, file: file, baseDirectory: Repository.workflowsDirectory)
}

/// All diagnostics for workflow text.
func diagnose(_ text: String, file: String = "test.json") -> [Diagnostic] {
    WorkflowLoader().load(text: text, file: file, baseDirectory: Repository.workflowsDirectory).diagnostics
}

/// Workflow files written to a fresh temporary directory, so sub-workflow paths between them resolve as on disk.
struct WorkflowDirectory {
    let path: String

    /// Writes each file (name relative to the directory, text) to a new directory named after `label`.
    init(_ label: String, files: [String: String]) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("mf-\(label)-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for (name, text) in files { try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8) }
    }

    /// All diagnostics for workflow text loaded as the file `name` of this directory.
    func diagnose(_ text: String, as name: String = "parent.json") -> [Diagnostic] {
        WorkflowLoader().load(text: text, file: path + "/" + name, baseDirectory: path).diagnostics
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Collects a run's events.
final class EventLog: Sendable {
    private let events = MutexBox<[RunEvent]>([])

    var all: [RunEvent] { events.value }
    var names: [String] { all.map(\.name) }

    func record(_ event: RunEvent) { events.mutate { $0.append(event) } }

    var observer: @Sendable (RunEvent) -> Void { { [self] event in record(event) } }
}

import Synchronization

final class MutexBox<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    var value: Value { mutex.withLock { $0 } }
    func mutate(_ body: (inout Value) -> Void) { mutex.withLock { body(&$0) } }
}

/// The standard operations with the catalogs kept beside the workflow file at `path` (`*.catalog.json`), as the
/// examples of custom operations are validated.
func catalogBeside(_ path: String) throws -> OperationCatalog {
    let directory = (path as NSString).deletingLastPathComponent
    let catalogs = try FileManager.default.contentsOfDirectory(atPath: directory)
        .filter { $0.hasSuffix(".catalog.json") }.sorted().map { directory + "/" + $0 }
    return try OperationCatalog(loading: catalogs)
}

extension ManualClock {
    /// Moves the clock through a call's 5 s timeout and then its 5 s grace period, each once something sleeps on it:
    /// a call that ignores cancellation is then abandoned, still running on the hub.
    func passTimeoutAndGrace() async {
        await waitForSleepers(1)
        advance(by: .seconds(5))
        await waitForSleepers(1)
        advance(by: .seconds(5))
    }
}

/// The first warning a run reports, with its message; nil when the run ends (or the stream does) first.
func firstWarning(in events: AsyncStream<RunEvent>) async -> (event: RunEvent, message: String)? {
    for await event in events {
        if case .warning(_, let message) = event.kind { return (event, message) }
        if case .runFinished = event.kind { return nil }
    }
    return nil
}
