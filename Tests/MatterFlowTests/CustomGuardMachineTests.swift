import MatterFlowJSON
import Testing

@testable import MatterFlow

/// The run machine checking a custom operation guard, driven by hand: the guard's read is a `call` handed to the
/// driver while the machine checks the guard, and only the call's end may follow.
@Suite struct CustomGuardMachineTests {
    static func machine() throws -> RunMachine {
        let catalog = try CustomGuardTests.catalog()
        let workflow = try WorkflowEngine(catalog: catalog).load(
            text: CustomGuardTests.workflowText(guards: #"["charged"]"#), baseDirectory: "/")
        return RunMachine(
            place: workflow.model.topPlace(catalog: catalog), inputs: try workflow.resolveInputs(["deviceID": "sensor-1"]),
            configuration: .init(runID: "run-1", structureID: "s", random: SeededRandomSource(seed: 3)))
    }

    @Test func aGuardsReadIsACallAndAStatusEndIsRefusedWhileItRuns() throws {
        var run = try Self.machine()
        _ = try run.start()
        let actions = try run.proceed()
        guard case .call(let call)? = actions.last else {
            Issue.record("checking the guard hands over no call: \(actions.map { "\($0)" })")
            return
        }
        #expect(call.operation.name == "readBattery" && call.guardName == "charged" && call.state == "read")
        #expect(call.arguments == ["deviceID": "sensor-1"], "a null argument is left out")
        #expect(call.timeout == .seconds(7))
        #expect(run.phaseName == "checkingGuard")
        let refused = try #require(throws: RunMachineError.self) { try run.statusChecked(.finished(HubStatus(online: true, reachable: true, permissionGranted: true, activeSession: false))) }
        #expect(refused.description.contains("statusChecked while checkingGuard"))
        #expect(run.phaseName == "checkingGuard", "a refused input changes nothing")
        // The read's end: the guard passes, and the state's own call follows.
        guard case .call(let own)? = try run.callEnded(.finished(["percent": 55])).last else {
            Issue.record("the state's own call did not follow the guard")
            return
        }
        #expect(own.operation.name == "fetchRooms" && own.guardName == nil)
        #expect(own.context.idempotencyKey == "run-1/2", "the guard's read was the run's first call")
    }
}
