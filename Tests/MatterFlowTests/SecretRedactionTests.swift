import Foundation
import MatterFlowJSON
import MatterPayload
import Testing

@testable import MatterFlow

/// How a run's secrets are found in what it shows: every encoded form inside any string, and short secrets only
/// as whole strings.
@Suite("Secret redaction by value")
struct SecretRedactionTests {
    static let secret = #"p@ss "wörd"\/1"#

    func secrets(_ values: JSONValue...) -> SecretValues {
        let secrets = SecretValues()
        values.forEach(secrets.add)
        return secrets
    }

    @Test("an onboarding payload's other spellings are secret too: a manual code without dashes, the passcode it carries")
    func onboardingPayloadForms() throws {
        // The Matter specification's example: manual code 3497-011-2332 holds passcode 20202021.
        let manual = secrets(.string("3497-011-2332"))
        #expect(manual.redacting("bad code 34970112332 (passcode 20202021)") == "bad code \(RunOptions.redacted) (passcode \(RunOptions.redacted))")
        #expect(manual.redacting(JSONValue.int(20202021)) == .string(RunOptions.redacted))
        let qr = secrets(.string("MT:Y.K9042C00KA0648G00"))
        #expect(qr.redacting("pin 20202021") == "pin \(RunOptions.redacted)")
        // Every code that commissions the same device is the secret, whichever was given: a QR code's manual code,
        // as digits and in its printed groups, and its body without `MT:`; a manual code's grouped forms.
        for other in ["34970112332", "3497-011-2332", "3497 011 2332", "Y.K9042C00KA0648G00"] {
            #expect(qr.redacting("no device answered for \(other)") == "no device answered for \(RunOptions.redacted)", "\(other)")
        }
        let undashed = secrets(.string("34970112332"))
        for other in ["3497-011-2332", "3497 011 2332"] {
            #expect(undashed.redacting("code \(other)!") == "code \(RunOptions.redacted)!", "\(other)")
        }
        // A payload of the custom flow has a 21-digit manual code, grouped 4-4-4-4-5.
        let custom = try #require(try OnboardingPayload.decode("MT:-24J0YXE00KA0648G00").first)
        let long = custom.uncheckedManualCode()
        #expect(long.count == 21)
        #expect(secrets(.string("MT:-24J0YXE00KA0648G00")).redacting(OnboardingPayload.groupManualCode(long)) == RunOptions.redacted)
        // Text that is no code is not decoded, and brings no other form.
        #expect(SecretValues.onboardingPayloadForms(of: "3497-011-2333").texts.isEmpty, "an invalid check digit")
        #expect(SecretValues.onboardingPayloadForms(of: "hunter22").texts.isEmpty)
        // A code typed in full-width digits is the ASCII code, and carries the same passcode, from the moment it is
        // known (a run resumed past commissionDevice never prepares that call again).
        let wide = secrets(.string("３４９７\u{FF0D}０１１\u{FF0D}２３３２"))
        #expect(
            wide.redacting("sent 3497-011-2332 = 34970112332 (passcode 20202021)")
                == "sent \(RunOptions.redacted) = \(RunOptions.redacted) (passcode \(RunOptions.redacted))")
    }

    @Test("a code's further spellings are secret: lower case, without its optional data, the long manual code, the passcode grouped")
    func onboardingPayloadSpellings() throws {
        let qr = secrets(.string("MT:Y.K9042C00KA0648G00"))
        for other in [
            "mt:y.k9042c00ka0648g00", "y.k9042c00ka0648g00", "3497.011.2332", "2020-2021", "2020 2021", "20,202,021", "20.202.021",
            "20 202 021",
        ] {
            #expect(qr.redacting("hub said [\(other)]") == "hub said [\(RunOptions.redacted)]", "\(other)")
        }
        // The 21-digit code of the same device (its vendor and product IDs, which the QR code names).
        let payload = try #require(try OnboardingPayload.decode("MT:Y.K9042C00KA0648G00").first)
        let long = payload.uncheckedLongManualCode()
        #expect(long.count == 21 && (try? OnboardingPayload.decode(long).first?.passcode) == 20_202_021)
        for other in [long, OnboardingPayload.groupManualCode(long)] {
            #expect(qr.redacting("code \(other).") == "code \(RunOptions.redacted).", "\(other)")
        }
        // A QR code with a serial number in its optional data: the same code without it commissions the device too.
        let withSerial = try #require(try OnboardingPayload.decode("MT:-24J0AFN00KA064IJ3P0IXZB0DK5N1K8SQ1RYCU1-A40").first)
        var plain = withSerial
        plain.extensionData = nil
        let stripped = plain.uncheckedQRCode()
        #expect(
            secrets(.string("MT:-24J0AFN00KA064IJ3P0IXZB0DK5N1K8SQ1RYCU1-A40")).redacting("got \(stripped) and \(stripped.lowercased())")
                == "got \(RunOptions.redacted) and \(RunOptions.redacted)")
        // Other numbers stay.
        #expect(qr.redacting("2020-2022 and 20,202,022") == "2020-2022 and 20,202,022")
        #expect(SecretValues.thousands("20202021", separator: ",") == "20,202,021")
        #expect(SecretValues.thousands("123", separator: ",") == "123")
        #expect(SecretValues.thousands("1234", separator: ",") == "1,234")
    }

    @Test("a QR code carrying a secret passcode is hidden whatever else it sets (flow, discovery, vendor), in either case and percent-encoded; others stay")
    func qrCodesCarryingASecretPasscode() throws {
        let given = "MT:Y.K9042C00KA0648G00"
        let payload = try #require(try OnboardingPayload.decode(given).first)
        var variants: [String] = []
        for flow in [CommissioningFlow.userIntent, .custom] {
            var other = payload
            other.commissioningFlow = flow
            variants.append(other.uncheckedQRCode())
        }
        var discovery = payload
        discovery.discoveryCapabilities = [.softAP, .ble]
        var vendor = payload
        vendor.vendorID = 0xFFF2
        vendor.productID = 0x8001
        variants += [discovery.uncheckedQRCode(), vendor.uncheckedQRCode()]
        let qr = secrets(.string(given))
        for code in variants {
            #expect(code != given)
            #expect(qr.redacting("hub re-encoded it as \(code).") == "hub re-encoded it as \(RunOptions.redacted).", "\(code)")
            #expect(qr.redacting("lower \(code.lowercased()) here") == "lower \(RunOptions.redacted) here", "\(code)")
            let encoded = "MT%3A" + code.dropFirst(3)
            #expect(qr.redacting("GET /commission?code=\(encoded)&x=1") == "GET /commission?code=\(RunOptions.redacted)&x=1", "\(code)")
        }
        // A passcode given as a secret number hides a QR code carrying it, too.
        #expect(secrets(.int(20_202_021)).redacting("code \(variants[0])") == "code \(RunOptions.redacted)")
        // Another device's code, and text that only looks like one, stay.
        var stranger = payload
        stranger.passcode = 20_202_022
        let kept = "other \(stranger.uncheckedQRCode()) and MT:NOT-A-CODE-AT-ALL-REALLY and MT:"
        #expect(qr.redacting(kept) == kept)
        // Text no run produced (a hub's standard error) is cleared of such a code too.
        let shared = SharedSecrets()
        shared.add(qr)
        #expect(shared.redacting("hub log: paired \(variants[1]) at 12:00:01 in 3.2 s") == "hub log: paired \(RunOptions.redacted) at 12:00:01 in 3.2 s")
    }

    @Test("a code carrying a secret passcode is hidden however the text around it runs: cut short, run on, joined, doubled, after a space or an escaped colon; manual codes of another discriminator or vendor too")
    func setupCodesInAwkwardPlaces() throws {
        let given = "MT:Y.K9042C00KA0648G00"
        let payload = try #require(try OnboardingPayload.decode(given).first)
        var vendor = payload
        vendor.vendorID = 0x1234
        vendor.productID = 0x0001
        vendor.commissioningFlow = .custom
        let code = vendor.uncheckedQRCode()
        let body = String(code.dropFirst(3))
        var withData = vendor
        withData.extensionData = try #require(try OnboardingPayload.decode("MT:-24J0AFN00KA064IJ3P0IXZB0DK5N1K8SQ1RYCU1-A40").first?.extensionData)
        let long = withData.uncheckedQRCode()
        var stranger = payload
        stranger.passcode = 20_202_022
        let other = stranger.uncheckedQRCode()
        let qr = secrets(.string(given))
        let r = RunOptions.redacted
        for (text, expected) in [
            ("wait \(code)...", "wait \(r)..."),
            ("\(code)and more", "\(r) more"),
            ("MT:\(code)", "MT:\(r)"),
            ("\(other)*\(code)", "\(other)*\(r)"),
            ("\(other)*\(body)", r),
            ("\(code)*", r),
            ("\(code)*XYZ", r),
            ("MT%3A\(other.dropFirst(3))%2A\(body)&x", "\(r)&x"),
            ("cut \(long.prefix(30))", "cut \(r)"),
            ("MT: \(body) (spaced)", "\(r) (spaced)"),
            ("MT%253A\(body)", r),
            ("MT\\u003a\(body)", r),
            ("MT&#58;\(body);", "\(r);"),
            ("MT&#x3A;\(body) MT&colon;\(body)", "\(r) \(r)"),
            ("MT%253A\(other.dropFirst(3))%252A\(body)", r),
            ("\(code)\(code)", "\(r)\(r)"),
        ] {
            #expect(qr.redacting("[\(text)]") == "[\(expected)]", "\(text)")
        }
        // Manual codes of the same passcode with another discriminator, and the 21-digit code of another vendor, in
        // their printed groups or as digits, beside other numbers.
        var discriminator = payload
        discriminator.discriminator = .long(0x500)
        let short = discriminator.uncheckedManualCode()
        let vendorManual = vendor.uncheckedManualCode()
        #expect(vendorManual.count == 21 && short.count == 11)
        for manual in [short, OnboardingPayload.groupManualCode(short), vendorManual, OnboardingPayload.groupManualCode(vendorManual)] {
            #expect(qr.redacting("code \(manual) 20202022, then 12 3") == "code \(r) 20202022, then 12 3", "\(manual)")
            #expect(qr.redacting("1234 \(manual).") == "1234 \(r).", "\(manual)")
        }
        // Another device's codes, and numbers of that length whose passcode is no secret, stay.
        let kept = "other \(stranger.uncheckedManualCode()) and 12345678901 and \(other)"
        #expect(qr.redacting(kept) == kept)
    }

    @Test("an ePSKc is secret in its printed groups of three too: with dashes, spaces or dots")
    func epskcForms() {
        let key = secrets(.string("528240781"))
        #expect(
            key.redacting("could not withdraw a[528-240-781] b[528 240 781] c[528240781] d[528.240.781]")
                == "could not withdraw a[\(RunOptions.redacted)] b[\(RunOptions.redacted)] c[\(RunOptions.redacted)] d[\(RunOptions.redacted)]")
        #expect(key.redacting("other 528-240-780") == "other 528-240-780")
        #expect(SecretValues.epskcForms(of: "52824078").isEmpty && SecretValues.epskcForms(of: "52824078x").isEmpty)
    }

    @Test("a dataset's Network Key and PSKc are secret on their own too, in either case, as a hub may quote one")
    func datasetForms() {
        let dataset = "0e080000000000010000000300001635060004001fffe00208d196fa2040e973b60708fdbbc310c48f3a3905109929154dbc363218bcd22f907caf5c15030f4f70656e5468726561642d646532620102de2b041015b2c16f7ba92ed4bc7b1ee054f1553f0c0402a0f7f8"
        let secrets = secrets(.string(dataset))
        #expect(
            secrets.redacting("key 9929154dbc363218bcd22f907caf5c15 refused; PSKc 15B2C16F7BA92ED4BC7B1EE054F1553F, channel 22")
                == "key \(RunOptions.redacted) refused; PSKc \(RunOptions.redacted), channel 22")
        // Colon-separated bytes and base64, as some border routers and tools print a key.
        #expect(secrets.redacting("key 99:29:15:4d:bc:36:32:18:bc:d2:2f:90:7c:af:5c:15") == "key \(RunOptions.redacted)")
        #expect(secrets.redacting("PSKC 15:B2:C1:6F:7B:A9:2E:D4:BC:7B:1E:E0:54:F1:55:3F") == "PSKC \(RunOptions.redacted)")
        let base64 = Data([0x99, 0x29, 0x15, 0x4d, 0xbc, 0x36, 0x32, 0x18, 0xbc, 0xd2, 0x2f, 0x90, 0x7c, 0xaf, 0x5c, 0x15]).base64EncodedString()
        #expect(secrets.redacting("b64 \(base64)") == "b64 \(RunOptions.redacted)")
        // Dashes and spaces between bytes, base64url, and byte lists as C and Python print them.
        let key: [UInt8] = [0x99, 0x29, 0x15, 0x4d, 0xbc, 0x36, 0x32, 0x18, 0xbc, 0xd2, 0x2f, 0x90, 0x7c, 0xaf, 0x5c, 0x15]
        let pairs = key.map { String(format: "%02x", $0) }
        let url = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        let decimals: [String] = key.map { String($0) }
        let signed: [String] = key.map { String(Int8(bitPattern: $0)) }
        let upper: [String] = pairs.map { $0.uppercased() }
        let cLower: [String] = pairs.map { "0x" + $0 }
        let cUpper: [String] = upper.map { "0x" + $0 }
        var forms: [String] = [pairs.joined(separator: "-"), pairs.joined(separator: " ").uppercased(), url, url.replacingOccurrences(of: "=", with: "")]
        forms += [cLower.joined(separator: ", "), decimals.joined(separator: ", ")]
        // Go prints a byte slice so; JSON, Java (signed), Rust and C without spaces so.
        forms += [decimals.joined(separator: " "), decimals.joined(separator: ","), signed.joined(separator: ", ")]
        forms += [upper.joined(separator: ", "), cLower.joined(separator: ","), cUpper.joined(separator: ", ")]
        for form in forms {
            #expect(secrets.redacting("key [\(form)]") == "key [\(RunOptions.redacted)]", "\(form)")
        }
        // Python writes bytes so, inside b'...' or bytearray(b'...').
        #expect(
            secrets.redacting(#"key bytearray(b'\x99)\x15M\xbc62\x18\xbc\xd2/\x90|\xaf\\\x15')"#) == "key bytearray(b'\(RunOptions.redacted)')")
        #expect(SecretValues.pythonBytesBody([0x27, 0x41, 0x09, 0x00]) == #"'A\t\x00"#)
        #expect(SecretValues.pythonBytesBody([0x27, 0x22, 0x0A]) == #"\'"\n"#)
        #expect(SecretValues.pythonBytesBody([0x61, 0x27, 0x62], bytearray: true) == #"a\'b"#, "bytearray(b\"a\\'b\")")
        #expect(SecretValues.pythonBytesBody([0x61, 0x27, 0x62]) == "a'b", "b\"a'b\"")
        #expect(SecretValues.datasetForms(of: "not a dataset at all").isEmpty)
        #expect(SecretValues.datasetForms(of: "0e08000000000001").isEmpty, "a dataset without the secret TLVs")
    }

    @Test("the secret is found as it is, JSON-escaped (nested), with \\/ and \\u escapes, and percent-encoded")
    func everyEncoding() {
        let secrets = secrets(.string(Self.secret))
        let once = SecretValues.jsonEscaped(Self.secret)
        let twice = SecretValues.jsonEscaped(once)
        let forms = [
            Self.secret, once, twice, once.replacingOccurrences(of: "/", with: "\\/"),
            SecretValues.unicodeEscaped(Self.secret, uppercase: false),
            SecretValues.unicodeEscaped(Self.secret, uppercase: true),
            SecretValues.percentEncoded(Self.secret, uppercase: true),
            SecretValues.percentEncoded(Self.secret, uppercase: false),
        ]
        #expect(twice.contains(#"\\\""#), "nested escaping doubles the backslashes")
        #expect(SecretValues.percentEncoded("a b/é", uppercase: true) == "a%20b%2F%C3%A9")
        #expect(SecretValues.unicodeEscaped("a\"é", uppercase: false) == #"a\u0022\u00e9"#)
        for form in forms {
            let shown = secrets.redacting("before \(form) after")
            #expect(shown == "before \(RunOptions.redacted) after", "\(form) → \(shown)")
        }
        // Inside structured values, every string is searched.
        let value: JSONValue = ["list": [.string("x \(once) y")], "n": 3]
        #expect(secrets.redacting(value) == ["list": [.string("x \(RunOptions.redacted) y")], "n": 3])
    }

    @Test("a short secret is redacted where a string is exactly it, never inside other text")
    func shortSecretsWhole() {
        let secrets = secrets(.string("42"))
        #expect(secrets.redacting("42") == RunOptions.redacted)
        #expect(secrets.redacting("room 42 has 420 lamps") == "room 42 has 420 lamps")
        #expect(secrets.redacting(["code": "42", "other": "1422"]) == ["code": .string(RunOptions.redacted), "other": "1422"])
    }

    @Test("an ASCII secret (a setup payload) is found in ASCII and other text, in each form, and nothing else changes")
    func asciiSecret() {
        let payload = "MT:Y.K9042C00KA0648G00"
        let secrets = secrets(.string(payload))
        for form in [payload, SecretValues.percentEncoded(payload, uppercase: true), SecretValues.unicodeEscaped(payload, uppercase: false)] {
            #expect(secrets.redacting("scan \(form) now") == "scan \(RunOptions.redacted) now", "\(form)")
            #expect(secrets.redacting("é \(form)") == "é \(RunOptions.redacted)", "\(form) after non-ASCII text")
        }
        // A secret spelled with a character canonically equal to its own (the Kelvin sign for K) is the secret.
        let kelvin = self.secrets(.string("K9042-code"))
        #expect(kelvin.redacting("code \u{212A}9042-code") == "code \(RunOptions.redacted)")
        // Text holding the secret's first character, or most of the secret, is not the secret.
        #expect(secrets.redacting("MT:Y.K9042C00KA0648G0") == "MT:Y.K9042C00KA0648G0")
        #expect(secrets.redacting("Matter lamp") == "Matter lamp")
        let value: JSONValue = ["payload": .string(payload), "name": "Lamp", "rooms": ["Kitchen", .string("x\(payload)")]]
        #expect(secrets.redacting(value) == [
            "payload": .string(RunOptions.redacted), "name": "Lamp", "rooms": ["Kitchen", .string("x\(RunOptions.redacted)")],
        ])
        #expect(secrets.redacting(["name": "Lamp", "n": 3]) == ["name": "Lamp", "n": 3])
    }

    @Test("secrets added after a redaction are found by the next one, short and long")
    func secretsAddedLater() {
        let secrets = secrets(.string("first-secret"))
        #expect(secrets.redacting("a first-secret") == "a \(RunOptions.redacted)")
        #expect(secrets.redacting("42") == "42")
        secrets.add(.string("42"))
        secrets.add(.string("second-secret"))
        #expect(secrets.redacting("42") == RunOptions.redacted)
        #expect(secrets.redacting("b second-secret, a first-secret") == "b \(RunOptions.redacted), a \(RunOptions.redacted)")
    }

    @Test("a secret number is redacted as an equal JSON number and as its text in strings; other numbers, and short ones, stay")
    func secretNumbers() {
        let secrets = secrets(.int(20202021), .double(2.75e6), .int(42))
        let value: JSONValue = [
            "pin": .int(20202021), "asFloat": .double(20202021), "other": .int(20202022), "rate": .double(2.75e6),
            "said": "the PIN is 20202021", "small": .int(42), "roomNumber": "room 42",
            "list": [.int(7), .int(20202021)], "flag": true,
        ]
        #expect(secrets.redacting(value) == [
            "pin": .string(RunOptions.redacted), "asFloat": .string(RunOptions.redacted), "other": .int(20202022),
            "rate": .string(RunOptions.redacted), "said": .string("the PIN is \(RunOptions.redacted)"),
            "small": .int(42), "roomNumber": "room 42", "list": [.int(7), .string(RunOptions.redacted)], "flag": true,
        ])
        // Found after a string secret was already matched, and by a redaction made before it was added.
        let later = self.secrets(.string("first-secret"))
        #expect(later.redacting(.int(5551234)) == .int(5551234))
        later.add(.int(5551234))
        #expect(later.redacting(.int(5551234)) == .string(RunOptions.redacted))
        #expect(later.redacting("call 5551234") == "call \(RunOptions.redacted)")
    }

    @Test("a call's result as records keep it: its secret fields, and other fields quoting them, redacted")
    func aResultsOwnSecretsAreRedactedInItsOtherFields() throws {
        let operation = try #require(OperationCatalog.standard["activateEpskc"])
        let call = PreparedCall(
            workflowPath: ["w"], state: "share", attempt: 1, operation: operation, shownArguments: [:],
            context: HubCallContext(runID: "r", idempotencyKey: "r/1"), guardName: nil, redaction: SecretValues())
        let shown = call.shownResult(["status": "key 052183946712 is active", "epskc": "052183946712", "validDurationSeconds": 120])
        #expect(shown == [
            "status": .string("key \(RunOptions.redacted) is active"), "epskc": .string(RunOptions.redacted), "validDurationSeconds": 120,
        ])
    }
}

