import MatterFlow
import MatterFlowJSON
import Testing

/// A `commissionDevice` state that passes no `commissioningID` gets one generated per run: the hub's idempotency
/// key never collides between runs.
@Suite struct GeneratedCommissioningIDTests {
    static let inputs: JSONObject = ["onboardingPayload": "MT:Y.K9042C00KA0648G00"]

    /// Runs the shipped `commission.json` (no `commissioningID` input) and returns the run and the ID the hub got.
    func commission(structure: StructureID, random: any RandomSource) async throws -> (RunResult, String?, [RunEvent]) {
        let hub = ScriptedHub()
        let handle = try WorkflowEngine().start(
            try WorkflowEngine().load(path: Repository.workflow("commission.json")), inputs: Self.inputs, on: hub,
            options: RunOptions(structureID: structure, clock: ManualClock(), random: random))
        var events: [RunEvent] = []
        for await event in handle.events { events.append(event) }
        return (await handle.result, hub.commissioningIDs.first, events)
    }

    @Test func runsOnTheSameOrAnotherStructureGetDifferentIDs() async throws {
        let random = SeededRandomSource(seed: 7)
        let (first, firstID, events) = try await commission(structure: "s", random: random)
        let (second, secondID, _) = try await commission(structure: "s", random: random)
        let (other, otherID, _) = try await commission(structure: "t", random: random)
        let ids = [firstID, secondID, otherID].compactMap { $0 }
        #expect(ids.count == 3)
        #expect(Set(ids).count == 3, "two runs shared a commissioning ID: \(ids)")
        #expect(firstID == first.runID + "/commission")
        #expect(secondID == second.runID + "/commission")
        #expect(otherID == other.runID + "/commission")
        // The generated ID is an argument like any other: the trace (and so the journal's intent) shows it.
        let started = events.compactMap { event -> JSONObject? in
            if case .hubCallStarted(_, "commissionDevice", _, let arguments) = event.kind { return arguments }
            return nil
        }
        #expect(started.first?["commissioningID"] == firstID.map(JSONValue.string))
    }

    @Test func theSameRandomSeedGivesTheSameID() async throws {
        let (_, first, _) = try await commission(structure: "s", random: SeededRandomSource(seed: 11))
        let (_, again, _) = try await commission(structure: "s", random: SeededRandomSource(seed: 11))
        #expect(first != nil)
        #expect(first == again)
    }

    @Test func anIDTheStatePassesIsKept() async throws {
        let hub = ScriptedHub()
        var inputs = Self.inputs
        inputs["commissioningID"] = "attempt-7"
        let result = try await WorkflowEngine().run(
            try WorkflowEngine().load(path: Repository.workflow("commission.json")), inputs: inputs, on: hub,
            options: RunOptions(structureID: "s", clock: ManualClock(), random: SeededRandomSource(seed: 7)))
        #expect(hub.commissioningIDs == ["attempt-7"])
        #expect(result.runID != "attempt-7")
    }
}
