import Foundation
import MatterFlow
import Testing

/// Graphviz must accept every picture MatterFlow draws (required on CI, where .ci/run installs it; skipped elsewhere
/// without it). `dot` is started by the suite's one spawner, like every other child of the tests, so it holds no
/// descriptor of another test's children.
@Suite struct GraphvizRenderingTests {
    @Test func graphvizRendersEveryPicture() async throws {
        let dot = ["/usr/bin/dot", "/usr/local/bin/dot"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let dot else {
            #expect(ProcessInfo.processInfo.environment["CI"] == nil, "CI needs Graphviz: .ci/run installs it")
            return
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        var pictures = [try WorkflowGraph.build(workflow).dot, try WorkflowGraph.build(workflow, expand: true).dot]
        pictures += MachineGraph.machines.map { MachineGraph.build($0.table, activeStates: $0.activeStates).dot }
        for (index, picture) in pictures.enumerated() {
            let path = try directory.write(picture, to: "picture-\(index).dot")
            let child = try ChildProcess.launch(["-Tsvg", path], program: dot)
            defer { child.kill() }
            try #require(await child.waitForExit(), "dot did not finish picture \(index)")
            #expect(child.status == 0, "\(child.stderr.text)")
            #expect(child.stdout.text.contains("<svg"))
            #expect(child.stderr.text.isEmpty, "\(child.stderr.text)")
        }
    }
}