extension SecretRedactionTests {
    @Test("a secret input holding short values is refused once per value, each named by its JSON pointer")
    func shortValuesInsideASecretInput() throws {
        let workflow = try WorkflowEngine().load(
            text: #"""
                {"workflow": "keys", "version": 1, "start": "done",
                 "inputs": {"keys": {"type": "object", "secret": true}, "pin": {"type": "string", "secret": true}},
                 "states": {"done": {"type": "succeed"}}}
                """#, baseDirectory: "/")
        let given: JSONObject = ["keys": ["long": "long enough", "list": ["abcd", "x1", 12]], "pin": "417"]
        #expect(throws: DiagnosticsError.self) { try workflow.resolveInputs(given) }
        do {
            _ = try workflow.resolveInputs(given)
        } catch {
            #expect(error.diagnostics.map(\.pointer) == ["/keys/list/1", "/keys/list/2", "/pin"])
            #expect(error.diagnostics[0].message.contains("secret input \"keys\" holds a string or number of 1-3 characters at /keys/list/1"))
            #expect(error.diagnostics[2].message.contains("secret input \"pin\" holds a string or number of 1-3 characters;"))
            #expect(!error.diagnostics.contains { $0.message.contains("417") || $0.message.contains("x1") })
        }
        let long: JSONObject = ["keys": ["list": ["abcd", 12345]], "pin": "4170"]
        #expect(try workflow.resolveInputs(long)["pin"] == "4170")
    }
}

extension SecretRedactionTests {
    /// A workflow with one required secret input, `name` of `type`, that reads a device's information with `deviceID`.
    func readingWorkflow(secretInput name: String, type: String, deviceID: String) throws -> Workflow {
        try loadWorkflow(#"""
            {"workflow": "read", "version": 1, "start": "read",
             "inputs": {"\#(name)": {"type": "\#(type)", "required": true, "secret": true}},
             "states": {
               "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "\#(deviceID)"},
                        "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
               "done": {"type": "succeed"},
               "failed": {"type": "fail", "error": "${error}"}
             }}
            """#)
    }

    @Test("a secret input passed in an argument that is not secret is redacted from the call's report, unless shown")
    func secretInAnotherArgumentOfAReportedCall() async throws {
        let workflow = try readingWorkflow(secretInput: "token", type: "string", deviceID: "device ${input.token}")
        for showSecrets in [false, true] {
            let log = EventLog()
            _ = try await WorkflowEngine().run(
                workflow, inputs: ["token": .string(Self.secret)], on: ScriptedHub(),
                options: RunOptions(structureID: "s", clock: ManualClock(), showSecrets: showSecrets, observer: log.observer))
            let arguments = log.all.compactMap { event -> JSONObject? in
                if case .hubCallStarted(_, _, _, let arguments) = event.kind { return arguments }
                return nil
            }
            let shown = showSecrets ? "device " + Self.secret : "device " + RunOptions.redacted
            #expect(arguments == [["deviceID": .string(shown)]])
        }
    }

    @Test("the values after secret members' names are taken out of free text whatever its form (JSON, JSON inside a string, a Python dictionary, key=value), and nothing else: a secret a hub made is hidden before any run knows it")
    func secretMembersInFreeText() {
        let names = OperationCatalog.standard.secretNames
        #expect(names.isSuperset(of: ["onboardingPayload", "epskc", "operationalDataset"]), "\(names.sorted())")
        let shared = SharedSecrets(secretNames: names)
        let r = RunOptions.redacted
        let cases: [(String, String)] = [
            (#"{"jsonrpc":"2.0","id":7,"result":{"epskc":"123456789","expiresIn":120}}"#, #"{"jsonrpc":"2.0","id":7,"result":{"epskc":"\#(r)","expiresIn":120}}"#),
            (#"answer: "{\"epskc\": \"123456789\"}""#, #"answer: "{\"epskc\": \"\#(r)\"}""#),
            ("sent {'onboardingPayload': 'MT:Y.K9042C00KA0648G00', 'name': 'Lamp'}", "sent {'onboardingPayload': '\(r)', 'name': 'Lamp'}"),
            ("activated epskc=123456789 for 120 s", "activated epskc=\(r) for 120 s"),
            ("epskc: 123456789, next", "epskc: \(r), next"),
            (#"{"operationalDataset":"0e080000000000010000000300000f"}"#, #"{"operationalDataset":"\#(r)"}"#),
            // Not a member: part of a longer name, no value, an object (left to redaction by value), mere mention.
            (#"{"epskcExpires": 120, "epskcActive": true}"#, #"{"epskcExpires": 120, "epskcActive": true}"#),
            ("the epskc was used", "the epskc was used"),
            (#"{"epskc": {"nested": 1}}"#, #"{"epskc": {"nested": 1}}"#),
            (#"{"epskc":""}"#, #"{"epskc":""}"#),
        ]
        for (given, expected) in cases {
            #expect(shared.redacting(given) == expected, "\(given)")
        }
    }

    @Test("shared secrets look again at a run whose secrets grew (a key a hub returned, an answer given): a line read before holds nothing, the next one with the new secret is cleared")
    func sharedSecretsFollowARunsNewSecrets() {
        let shared = SharedSecrets()
        let run = SecretValues()
        run.add(.string("MT:Y.K9042C00KA0648G00"))
        shared.add(run)
        let line = "the border router handed over 7391-5528-04 for this commissioning, valid 120 s"
        #expect(shared.redacting(line) == line, "no run knows it yet")
        #expect(shared.redacting("retrying with MT:Y.K9042C00KA0648G00 now") == "retrying with \(RunOptions.redacted) now")
        run.add(.string("7391-5528-04"))
        #expect(shared.redacting(line) == "the border router handed over \(RunOptions.redacted) for this commissioning, valid 120 s")
        // A short line is searched whole, as a short secret is redacted only as a whole string.
        run.add(.string("ab7"))
        #expect(shared.redacting("ab7") == RunOptions.redacted)
    }

    @Test("runs given shared secrets add theirs to them, in every spelling they know: text no run produced (a hub's standard error) is cleared of them, also after the runs ended")
    func sharedSecretsClearOtherText() async throws {
        let workflow = try readingWorkflow(secretInput: "payload", type: "onboardingPayload", deviceID: "d1")
        let shared = SharedSecrets(recentRuns: 2)
        var options = RunOptions(structureID: "s", clock: ManualClock())
        options.sharedSecrets = shared
        for payload in ["MT:Y.K9042C00KA0648G00", "MT:634J0KGB00AJVH7SR00"] {
            _ = try await WorkflowEngine().run(workflow, inputs: ["payload": .string(payload)], on: ScriptedHub(), options: options)
        }
        let line = #"request {"onboardingPayload":"MT:Y.K9042C00KA0648G00"} manual 3497-011-2332 pin 20202021; other MT:634J0KGB00AJVH7SR00"#
        let redacted = RunOptions.redacted
        #expect(shared.redacting(line) == #"request {"onboardingPayload":"\#(redacted)"} manual \#(redacted) pin \#(redacted); other \#(redacted)"#)
        #expect(shared.redacting("nothing secret here") == "nothing secret here")
        // Of runs that ended, the last `recentRuns` started are kept: a third run's secrets push out the first's.
        _ = try await WorkflowEngine().run(workflow, inputs: ["payload": .string("MT:-24J0YXE00KA0648G00")], on: ScriptedHub(), options: options)
        #expect(shared.redacting("MT:-24J0YXE00KA0648G00 MT:634J0KGB00AJVH7SR00") == "\(redacted) \(redacted)")
        #expect(SharedSecrets(recentRuns: 0).redacting(line) == line, "a shared store no run used holds nothing")
    }
}
