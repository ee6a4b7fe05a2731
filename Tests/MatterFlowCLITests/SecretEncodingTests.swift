import Foundation
import MatterFlow
import MatterFlowCLI
import MatterPayload
import Testing

/// Secrets stay hidden in every form a run can show them in: interpolated into text as JSON (escaped quotes and
/// backslashes), in the trace, the result and the journal; and secrets too short to hide are refused up front.
@Suite("Secrets in every encoding")
struct SecretEncodingTests {
    /// A workflow that puts its secret input inside an object and then shows the object as text: as a warning and
    /// in a fail message, where it is JSON-encoded (its `"` and `\` escaped).
    static let workflow = """
        {
          "workflow": "secret-in-json",
          "version": 1,
          "start": "hold",
          "inputs": { "token": { "type": "string", "required": true, "secret": true } },
          "states": {
            "hold": { "type": "assign", "set": { "obj": { "t": "${input.token}" } }, "next": "warn" },
            "warn": { "type": "assign", "warning": "${vars.obj}", "next": "nested" },
            "nested": { "type": "assign", "set": { "text": { "inner": "${vars.obj}" } }, "next": "warnNested" },
            "warnNested": { "type": "assign", "warning": "${vars.text}", "next": "done" },
            "done": { "type": "fail", "code": "unknown", "message": "kept ${vars.obj}" }
          }
        }
        """

    /// A secret holding every character JSON escapes, with distinctive ends to search for.
    static let secret = #"zqQ"Kx\Wv/Jm\n"#

    @Test("a secret holding quotes and backslashes, interpolated as JSON, reaches no output or journal")
    func jsonEscapedSecret() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write(Self.workflow, to: "secret-in-json.json")
        let journal = directory.file("journal")
        let run = await matterflow(["run", file, "--input", "token=\(Self.secret)", "--trace", "jsonl", "--journal", journal])
        #expect(run.code == 1, "\(run.stderr)")
        let result = try run.result()
        #expect((result["warnings"] as? [String])?.count == 2)
        #expect((result["warnings"] as? [String])?.allSatisfy { $0.contains(RunOptions.redacted) } == true)
        let journals = try FileManager.default.contentsOfDirectory(atPath: journal)
        #expect(!journals.isEmpty)
        var shown = [run.stdout, run.stderr]
        for name in journals { shown.append(try String(contentsOfFile: journal + "/" + name, encoding: .utf8)) }
        for text in shown {
            #expect(!text.contains("zqQ"), "the secret's start appears: \(text)")
            #expect(!text.contains("Jm"), "the secret's end appears: \(text)")
        }
        // The same run with --show-secrets shows it, so the test above would see it if it leaked.
        let shownRun = await matterflow(["run", file, "--input", "token=\(Self.secret)", "--show-secrets"])
        #expect(shownRun.stdout.contains("zqQ"))
    }

    @Test("a declared secret input shorter than 4 characters is refused before the run, without echoing it")
    func shortSecretInputRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write(Self.workflow, to: "secret-in-json.json")
        for value in ["q", "Q7", "Jq%"] {
            let run = await matterflow(["run", file, "--input", "token=\(value)"])
            #expect(run.code == 2, "\(value): \(run.stderr)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.contains("error[invalidValue]"))
            #expect(run.stderr.contains("/token"))
            #expect(run.stderr.contains("at least 4 characters"))
            #expect(!run.stderr.contains(value))
        }
        let long = await matterflow(["run", file, "--input", "token=Jq%x"])
        #expect(long.code == 1, "\(long.stderr)")
        let optional = try directory.write(
            Self.workflow.replacingOccurrences(of: #""required": true, "#, with: ""), to: "optional-secret.json")
        let empty = await matterflow(["run", optional, "--input", "token="])
        #expect(empty.code == 1, "an empty secret has nothing to hide: \(empty.stderr)")
    }

    @Test("a commission run with discovery bits 6-7 set succeeds with a warning")
    func discoveryBitsWarnInRun() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        var fields = OnboardingPayload(vendorID: 0xFFF1, productID: 0x8000, discriminator: 3840, passcode: 20_202_021)
        fields.discoveryCapabilities = DiscoveryCapabilities(rawValue: 0xC2)
        let code = try fields.qrCode()
        let run = await matterflow(
            ["run", Repository.workflow("commission-device"), "--home", home] + commissionInputs(payload: code))
        #expect(run.code == 0, "\(run.stderr)")
        let result = try run.result()
        #expect(result["outcome"] as? String == "succeeded")
        let warnings = try #require(result["warnings"] as? [String])
        #expect(warnings.contains { $0.contains("unknownDiscoveryCapabilities") && $0.contains("bits 6, 7") })
        #expect(run.stderr.contains("⚠ onboarding payload: unknownDiscoveryCapabilities"))
        #expect(!run.stderr.contains(code))
        #expect(!run.stdout.contains(code))
    }
}
