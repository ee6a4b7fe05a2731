import MatterFlow
import MatterFlowJSON
import MatterPayload
import Testing

/// An operation argument declared as an onboarding payload (`commissionDevice`'s): checked before the hub sees it,
/// its warnings reported once per state, whichever way the run reaches the call.
@Suite struct PayloadArgumentTests {
    /// A valid QR code with discovery bits 6 and 7 set, which this version does not define.
    static let unknownBitsCode: String = {
        var fields = OnboardingPayload(vendorID: 0xFFF1, productID: 0x8000, discriminator: 3840, passcode: 20_202_021)
        fields.discoveryCapabilities = DiscoveryCapabilities(rawValue: 0xC2)
        return (try? fields.qrCode()) ?? ""
    }()

    /// A run whose payload input is given to `commissionDevice` in a sub-workflow, which fails its first attempt
    /// (`hubOffline`) and is retried.
    static let workflows = [
        "top.json": #"""
            {"workflow": "top", "version": 1, "start": "prepare", "onCancel": "release",
             "inputs": {"onboardingPayload": {"type": "onboardingPayload", "required": true, "secret": true}},
             "states": {
               "prepare": {"type": "action", "operation": "prepareCommissioning", "next": "request",
                           "onError": [{"errors": ["*"], "next": "failed"}]},
               "request": {"type": "action", "operation": "createAddDeviceRequest", "next": "commission",
                           "arguments": {"ecosystemName": "Test", "homes": ["Home"]},
                           "onError": [{"errors": ["*"], "next": "release"}]},
               "commission": {"type": "workflow", "path": "commission.json",
                              "inputs": {"code": "${input.onboardingPayload}"}, "next": "complete",
                              "onError": [{"errors": ["*"], "next": "release"}]},
               "complete": {"type": "action", "operation": "completeCommissioning", "next": "done",
                            "onError": [{"errors": ["*"], "next": "release"}]},
               "release": {"type": "action", "operation": "cancelCommissioning", "next": "failed",
                           "onError": [{"errors": ["*"], "next": "failed"}]},
               "done": {"type": "succeed"},
               "failed": {"type": "fail", "code": "internal", "message": "failed"}
             }}
            """#,
        "commission.json": #"""
            {"workflow": "commission", "version": 1, "start": "commission",
             "inputs": {"code": {"type": "onboardingPayload", "required": true, "secret": true}},
             "states": {
               "commission": {"type": "action", "operation": "commissionDevice",
                              "arguments": {"onboardingPayload": "${input.code}"},
                              "retry": [{"errors": ["hubOffline"], "maxRetries": 1, "intervalSeconds": 1}], "next": "done",
                              "onError": [{"errors": ["*"], "next": "failed"}]},
               "done": {"type": "succeed"},
               "failed": {"type": "fail", "error": "${error}"}
             }}
            """#,
    ]

    @Test("a payload input given to a retried call in a sub-workflow warns once, through run and through start")
    func warningsOnceWhicheverWay() async throws {
        let directory = try WorkflowDirectory("payload-argument", files: Self.workflows)
        defer { directory.remove() }
        let workflow = try WorkflowEngine().load(path: directory.path + "/top.json")
        let inputs: JSONObject = ["onboardingPayload": .string(Self.unknownBitsCode)]
        for useStart in [false, true] {
            let hub = ScriptedHub()
            hub.script("commissionDevice", [.fail(FlowError(.hubOffline, "offline"))])
            let options = RunOptions(structureID: "s", clock: VirtualClock())
            let result =
                useStart
                ? await (try WorkflowEngine().start(workflow, inputs: inputs, on: hub, options: options)).result
                : try await WorkflowEngine().run(workflow, inputs: inputs, on: hub, options: options)
            #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
            #expect(hub.count("commissionDevice") == 2, "the first attempt failed and was retried")
            #expect(result.warnings.count == 1, "once for the state, not per attempt: \(result.warnings)")
            #expect(result.warnings.first?.contains("unknownDiscoveryCapabilities") == true)
            #expect(result.warnings.allSatisfy { !$0.contains(Self.unknownBitsCode) })
        }
    }

    @Test(
        "a direct call with a code that is not valid, or that joins two devices' codes, fails with invalidPayload before the hub sees it",
        arguments: ["34970112333", "MT:Y.K9042C00KA0648G00*634J0KGB00AJVH7SR00"])
    func directCallChecksTheCode(code: String) async throws {
        let hub = ScriptedHub()
        let descriptor = try #require(OperationCatalog.standard["commissionDevice"])
        let error = await #expect(throws: FlowError.self) {
            _ = try await descriptor.call(hub: hub, structure: "s", arguments: ["onboardingPayload": .string(code)])
        }
        #expect(error?.cause == .invalidPayload)
        #expect(error?.message.contains(code) == false)
        #expect(!hub.calls.contains("commissionDevice"), "refused before the hub: \(hub.calls)")
    }
}
