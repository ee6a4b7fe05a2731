import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// Which workflows work in a structure's commissioning session: the fleet starts those one at a time per structure.
@Suite("workflows that work in the session")
struct WorkflowSessionWorkTests {
    @Test("the shipped workflows that open, use or release the session, directly or through sub-workflows, say so; the others do not")
    func shippedWorkflows() throws {
        let engine = WorkflowEngine()
        let directory = URL(fileURLWithPath: Repository.workflow("prepare.json")).deletingLastPathComponent().path
        var working: [String] = []
        for file in try FileManager.default.contentsOfDirectory(atPath: directory).filter({ $0.hasSuffix(".json") }).sorted() {
            if try engine.load(path: directory + "/" + file).worksInSession() { working.append(file) }
        }
        #expect(working == [
            "add-device.json", "cancel.json", "commission-bridge.json", "commission-device-interactive.json", "commission-device.json",
            "commission.json", "complete.json", "configure.json", "prepare.json",
        ])
    }

    @Test("an operation the catalog asked does not describe counts as working in the session; by its own catalog, a read does not")
    func unknownOperation() throws {
        let sensor = OperationDescriptor(
            name: "readSensor", summary: "reads a sensor", arguments: [], result: .object([]), errors: [], defaultTimeoutSeconds: 1,
            effect: .read) { _, _, _ in [:] }
        var catalog = OperationCatalog.standard
        catalog.add(sensor)
        let workflow = try WorkflowEngine(catalog: catalog).load(
            text: #"""
                {"workflow": "sensor", "version": 1, "start": "read",
                 "states": {"read": {"type": "action", "operation": "readSensor", "next": "done"}, "done": {"type": "succeed"}}}
                """#, baseDirectory: "/")
        #expect(workflow.worksInSession())
        #expect(!workflow.worksInSession(catalog: catalog))
    }
}
