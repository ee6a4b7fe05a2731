import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import Testing

/// A journaled run calls the hub through the journal's copy of the catalog: every declared fact must survive it.
@Suite("journaled catalog") struct RecordedCatalogTests {
    @Test("wrapping keeps each operation's order rules, release rule and idempotency key")
    func wrappingKeepsEveryDeclaredFact() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        let custom = OperationDescriptor(
            name: "tagDevice", summary: "a service's own operation", arguments: [], result: .object([]),
            errors: [.deviceNotFound], defaultTimeoutSeconds: 5, effect: .nonIdempotentWrite,
            requires: [OrderRequirement(.session, ["commissionDevice"])], releaseAttemptSuffices: true,
            idempotencyKey: "tagID"
        ) { _, _, _ in [:] }
        let catalog = OperationCatalog(OperationCatalog.standard.operations + [custom], events: OperationCatalog.standard.events)
        let recorder = JournalRecorder(
            writer: try JournalWriter(creating: scratch.file("run.journal"), hook: nil), runID: "run-1", workflow: workflow,
            structureID: "home", showSecrets: false, catalog: catalog)
        let wrapped = recorder.wrapping(catalog)
        #expect(wrapped.operations.map(\.name) == catalog.operations.map(\.name))
        for (original, copy) in zip(catalog.operations, wrapped.operations) {
            #expect(copy.jsonValue == original.jsonValue, "\(original.name)")
            #expect(copy.requires == original.requires && copy.releaseAttemptSuffices == original.releaseAttemptSuffices)
        }
    }
}
