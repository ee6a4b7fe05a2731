import Foundation
import MatterFlow
import MatterFlowJSON
import MatterPayload
import Testing

/// Inputs of type `onboardingPayload`: their non-secret facts are readable in conditions and templates before
/// commissioning, the passcode never (docs/workflow-language.md, section 3).
@Suite("onboarding payload facts")
struct PayloadFactsTests {
    static let example = Repository.root + "/Examples/payload-facts"
    /// Vendor 4937, product 2, discriminator 1234, custom flow, passcode 34567890.
    static let customFlowQR = "MT:IJVJ0EVU02MGVH7SR00"
    static let customFlowPasscode = "34567890"

    /// A workflow whose single succeed state outputs `output` (templates over input `code`).
    static func workflow(output: String, in directory: TemporaryDirectory) throws -> String {
        try directory.write(
            """
            {
              "workflow": "facts",
              "version": 1,
              "inputs": { "code": { "type": "onboardingPayload", "required": true } },
              "start": "done",
              "states": { "done": { "type": "succeed", "output": \(output) } }
            }
            """, to: "facts.json")
    }

    @Test func everyFactOfAQRCodeIsReadable() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let facts = try Self.workflow(
            output: """
                { "kind": "${input.code.kind}", "version": "${input.code.version}", "vendorID": "${input.code.vendorID}",
                  "productID": "${input.code.productID}", "flow": "${input.code.commissioningFlow}",
                  "discovery": "${input.code.discoveryCapabilities}", "discriminator": "${input.code.discriminator}",
                  "short": "${input.code.shortDiscriminator}", "text": "vendor ${input.code.vendorID} product ${input.code.productID}" }
                """, in: directory)
        let run = await matterflow(["run", facts, "--input", "code=\(Self.customFlowQR)", "--trace", "none"])
        #expect(run.code == 0, "\(run.stderr)")
        let output = try #require(try run.result()["output"] as? [String: Any])
        #expect(output["kind"] as? String == "qr")
        #expect(output["version"] as? Int == 0)
        #expect(output["vendorID"] as? Int == 4937)
        #expect(output["productID"] as? Int == 2)
        #expect(output["flow"] as? String == "custom")
        #expect(output["discovery"] as? [String] == ["ble"])
        #expect(output["discriminator"] as? Int == 1234)
        #expect(output["short"] as? Int == 1234 >> 8)
        #expect(output["text"] as? String == "vendor 4937 product 2")
        #expect(!run.stdout.contains(Self.customFlowPasscode))
    }

    @Test func aManualCodeHasOnlyTheShortDiscriminator() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let facts = try Self.workflow(
            output: #"{ "kind": "${input.code.kind}", "vendorID": "${input.code.vendorID}", "discriminator": "${input.code.discriminator}", "short": "${input.code.shortDiscriminator}", "discovery": "${input.code.discoveryCapabilities}" }"#,
            in: directory)
        let run = await matterflow(["run", facts, "--input", "code=34970112332", "--trace", "none"])
        #expect(run.code == 0, "\(run.stderr)")
        let output = try #require(try run.result()["output"] as? [String: Any])
        #expect(output["kind"] as? String == "manual")
        #expect(output["vendorID"] is NSNull)
        #expect(output["discriminator"] is NSNull)
        #expect(output["short"] as? Int == 15)
        #expect(output["discovery"] is NSNull)
    }

    @Test("a 21-digit manual code's flow is nonStandard: it does not say user intent or custom; the QR code does")
    func aLongManualCodeSaysOnlyNonStandard() throws {
        let device = OnboardingPayload(
            vendorID: 0xFFF1, productID: 0x8000, discriminator: 3840, passcode: 20_202_021, commissioningFlow: .userIntent)
        let manual = try device.manualCode()
        #expect(manual.count == 21)
        #expect(OnboardingPayloadFacts.facts(of: manual)?["commissioningFlow"] == "nonStandard")
        #expect(OnboardingPayloadFacts.facts(of: try device.qrCode())?["commissioningFlow"] == "userIntent")
        #expect(OnboardingPayloadFacts.facts(of: "34970112332")?["commissioningFlow"] == "standard")
    }

    @Test func thePasscodeCannotBeRead() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for member in ["passcode", "setupPasscode", "pinCode"] {
            let file = try Self.workflow(output: #"{ "p": "${input.code.\#(member)}" }"#, in: directory)
            let run = await matterflow(["validate", file])
            #expect(run.code == 2)
            #expect(run.stderr.contains("error[unknownField]: /states/done/output/p: ${input.code.\(member)} reads into object {kind,"), "\(run.stderr)")
        }
        // An input of type any holding the same code gives no way round it: only declared payload inputs have facts.
        let untyped = try directory.write(
            """
            { "workflow": "untyped", "version": 1, "inputs": { "code": { "type": "any", "secret": true } }, "start": "done",
              "states": { "done": { "type": "succeed", "output": { "p": "${input.code.passcode}" } } } }
            """, to: "untyped.json")
        let run = await matterflow(["run", untyped, "--input", "code=\(Self.customFlowQR)", "--trace", "jsonl"])
        #expect(run.code == 1)
        #expect(try run.resultError()["cause"] as? String == "unresolvedReference")
        #expect(!run.stdout.contains(Self.customFlowPasscode) && !run.stderr.contains(Self.customFlowPasscode))
    }

    @Test func aPayloadInputIsSecretAndCheckedBeforeTheRun() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try Self.workflow(output: #"{ "vendor": "${input.code.vendorID}" }"#, in: directory)
        let traced = await matterflow(["run", file, "--input", "code=\(Self.customFlowQR)", "--trace", "jsonl"])
        #expect(traced.stderr.contains(#""inputs":{"code":"<redacted>"}"#), "\(traced.stderr)")
        #expect(!traced.stderr.contains(Self.customFlowQR))
        let broken = "MT:Y.K9042C00KA0648G01"
        let invalid = await matterflow(["run", file, "--input", "code=\(broken)", "--trace", "none"])
        #expect(invalid.code == 2)
        #expect(invalid.stderr.contains("error[invalidValue]: /code: input \"code\" is not a valid QR code"), "\(invalid.stderr)")
        #expect(!invalid.stderr.contains(broken) && !invalid.stderr.contains("20202021"))
    }

    @Test("a QR code joining two devices' payloads is refused before any hub call: commissionDevice takes one device")
    func aJoinedQRCodeIsRefusedBeforeTheRun() async throws {
        let joined = "MT:Y.K9042C00KA0648G00*634J0KGB00AJVH7SR00"
        let run = await matterflow(
            ["run", Repository.workflow("commission-device"), "--input", "onboardingPayload=\(joined)", "--input", "deviceName=Lamp", "--trace", "jsonl"])
        #expect(run.code == 2, "\(run.stderr)")
        #expect(
            run.stderr.contains("error[invalidValue]: /onboardingPayload: input \"onboardingPayload\" is not a valid QR code")
                && run.stderr.contains("holds 2 devices' payloads; commission one device at a time"),
            "\(run.stderr)")
        #expect(!run.stderr.contains("runStarted"), "a run started: \(run.stderr)")
        #expect(!run.stderr.contains("634J0KGB00AJVH7SR00") && !run.stderr.contains("Y.K9042C00KA0648G00"))
        #expect(OnboardingPayloadFacts.facts(of: joined) == nil)
    }

    /// A default is checked as a given code is: at load, naming its place, so a sub-workflow handed the run's payload
    /// never gets one nobody checked.
    @Test func aPayloadDefaultIsCheckedWhenTheWorkflowLoads() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let broken = "MT:Y.K9042C00KA0648G01"
        _ = try directory.write(
            #"{"workflow": "inner", "version": 1, "inputs": {"code": {"type": "onboardingPayload", "required": true}},"#
                + #" "start": "done", "states": {"done": {"type": "succeed", "output": {"vendor": "${input.code.vendorID}"}}}}"#,
            to: "inner.json")
        let outer = try directory.write(
            #"{"workflow": "outer", "version": 1, "inputs": {"code": {"type": "onboardingPayload", "default": "\#(broken)"}},"#
                + #" "start": "facts", "states": {"facts": {"type": "workflow", "path": "inner.json", "inputs": {"code": "${input.code}"},"#
                + #" "next": "done"}, "done": {"type": "succeed"}}}"#,
            to: "outer.json")
        let run = await matterflow(["run", outer, "--trace", "none"])
        #expect(run.code == 2)
        #expect(
            run.stderr.contains("outer.json:1:") && run.stderr.contains("/inputs/code/default")
                && run.stderr.contains("the default of input \"code\" is not a valid QR code"),
            "\(run.stderr)")
        #expect(!run.stderr.contains(broken))
        // A valid default is used, and its facts read in the sub-workflow.
        let good = try directory.write(
            try String(contentsOfFile: outer, encoding: .utf8).replacingOccurrences(of: broken, with: Self.customFlowQR), to: "good.json")
        let ran = await matterflow(["run", good, "--trace", "none"])
        #expect(ran.code == 0, "\(ran.stderr)")
        // A workflow built in code skips the loader: its run checks the default instead.
        let built = try WorkflowEngine().load(path: good).with { $0.inputs[0].defaultValue = .string(broken) }
        #expect(throws: DiagnosticsError.self) { try built.resolveInputs([:]) }
        do {
            _ = try built.resolveInputs([:])
        } catch {
            #expect(error.diagnostics.map(\.pointer) == ["/code"])
            #expect(error.diagnostics.first?.message.contains("the default of input \"code\" is not a valid QR code") == true)
            #expect(!error.diagnostics.contains { $0.message.contains(broken) })
        }
        #expect(try built.resolveInputs(["code": .string(Self.customFlowQR)])["code"] == .string(Self.customFlowQR))
    }

    @Test func theExampleRefusesCustomFlowDevicesAndNotesTestVendors() async throws {
        let run = await matterflow(["test", Self.example + "/fixtures"])
        #expect(run.code == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.hasSuffix("3 passed, 0 failed\n"), "\(run.stdout)")
        let refused = await matterflow([
            "run", Self.example + "/commission-checked-device.json", "--input", "onboardingPayload=\(Self.customFlowQR)",
            "--input", "deviceName=Blinds", "--trace", "none",
        ])
        #expect(refused.code == 1)
        let error = try refused.resultError()
        #expect(error["cause"] as? String == "customCommissioningFlow")
        #expect((error["message"] as? String)?.contains("vendor 4937, product 2") == true)
        #expect(!refused.stdout.contains(Self.customFlowPasscode))
    }
}
