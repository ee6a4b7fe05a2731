import MatterFlow
import MatterFlowJSON
import Synchronization
import Testing

/// A manual code typed in full-width digits (a Japanese or Chinese input method) is the same code: the input is
/// taken, the hub is given the ASCII code, and neither form shows in the run's events.
@Suite("full-width onboarding payloads")
struct FullWidthPayloadTests {
    @Test("commission-device takes a full-width manual code, gives the hub its ASCII form, and redacts both")
    func fullWidthManualCode() async throws {
        let typed = "３４９７\u{FF0D}０１１\u{FF0D}２３３２"
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device.json"))
        let hub = ScriptedHub()
        let events = Mutex<[String]>([])
        let result = try await WorkflowEngine().run(
            workflow, inputs: ["onboardingPayload": .string(typed), "deviceName": "Lamp"], on: hub,
            options: RunOptions(structureID: "s", clock: ManualClock(), observer: { event in
                events.withLock { $0.append(JSONWriter.compact(event.jsonValue)) }
            }))
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(hub.onboardingPayloads == ["3497-011-2332"])
        let trace = events.withLock { $0 }.joined(separator: "\n")
        #expect(!trace.contains("3497") && !trace.contains("２３３２"), "\(trace)")
    }
}
