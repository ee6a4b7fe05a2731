import MatterFlow
import MatterFlowJSON
import Testing

@Suite struct ShippedWorkflowTests {
    static let files = [
        "prepare.json", "add-device.json", "commission.json", "rooms.json", "configure.json", "cancel.json",
        "complete.json", "commission-device.json", "find-border-router.json", "border-router-info.json",
        "epskc-share.json", "epskc-stop.json", "join-network.json", "leave-network.json", "internet-access.json",
    ]

    @Test("every shipped workflow validates with no findings", arguments: files)
    func validates(file: String) {
        let diagnostics = WorkflowEngine().validate(path: Repository.workflow(file))
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.description))")
    }

    @Test func commissionDeviceCommissionsOnAHealthyHub() async throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device.json"))
        let hub = ScriptedHub()
        let result = try await WorkflowEngine().run(
            workflow, inputs: ["onboardingPayload": "MT:Y.K9042C00KA0648G00", "deviceName": "Lamp", "roomName": "Kitchen"],
            on: hub, options: RunOptions(structureID: "s", clock: ManualClock(), random: SeededRandomSource(seed: 1)))
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(result.output?["deviceIDs"] == ["device-1"])
        #expect(result.output?["room"] == "Kitchen")
        #expect(result.output?["roomsOffered"] == ["Kitchen", "Office"])
        #expect(hub.session.phase == .completed)
        #expect(hub.count("cancelCommissioning") == 0)
    }
}
