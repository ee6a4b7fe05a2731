import MatterFlow
import MatterFlowJSON

/// Workflow text, loaded as if it sat next to the shipped workflows (so `workflow` states can name them), then
/// validated and verified, and its graph built: also of a workflow with errors, as `matterflow graph` draws it.
enum WorkflowFuzz {
    static let loader = WorkflowLoader()

    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let directory = FuzzTarget.repositoryRoot + "/Workflows"
        let outcome = loader.load(text: text, file: directory + "/fuzz.json", baseDirectory: directory)
        if let workflow = outcome.decoded {
            // A graph too large to draw is a located error, which the fuzzer must reach without a trap too.
            for expand in [false, true] {
                guard let graph = try? WorkflowGraph.build(workflow, expand: expand) else { continue }
                _ = graph.dot
                _ = graph.mermaid
            }
        }
        for diagnostic in outcome.diagnostics { _ = diagnostic.description }
    }
}
