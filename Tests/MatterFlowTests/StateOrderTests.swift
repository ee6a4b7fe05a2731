import MatterFlow
import MatterFlowJSON
import Testing

/// A workflow's definition may list a name twice in `stateOrder` or leave a state out: runs of any size still work.
@Suite struct StateOrderTests {
    /// A chain `s0 -> s1 -> ... -> s(count-1) -> done`, longer than the engine's scanned-lookup threshold.
    static func chain(_ count: Int) -> String {
        var states = (0..<count).map { index in
            #""s\#(index)": {"type": "assign", "set": {"last": \#(index)}, "next": "\#(index + 1 < count ? "s\(index + 1)" : "done")"}"#
        }
        states.append(#""done": {"type": "succeed", "output": "${vars.last}"}"#)
        return #"{"workflow": "t", "version": 1, "start": "s0", "states": {"# + states.joined(separator: ",\n") + "}}"
    }

    @Test func aRepeatedNameInStateOrderDoesNotTrapALargeWorkflow() async throws {
        // The same number of names as states, one of them twice and one state not listed.
        let workflow = try loadWorkflow(Self.chain(40)).with { $0.stateOrder[1] = $0.stateOrder[0] }
        let result = try await WorkflowEngine().run(
            workflow, on: ScriptedHub(), options: RunOptions(structureID: "s", clock: ManualClock(), random: SeededRandomSource(seed: 7)))
        #expect(result.outcome == .succeeded)
        #expect(result.output == 39)
        #expect(result.visitedStates.count == 41)
    }
}
