import Foundation
import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
import Testing

/// A run whose hub's connection is lost during a call: its journal stops at that call (left in doubt for
/// `recover`), saying so in one record, so that the run's end, `recover` and `history` name the hub, not a full
/// disk or a stopped process.
@Suite("journal of a run whose hub was lost")
struct HubLossJournalTests {
    @Test("the journal says the hub's connection was lost; the warning and recovery's message say so, not a write failure or a stopped process")
    func theLossIsRecorded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try ServedHome()
        var journal = try RunJournal(directory: directory.file("journal"))
        journal.remoteHub = RemoteHubIdentity(endpoint: "served", name: "served")
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        let structure = HomeDescription.defaultHome.structure.id
        let handle = try journal.start(
            workflow, inputs: ["onboardingPayload": .string(Payloads.specQR), "deviceName": "Lamp"], on: try await home.connect(),
            options: RunOptions(structureID: structure, clock: ManualClock(), runID: "run-000000105500"))
        let path = journal.path(of: "run-000000105500")
        // commissionDevice, the run's third call, never ends on the hub's manual clock: the connection goes during it.
        let calling = await poll(timeout: .seconds(60)) {
            ((try? JournalReader.read(path: path).records) ?? []).filter { $0.type == "intent" }.count == 3
        }
        #expect(calling)
        home.drop(0)
        let result = await handle.result
        #expect(result.outcome == .failed)

        let records = try JournalReader.read(path: path).records
        let loss = try #require(records.first { $0.payload["hubConnectionLost"] == true }, "\(records.map(\.type))")
        #expect(loss.type == "warning")
        #expect(loss.payload["message"]?.stringValue?.hasPrefix("the hub's connection was lost during commissionDevice (") == true)
        #expect(records.last?.sequence == loss.sequence, "the journal stops there, leaving the call in doubt")

        let warning = try #require(journal.unrecordedEnd(of: "run-000000105500", outcome: result.outcome))
        #expect(warning.contains("stops at a call during which the hub's connection was lost ("), "\(warning)")
        #expect(!warning.contains("full disk"), "\(warning)")

        var options = RecoveryOptions(clock: ManualClock())
        options.remoteHub = RemoteHubIdentity(endpoint: "served", name: "served")
        let report = await journal.recover(on: try await home.connect(), options: options)
        #expect(report.runs.first?.action == .recovered, "\(report.runs.first?.notes ?? [])")
        let message = try #require(try JournalReader.read(path: path).entries().finished?.error?.message)
        #expect(message.contains("(its hub's connection was lost: "), "\(message)")
        #expect(!message.contains("its process stopped"), "\(message)")
    }
}
