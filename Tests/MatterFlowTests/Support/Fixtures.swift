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
