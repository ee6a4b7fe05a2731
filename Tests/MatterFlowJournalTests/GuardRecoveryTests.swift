import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// A custom guard's read is journaled as a hub call of the state, marked with the guard: recovery never takes its
/// result for the result of the state's own call.
@Suite("custom guards across recovery")
struct GuardRecoveryTests {
    static let runID = "run-00000000ab12"

    /// A guard reading the standard `fetchRooms`, so the simulated home answers it.
    static let catalogText = """
        { "catalog": "rooms-guard", "version": 1,
          "guards": { "hasRooms": { "summary": "the structure has rooms", "operation": "fetchRooms",
                                    "passesWhen": { "not": { "isEmpty": "${vars.result.roomNames}" } },
                                    "error": { "cause": "roomNotFound", "message": "add a room first" } } } }
        """

    static let workflowText = """
        { "workflow": "guarded-rooms", "version": 1, "start": "list",
          "states": {
            "list": { "type": "action", "operation": "fetchRooms", "guards": ["hasRooms"], "result": "rooms", "next": "done",
                      "onError": [{ "errors": ["*"], "next": "failed" }] },
            "done": { "type": "succeed", "output": "${vars.rooms.roomNames}" },
            "failed": { "type": "fail", "error": "${error}" } } }
        """

    @Test("a run that died after its guard's read and before the state's own call makes that call when resumed")
    func guardReadIsNotTheStatesResult() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let engine = WorkflowEngine(
            catalog: try OperationCatalog.standard.adding(try OperationDeclarations.parse(Self.catalogText, file: "rooms.catalog.json")))
        let path = scratch.file("guarded-rooms.json")
        try Self.workflowText.write(toFile: path, atomically: true, encoding: .utf8)
        let workflow = try engine.load(path: path)
        let journal = try RunJournal(directory: scratch.file("journal"))
        let clock = VirtualClock()
        let hold = ClockHold(clock)
        let result = try await journal.start(
            workflow, on: try SimulatedHub(home: Homes.basic(), clock: clock),
            options: RunOptions(structureID: Homes.structureID, clock: clock, runID: Self.runID), engine: engine
        ).result
        hold.release()
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")

        let file = journal.path(of: Self.runID)
        let intents = try JournalReader.read(path: file).entries().intents
        #expect(intents.map(\.intent.guardName) == ["hasRooms", nil], "the guard's read is marked, the state's own call is not")
        let own = try #require(intents.last)
        // The process died just before the state's own call: the guard's read and its outcome are journaled.
        try cut(file, after: own.sequence - 1)

        let recovery = try #require(
            await journal.recover(
                on: try SimulatedHub(home: Homes.basic(), clock: VirtualClock()),
                options: RecoveryOptions(resume: true, engine: engine, clock: VirtualClock())
            ).runs.first)
        #expect(recovery.resumed && recovery.status == .succeeded, "\(recovery.notes)")
        let after = try JournalReader.read(path: file).entries().intents.filter { $0.sequence >= own.sequence }
        #expect(after.map(\.intent.guardName) == ["hasRooms", nil], "the resumed state checks its guard again, then makes its own call")
    }
}
