import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// A run that dies while its ePSKc key is active: recovery withdraws the key, through the workflow's own cancel
/// path when it can, by itself when the workflow cannot be run.
@Suite("recovery of ePSKc sharing")
struct EpskcRecoveryTests {
    static let runID = "run-0000000e95c0"

    /// A journaled epskc-share run whose journal breaks right after the key was activated; the hub's time stands
    /// still and its first deactivation fails, so the key is still active when the run is over, as when the
    /// process dies there.
    struct Scenario {
        let scratch: Scratch
        let hub: SimulatedHub
        let structure: StructureID
        let router: String
        let journal: RunJournal

        init(workflowDirectory: String) async throws {
            let home = try HomeDescription.load(path: Repository.root + "/Examples/border-router-home.json")
            structure = home.structure.id
            router = try #require(home.thread.borderRouters.first?.deviceID)
            scratch = try Scratch()
            let workflow = try WorkflowEngine().load(path: workflowDirectory + "/epskc-share.json")

            // Learn where the activation's outcome is from an uninterrupted run.
            let learning = try RunJournal(directory: scratch.file("learning"))
            let learningClock = VirtualClock()
            let complete = try await learning.run(
                workflow, on: try SimulatedHub(home: home, clock: learningClock),
                options: RunOptions(structureID: structure, clock: learningClock, runID: EpskcRecoveryTests.runID))
            #expect(complete.outcome == .succeeded)
            let records = try JournalReader.read(path: learning.path(of: EpskcRecoveryTests.runID)).records
            let intent = try #require(records.first { $0.type == JournalEntry.Kind.intent.rawValue && $0.string("operation") == "activateEpskc" })
            let outcome = try #require(records.first { $0.type == JournalEntry.Kind.outcome.rawValue && $0.key == intent.key }).sequence

            hub = try SimulatedHub(home: home, clock: ManualClock())
            await hub.addFault(.fail(.deactivateEpskc, attempts: 1...1, with: FlowError(.injectedFault, "the radio is busy")), structure: structure)
            journal = try RunJournal(directory: scratch.file("journal"))
            let clock = VirtualClock()
            let handle = try journal.start(
                workflow, on: hub, options: RunOptions(structureID: structure, clock: clock, runID: EpskcRecoveryTests.runID),
                testHook: { boundary in boundary.position == .before && boundary.sequence == outcome + 1 ? .tear : .proceed })
            _ = await handle.result
        }

        func recover() async -> RunRecovery? {
            await journal.recover(on: hub, options: RecoveryOptions(clock: VirtualClock())).runs.first
        }

        var records: [JournalRecord] {
            get throws { try JournalReader.read(path: journal.path(of: EpskcRecoveryTests.runID)).records }
        }
    }

    @Test("the workflow's cancel path withdraws the key the dead run left active")
    func withdrawnByTheWorkflow() async throws {
        let scenario = try await Scenario(workflowDirectory: Repository.root + "/Workflows")
        defer { scenario.scratch.remove() }
        #expect(await scenario.hub.epskcPhase(structure: scenario.structure, deviceID: scenario.router) == .started)
        #expect(try scenario.journal.runs().first?.status == .interrupted)

        let run = try #require(await scenario.recover())
        #expect(run.status == .cancelled)
        #expect(run.withdrewEpskc.isEmpty)
        #expect(await scenario.hub.epskcPhase(structure: scenario.structure, deviceID: scenario.router) != .started)
        let records = try scenario.records
        let recovery = try #require(records.firstIndex { $0.type == JournalEntry.Kind.recoveryStarted.rawValue })
        let withdrawal = try #require(records[recovery...].first { $0.type == JournalEntry.Kind.intent.rawValue && $0.string("operation") == "deactivateEpskc" })
        #expect(withdrawal.string("workflow") == "epskc-share")
        #expect(withdrawal.string("state") == "stop")
        #expect(records.last?.type == JournalEntry.Kind.recoveryFinished.rawValue)
    }

    @Test("when the workflow cannot be run, recovery withdraws the key itself")
    func withdrawnByRecovery() async throws {
        let copy = try Scratch()
        defer { copy.remove() }
        for name in ["epskc-share.json", "find-border-router.json"] {
            try FileManager.default.copyItem(atPath: Repository.workflow(String(name.dropLast(5))), toPath: copy.file(name))
        }
        let scenario = try await Scenario(workflowDirectory: copy.path)
        defer { scenario.scratch.remove() }
        try FileManager.default.removeItem(atPath: copy.file("epskc-share.json"))
        #expect(await scenario.hub.epskcPhase(structure: scenario.structure, deviceID: scenario.router) == .started)

        let run = try #require(await scenario.recover())
        #expect(run.status == .cancelled)
        #expect(run.withdrewEpskc == [scenario.router])
        #expect(run.notes.contains { $0.contains("could not be loaded") }, "\(run.notes)")
        #expect(await scenario.hub.epskcPhase(structure: scenario.structure, deviceID: scenario.router) != .started)
        let withdrawal = try #require(try scenario.records.last { $0.type == JournalEntry.Kind.intent.rawValue })
        #expect(withdrawal.string("workflow") == "recovery")
        #expect(withdrawal.string("operation") == "deactivateEpskc")
    }
}

