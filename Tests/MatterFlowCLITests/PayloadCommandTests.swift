import MatterFlowCLI
import MatterFlowJSON
import MatterPayload
import Testing

/// `matterflow payload` and `matterflow payload generate`, in-process.
@Suite struct PayloadCommandTests {
    struct Outcome {
        var code: Int32
        var stdout: String
        var stderr: String
    }

    func matterflow(_ arguments: String...) async -> Outcome {
        await matterflow(arguments)
    }

    func matterflow(_ arguments: [String]) async -> Outcome {
        let out = CapturedText()
        let err = CapturedText()
        let code = await MatterflowTool.main(
            arguments: arguments, environment: ToolEnvironment(standardOutput: out, standardError: err))
        return Outcome(code: code, stdout: out.text, stderr: err.text)
    }

    func decodedArray(_ text: String) throws -> [JSONValue] {
        try #require(try JSONDocument.parse(text, file: "stdout").value.arrayValue)
    }

    @Test("a 21-digit manual code's flow is said to be not standard, not shown as custom alone")
    func aLongManualCodesFlowIsNotStandard() async throws {
        for flow in ["user-intent", "custom"] {
            let generated = await matterflow(
                "payload", "generate", "--vendor-id", "65521", "--product-id", "32769", "--discriminator", "3840",
                "--passcode", "20202021", "--flow", flow, "--json")
            let manual = try #require(try JSONDocument.parse(generated.stdout, file: "stdout").value["manualCode"]?.stringValue)
            let decoded = await matterflow("payload", manual)
            #expect(decoded.code == 0)
            #expect(
                decoded.stdout.contains(
                    "  commissioningFlow: 2 (not standard: a 21-digit manual code does not say whether it is 1, user intent, or 2, custom)\n"),
                "\(decoded.stdout)")
        }
        let short = await matterflow("payload", "34970112332")
        #expect(short.stdout.contains("  commissioningFlow: 0\n"), "\(short.stdout)")
    }

    @Test func decodesTheExampleQRCode() async throws {
        let result = await matterflow("payload", "MT:Y.K9042C00KA0648G00", "--json", "--reveal-secrets")
        #expect(result.code == 0)
        let payloads = try decodedArray(result.stdout)
        #expect(payloads.count == 1)
        let payload = try #require(payloads.first)
        #expect(payload["kind"] == "qr")
        #expect(payload["vendorID"] == .int(0xFFF1))
        #expect(payload["productID"] == .int(0x8000))
        #expect(payload["discriminator"] == 3840)
        #expect(payload["shortDiscriminator"] == 15)
        #expect(payload["passcode"] == 20202021)
        #expect(payload["commissioningFlow"] == 0)
        #expect(payload["commissioningFlowName"] == "standard")
        #expect(payload["discoveryCapabilities"] == 2)
    }

    @Test("a QR code's optional data is shown: serial number, PBKDF parameters, vendor fields, in text and JSON")
    func optionalDataIsShown() async throws {
        // rs-matter's code with a serial number and two vendor fields.
        let vendor = "MT:-24J0AFN00KA064IJ3P0IXZB0DK5N1K8SQ1RYCU1UXH34YY0V3KY.O3DKN440F710Q940"
        let text = await matterflow("payload", vendor)
        #expect(text.code == 0)
        #expect(text.stdout.contains("  optional data:\n    serialNumber: \"1234567890\"\n    vendorFields: 2\n"), "\(text.stdout)")
        let json = try #require(try decodedArray(await matterflow("payload", vendor, "--json").stdout).first)
        #expect(json["optionalData"] == ["serialNumber": "1234567890", "vendorFields": 2])

        let parameters = try OnboardingPayload(
            vendorID: 0xFFF1, productID: 0x8000, discriminator: 3840, passcode: 20_202_021,
            extensionData: PayloadExtensionData(
                serialNumber: .number(42), pbkdfIterations: 2000, pbkdfSalt: Array(repeating: 0xAB, count: 16),
                numberOfDevices: 3, commissioningTimeout: 600)
        ).qrCode()
        let shown = try #require(try decodedArray(await matterflow("payload", parameters, "--json").stdout).first)
        #expect(shown["optionalData"] == [
            "serialNumber": 42, "pbkdfIterations": 2000, "pbkdfSalt": .string(String(repeating: "AB", count: 16)),
            "numberOfDevices": 3, "commissioningTimeout": 600,
        ])
        #expect(shown["passcode"] == "redacted")

        let plain = try #require(try decodedArray(await matterflow("payload", "MT:Y.K9042C00KA0648G00", "--json").stdout).first)
        #expect(plain["optionalData"] == nil, "a code without optional data has no member for it")
    }

    @Test("the setup passcode is shown only with --reveal-secrets, in text and JSON")
    func thePasscodeIsHiddenUnlessRevealed() async throws {
        let text = await matterflow("payload", "MT:Y.K9042C00KA0648G00")
        #expect(text.code == 0)
        #expect(!text.stdout.contains("20202021"), "\(text.stdout)")
        #expect(text.stdout.contains("passcode: [redacted] (--reveal-secrets shows it)"))
        let json = await matterflow("payload", "34970112332", "--json")
        #expect(!json.stdout.contains("20202021"))
        #expect(try decodedArray(json.stdout).first?["passcode"] == "redacted")
        let revealed = await matterflow("payload", "34970112332", "--reveal-secrets")
        #expect(revealed.stdout.contains("passcode: 20202021"), "\(revealed.stdout)")
    }

    @Test func decodesTheExampleManualCodeWithoutVendorOrLongDiscriminator() async throws {
        for code in ["34970112332", "3497-011-2332", "3497 011 2332"] {
            let result = await matterflow("payload", code, "--json", "--reveal-secrets")
            #expect(result.code == 0, "\(code): \(result.stderr)")
            let payload = try #require(try decodedArray(result.stdout).first)
            #expect(payload["kind"] == "manual")
            #expect(payload["shortDiscriminator"] == 15)
            #expect(payload["passcode"] == 20202021)
            #expect(payload["vendorID"] == nil)
            #expect(payload["productID"] == nil)
            #expect(payload["discriminator"] == nil)
        }
    }

    @Test func aWrongCheckDigitExitsTwoNamingTheCheckDigitsPlaceOnly() async {
        let result = await matterflow("payload", "34970112333")
        #expect(result.code == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("checkDigitMismatch"))
        #expect(result.stderr.contains("at character 11 "), "\(result.stderr)")
        #expect(!result.stderr.contains("should be 2"))
        #expect(!result.stderr.contains("is 3"))
    }

    @Test func aMalformedPasscodeToGenerateIsNotRepeated() async {
        let result = await matterflow(
            "payload", "generate", "--vendor-id", "1", "--product-id", "1", "--discriminator", "1", "--passcode", "2020x2021")
        #expect(result.code == 64)
        #expect(result.stderr.contains("'--passcode' must be a whole number written in decimal digits (1 to 99999998)\n"), "\(result.stderr)")
        #expect(!result.stderr.contains("2020x2021"))
        // The options generate cannot go without are shown as such.
        #expect(result.stderr.contains("Usage: matterflow payload generate --vendor-id <id> --product-id <id> --discriminator <n> --passcode <n> [--flow <flow>]"), "\(result.stderr)")
    }

    @Test("a field that is no whole number is a usage error; a number past its field's range breaks a rule (2), whichever field")
    func generateFieldsAreCheckedAlike() async {
        let fields = ["--vendor-id": "0xFFF1", "--product-id": "0x8000", "--discriminator": "3840", "--passcode": "20202021"]
        func generate(_ name: String, _ value: String) async -> (code: Int32, stderr: String) {
            var given = fields
            given[name] = value
            let result = await matterflow(["payload", "generate"] + given.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] })
            return (result.code, result.stderr)
        }
        for (name, value) in [("--vendor-id", "65536"), ("--vendor-id", "0x10000"), ("--discriminator", "4096"), ("--passcode", "99999999"), ("--passcode", "134217728")] {
            let result = await generate(name, value)
            #expect(result.code == 2, "\(name) \(value): \(result.stderr)")
            let code = name == "--passcode" ? "passcodeOutOfRange" : "fieldOutOfRange"
            #expect(result.stderr.contains("error[\(code)]: \(name) must be"), "\(result.stderr)")
            #expect(!result.stderr.contains("134217728"), "the passcode is not repeated")
        }
        // A passcode out of range at either end breaks one rule, with one code.
        let zero = await generate("--passcode", "0")
        #expect(zero.code == 2 && zero.stderr.contains("error[passcodeOutOfRange]"), "\(zero.stderr)")
        for (name, value) in [("--discriminator", "-1"), ("--discriminator", "+1"), ("--discriminator", "0x10"), ("--passcode", "-20202021"), ("--vendor-id", "0x")] {
            let result = await generate(name, value)
            #expect(result.code == 64, "\(name) \(value): \(result.stderr)")
        }
    }

    @Test func discoveryBitsSixAndSevenAreIgnoredWithAWarning() async throws {
        var fields = OnboardingPayload(vendorID: 0xFFF1, productID: 0x8000, discriminator: 3840, passcode: 20_202_021)
        fields.discoveryCapabilities = DiscoveryCapabilities(rawValue: 0xC2)
        let code = try fields.qrCode()
        let result = await matterflow("payload", code, "--json")
        #expect(result.code == 0)
        #expect(result.stderr.contains("warning[unknownDiscoveryCapabilities]"))
        #expect(result.stderr.contains("bits 6, 7"))
        let payload = try #require(try decodedArray(result.stdout).first)
        #expect(payload["passcode"] == "redacted")
        let warnings = try #require(payload["warnings"]?.arrayValue, "--json carries the warnings, not only stderr")
        #expect(warnings.count == 1)
        let warning = try #require(warnings.first)
        #expect(warning["code"] == "unknownDiscoveryCapabilities")
        let message = try #require(warning["message"]?.stringValue)
        #expect(message.contains("bits 6, 7"))
        #expect(!message.contains("20202021"), "a warning never shows the passcode")
    }

    @Test func aNormalCodeHasAnEmptyWarningsArray() async throws {
        for code in ["MT:Y.K9042C00KA0648G00", "3497-011-2332"] {
            let result = await matterflow("payload", code, "--json")
            #expect(result.code == 0, "\(code): \(result.stderr)")
            #expect(result.stderr.isEmpty)
            let payload = try #require(try decodedArray(result.stdout).first)
            #expect(payload["warnings"] == .array([]), "\(code)")
        }
    }

    @Test func aBadBase38CharacterIsNamedWithItsIndex() async {
        let result = await matterflow("payload", "MT:Y.K9042C00KA0648G0!")
        #expect(result.code == 2)
        #expect(result.stderr.contains("invalidBase38Character"))
    }

    @Test("with --json a refused code prints {errors} on stdout: which payload, where, never the code's characters")
    func aRefusedCodeWithJSONSaysWhyOnStandardOutput() async throws {
        let joined = "MT:Y.K9042C00KA0648G00*Y.K9042C00KA06!8G00"
        let result = await matterflow("payload", joined, "--json")
        #expect(result.code == 2, "\(result.stderr)")
        let errors = try #require(try JSONDocument.parse(result.stdout, file: "out").value["errors"]?.arrayValue, "\(result.stdout)")
        #expect(errors.count == 1)
        #expect(errors.first?["code"] == "invalidBase38Character")
        #expect(errors.first?["payload"] == .int(2))
        #expect(errors.first?["index"] == .int(37), "counted in the whole text from 0, as documented")
        #expect(errors.first?["message"]?.stringValue?.contains("at character 38 ") == true, "the message counts from 1: \(result.stdout)")
        #expect(!result.stdout.contains("K9042"), "no character of the code (it encodes the passcode): \(result.stdout)")
        // The manual code's check digit names its field.
        let manual = await matterflow("payload", "3497-011-2333", "--json")
        #expect(manual.code == 2)
        let digit = try #require(try JSONDocument.parse(manual.stdout, file: "out").value["errors"]?.arrayValue?.first)
        #expect(digit["code"] == "checkDigitMismatch")
        #expect(digit["field"] == "checkDigit")
        // Without --json, stdout stays empty: the reason is on stderr.
        #expect(await matterflow("payload", "3497-011-2333").stdout.isEmpty)
        // generate too: a field past its range, a passcode the rules forbid.
        let range = await matterflow(
            "payload", "generate", "--vendor-id", "0xFFF1", "--product-id", "1", "--discriminator", "5000", "--passcode", "20202021", "--json")
        #expect(range.code == 2)
        let field = try #require(try JSONDocument.parse(range.stdout, file: "out").value["errors"]?.arrayValue?.first, "\(range.stdout)")
        #expect(field["code"] == "fieldOutOfRange" && field["option"] == "discriminator")
        let trivial = await matterflow(
            "payload", "generate", "--vendor-id", "0xFFF1", "--product-id", "1", "--discriminator", "5", "--passcode", "12345678", "--json")
        #expect(trivial.code == 2)
        let rule = try #require(try JSONDocument.parse(trivial.stdout, file: "out").value["errors"]?.arrayValue?.first, "\(trivial.stdout)")
        #expect(rule["field"] == "passcode", "\(trivial.stdout)")
    }

    @Test func joinedQRCodesDecodeToSeveralPayloads() async throws {
        let generated = await matterflow(
            "payload", "generate", "--vendor-id", "0xFFF1", "--product-id", "0x8001", "--discriminator", "100", "--passcode", "20202021", "--json")
        let second = try #require(try JSONDocument.parse(generated.stdout, file: "out").value["qrCode"]?.stringValue)
        let joined = "MT:Y.K9042C00KA0648G00*" + second.dropFirst(3)
        let result = await matterflow("payload", joined, "--json")
        #expect(result.code == 0, "\(result.stderr)")
        let payloads = try decodedArray(result.stdout)
        #expect(payloads.count == 2)
        #expect(payloads.last?["productID"] == .int(0x8001))
    }

    @Test func generateMakesCodesThatDecodeBack() async throws {
        let result = await matterflow(
            "payload", "generate", "--vendor-id=0xFFF1", "--product-id=0x8000", "--discriminator=3840", "--passcode=20202021")
        #expect(result.code == 0)
        #expect(result.stdout.contains("MT:Y.K9042C00KA0648G00"))
        #expect(result.stdout.contains("3497-011-2332"))
        let custom = await matterflow(
            "payload", "generate", "--vendor-id", "4660", "--product-id", "22136", "--discriminator", "1234",
            "--passcode", "31415926", "--flow", "custom", "--discovery", "ble,on-network", "--json")
        #expect(custom.code == 0, "\(custom.stderr)")
        let codes = try JSONDocument.parse(custom.stdout, file: "out").value
        let manual = try #require(codes["manualCode"]?.stringValue)
        #expect(manual.filter(\.isNumber).count == 21, "a custom flow needs the 21-digit code")
        let back = await matterflow("payload", try #require(codes["qrCode"]?.stringValue), "--json")
        let payload = try #require(try decodedArray(back.stdout).first)
        #expect(payload["vendorID"] == 4660)
        #expect(payload["discriminator"] == 1234)
        #expect(payload["commissioningFlow"] == 2)
        #expect(payload["commissioningFlowName"] == "custom")
        #expect(payload["discoveryCapabilities"] == 6)
        // Its 21-digit manual code says only that the flow is not standard: the number reads it as 2, as the Matter SDK
        // does, and the name says what the code says, as a run's facts do.
        let fromManual = await matterflow("payload", manual, "--json")
        let manualPayload = try #require(try decodedArray(fromManual.stdout).first)
        #expect(manualPayload["commissioningFlow"] == 2)
        #expect(manualPayload["commissioningFlowName"] == "nonStandard")
    }

    /// The QR code `payload generate` makes for the example device with `--discovery` set to `list`.
    func qrCode(discovery list: String) async throws -> String {
        let result = await matterflow(
            "payload", "generate", "--vendor-id", "0xFFF1", "--product-id", "0x8000", "--discriminator", "3840",
            "--passcode", "20202021", "--discovery", list, "--json")
        #expect(result.code == 0, "\(list): \(result.stderr)")
        return try #require(try JSONDocument.parse(result.stdout, file: "out").value["qrCode"]?.stringValue)
    }

    @Test("every other spelling --discovery takes is in its help, and makes the code its name makes")
    func discoveryAliasesAreDocumentedAndWork() async throws {
        let help = await matterflow("payload", "generate", "--help")
        #expect(help.code == 0)
        #expect(
            help.stdout.contains(
                """
                --discovery names are case-insensitive, and _ may stand for -; the other spellings it takes:
                soft-ap (softap), onnetwork (on-network), ip (on-network), wifipaf (wifi-paf).
                """),
            "\(help.stdout)")
        for (alias, name) in DiscoveryCapabilities.aliases {
            #expect(help.stdout.contains("\(alias) (\(name))"), "\(alias)")
            #expect(try await qrCode(discovery: alias) == (try await qrCode(discovery: name)), "\(alias)")
        }
        // Case and _ for -, as the help says; the JSON facts' spellings among them.
        for (spelling, name) in [
            ("softAP", "softap"), ("soft_ap", "softap"), ("BLE", "ble"), ("on_network", "on-network"), ("onNetwork", "on-network"),
            ("wifiPAF", "wifi-paf"), ("wifi_paf", "wifi-paf"), ("NFC", "nfc"), ("Thread", "thread"),
        ] {
            #expect(try await qrCode(discovery: spelling) == (try await qrCode(discovery: name)), "\(spelling)")
        }
    }

    @Test func generateRefusesFieldsThatBreakARule() async {
        let trivial = await matterflow(
            "payload", "generate", "--vendor-id", "1", "--product-id", "1", "--discriminator", "1", "--passcode", "12345678")
        #expect(trivial.code == 2)
        #expect(trivial.stderr.contains("trivialPasscode"))
        let wide = await matterflow(
            "payload", "generate", "--vendor-id", "1", "--product-id", "1", "--discriminator", "5000", "--passcode", "20202021")
        #expect(wide.code == 2)
        #expect(wide.stderr.contains("discriminator"))
        let missing = await matterflow("payload", "generate", "--vendor-id", "1")
        #expect(missing.code == 64)
        #expect(missing.stderr.contains("--product-id"))
        let flow = await matterflow(
            "payload", "generate", "--vendor-id", "1", "--product-id", "1", "--discriminator", "1", "--passcode", "20202021", "--flow", "fast")
        #expect(flow.code == 64)
    }

    @Test func runRefusesAnUnknownClock() async {
        let result = await matterflow("run", "Workflows/cancel.json", "--clock", "sundial")
        #expect(result.code == 64)
        #expect(result.stderr.contains("--clock must be virtual or real"))
    }
}
