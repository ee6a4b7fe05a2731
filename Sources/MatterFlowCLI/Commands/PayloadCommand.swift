import MatterFlow
import MatterFlowJSON
import MatterPayload

/// `matterflow payload CODE` decodes and validates an onboarding payload; `matterflow payload generate` makes one.
struct PayloadCommand {
    static let spec = CommandSpec(
        name: "payload",
        abstract: "Decode and validate a QR code (MT:...) or manual pairing code.",
        arguments: [("<code>", "The code as printed on the device (manual codes may keep their dashes or spaces).", false)],
        options: [
            .init(
                name: "json", valueName: nil,
                help: "Print a JSON array of the decoded payloads, each with a \"warnings\" array of {code, message}."),
            .init(name: "reveal-secrets", valueName: nil, help: "Show the setup passcode (hidden by default)."),
        ],
        discussion: """
            Exit status: 0 when the code is valid, 2 when it is not (the broken rule is named on stderr; with
            --json, stdout holds {"errors": [{code, message}]}, each with what is known of where: "payload" (from 1,
            when the code joins several), "index" (the character, from 0; messages count from 1), "field", "expected", "found").
            Discovery-capability bits a newer Matter revision defines (6, 7) are ignored with a warning on stderr
            (warning[unknownDiscoveryCapabilities]); with --json, each payload's "warnings" array holds it too.
            The setup passcode is shown as [redacted] ("redacted" in JSON) unless --reveal-secrets is given, as
            `matterflow dataset` hides the Network Key: what a terminal shows may be seen or logged.
            A QR code's optional data (serial number, PBKDF iterations and salt, number of devices, commissioning
            timeout, how many vendor fields) is listed under "optional data" ("optionalData" in JSON).
            See 'matterflow payload generate --help' to make codes for test devices.
            """)

    /// The `--discovery` names `payload generate` takes, for its help and its errors.
    static let discoveryNames = DiscoveryCapabilities.named.map(\.name).joined(separator: ", ")

    /// The other spellings `--discovery` takes, for its help: `soft-ap (softap), ip (on-network), ...`.
    static let discoveryAliases = DiscoveryCapabilities.aliases.map { "\($0.alias) (\($0.name))" }.joined(separator: ", ")

    static let generateSpec = CommandSpec(
        name: "payload generate",
        abstract: "Make the QR code and manual pairing code for a device's fields.",
        arguments: [],
        options: [
            .init(name: "vendor-id", valueName: "<id>", required: true, help: "Vendor ID (decimal or 0x hex)."),
            .init(name: "product-id", valueName: "<id>", required: true, help: "Product ID (decimal or 0x hex)."),
            .init(name: "discriminator", valueName: "<n>", required: true, help: "12-bit discriminator, 0...4095."),
            .init(name: "passcode", valueName: "<n>", required: true, help: "Setup passcode, 1...99999998, not a trivial value."),
            .init(name: "flow", valueName: "<flow>", help: "standard (default), user-intent or custom."),
            .init(name: "discovery", valueName: "<list>", help: "Comma-separated, any of: \(Self.discoveryNames) (default ble)."),
            .init(name: "json", valueName: nil, help: "Print {\"qrCode\", \"manualCode\"} as JSON."),
        ],
        discussion: """
            --discovery names are case-insensitive, and _ may stand for -; the other spellings it takes:
            \(Self.discoveryAliases).
            Exit status: 0 on success, 2 when a field breaks a rule (named on stderr: a number past its field's range, a
            trivial passcode; with --json, stdout holds {"errors": [{code, message, ...}]}), 64 when a field is no whole
            number.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func decode() -> Int32 {
        let code = arguments.positionals[0]
        let payloads: [OnboardingPayload]
        do {
            payloads = try OnboardingPayload.decode(code)
        } catch {
            var problems = ProblemList()
            for problem in error.errors {
                // A code joining several payloads says which one broke the rule.
                let item = problem.payloadIndex.map { "payload \($0 + 1): " } ?? ""
                environment.standardError.line("error[\(problem.code.rawValue)]: \(item)\(problem.message)")
                problems.append(code: problem.code.rawValue, message: problem.message, extra: Self.whereJSON(problem))
            }
            let refused = problems.refuse(json: arguments.flag("json"), to: environment.standardOutput)
            // A word close to `generate` meant the other subcommand: no code is made of lowercase letters only.
            if code.allSatisfy(\.isLowercase), SpellingSuggestion.closest(to: code, among: ["generate"]) != nil {
                environment.standardError.line("note: to make a code, run `matterflow payload generate` (see `matterflow payload generate --help`)")
            }
            return refused
        }
        for (index, payload) in payloads.enumerated() {
            for warning in payload.warnings() {
                let item = payloads.count > 1 ? "payload \(index + 1): " : ""
                environment.standardError.line("warning[\(warning.code.rawValue)]: \(item)\(warning.message)")
            }
        }
        let reveal = arguments.flag("reveal-secrets")
        if arguments.flag("json") {
            environment.standardOutput.line(JSONWriter.pretty(.array(payloads.map { Self.json($0, revealingPasscode: reveal) })))
            return ExitCode.success
        }
        for (index, payload) in payloads.enumerated() {
            if payloads.count > 1 { environment.standardOutput.line("payload \(index + 1) of \(payloads.count):") }
            for (key, value) in payload.jsonFields(redactingPasscode: !reveal) {
                environment.standardOutput.line("  \(key): \(value)\(Self.note(key, of: payload))")
            }
            if !reveal { environment.standardOutput.line("  passcode: [redacted] (--reveal-secrets shows it)") }
            if let optional = payload.extensionData {
                environment.standardOutput.line("  optional data:")
                for (key, value) in optional.jsonFields { environment.standardOutput.line("    \(key): \(value)") }
            }
        }
        return ExitCode.success
    }

    /// Where a refused code's problem is, for `--json`: `payload` (which of several joined payloads, from 1),
    /// `index` (the character, from 0, where the message counts from 1), `field`, `expected` and `found`, each when
    /// known.
    /// None of them holds a character of the code or the passcode, as the message holds none.
    static func whereJSON(_ problem: PayloadError) -> JSONObject {
        var object = JSONObject()
        if let index = problem.payloadIndex { object["payload"] = .int(index + 1) }
        if let position = problem.position { object["index"] = .int(position) }
        if let field = problem.field { object["field"] = .string(field.rawValue) }
        if let expected = problem.expected { object["expected"] = .string(expected) }
        if let found = problem.found { object["found"] = .string(found) }
        return object
    }

    /// What a field's value does not say by itself: a 21-digit manual code's flow is 2 (as the Matter SDK's parser
    /// reads it) for user intent and custom alike.
    static func note(_ key: String, of payload: OnboardingPayload) -> String {
        guard key == "commissioningFlow", payload.flowIsOnlyKnownNotStandard else { return "" }
        return " (not standard: a 21-digit manual code does not say whether it is 1, user intent, or 2, custom)"
    }

    /// One payload for `payload --json`: the members of ``OnboardingPayload/jsonFields(redactingPasscode:)`` (the
    /// passcode as `"redacted"` unless revealed) with `commissioningFlowName` after `commissioningFlow` (a run's name
    /// for it, ``OnboardingPayloadFacts/flowName(of:)``: `nonStandard` for a 21-digit manual code, which the number
    /// reads as 2), `optionalData` when a QR code carries optional data
    /// (``PayloadExtensionData/jsonFields``: serial number, PBKDF parameters, ...), then `warnings`, an array (empty when there is nothing to say) of `{"code", "message"}` objects from
    /// ``OnboardingPayload/warnings()``. A warning names only what the payload holds that this tool ignores (such as
    /// discovery-capability bits 6-7), never the passcode.
    static func json(_ payload: OnboardingPayload, revealingPasscode: Bool) -> JSONValue {
        var object = JSONObject()
        for (key, value) in payload.jsonFields(redactingPasscode: !revealingPasscode) {
            object[key] = Self.json(value)
            // The number reads a 21-digit manual code as 2, as the Matter SDK does; the name says what the code says.
            if key == "commissioningFlow" { object["commissioningFlowName"] = .string(OnboardingPayloadFacts.flowName(of: payload)) }
        }
        if !revealingPasscode { object["passcode"] = "redacted" }
        if let optional = payload.extensionData {
            var fields = JSONObject()
            for (key, value) in optional.jsonFields { fields[key] = Self.json(value) }
            object["optionalData"] = .object(fields)
        }
        object["warnings"] = .array(
            payload.warnings().map { warning in
                var item = JSONObject()
                item["code"] = .string(warning.code.rawValue)
                item["message"] = .string(warning.message)
                return .object(item)
            })
        return .object(object)
    }

    private static func json(_ value: PayloadJSONValue) -> JSONValue {
        switch value {
        case .integer(let number): .int(number)
        case .string(let text): .string(text)
        }
    }

    func generate() throws(UsageError) -> Int32 {
        var problems = ProblemList()
        /// The option's whole number: decimal digits, or `0x` and hex digits where `hex`; text that is no such
        /// number is a usage error, a number past `max` a field that breaks its rule (reported, exit 2).
        func number(_ name: String, max: UInt64, range: String, hex: Bool = false) throws(UsageError) -> UInt64? {
            guard let text = arguments.value(name) else {
                throw UsageError(message: "Missing '--\(name)'", command: Self.generateSpec.name)
            }
            // The passcode is a secret: messages do not repeat it.
            let shown = name == "passcode" ? "" : ", not '\(text)'"
            let isHex = hex && text.lowercased().hasPrefix("0x")
            let digits = isHex ? text.dropFirst(2) : Substring(text)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && (isHex ? $0.isHexDigit : $0.isNumber) }) else {
                throw UsageError(
                    message: "'--\(name)' must be a whole number written in \(hex ? "decimal or 0x hex" : "decimal digits") (\(range))\(shown)",
                    command: Self.generateSpec.name)
            }
            guard let value = UInt64(digits, radix: isHex ? 16 : 10), value <= max else {
                // The passcode's range is a rule of the payload, with the code a passcode of 0 breaks it with.
                let code = name == "passcode" ? PayloadError.Code.passcodeOutOfRange.rawValue : "fieldOutOfRange"
                environment.standardError.line("error[\(code)]: --\(name) must be \(range)\(shown)")
                problems.append(code: code, message: "--\(name) must be \(range)\(shown)", extra: ["option": .string(name)])
                return nil
            }
            return value
        }
        let fields = (
            try number("vendor-id", max: UInt64(UInt16.max), range: "0 to 0xFFFF", hex: true),
            try number("product-id", max: UInt64(UInt16.max), range: "0 to 0xFFFF", hex: true),
            try number("discriminator", max: 4095, range: "0 to 4095"),
            try number("passcode", max: 99_999_998, range: "1 to 99999998")
        )
        guard let vendor = fields.0, let product = fields.1, let discriminator = fields.2, let passcode = fields.3 else {
            return problems.refuse(json: arguments.flag("json"), to: environment.standardOutput)
        }
        let flowName = arguments.value("flow") ?? "standard"
        guard let flow = CommissioningFlow(name: flowName) else {
            throw UsageError(message: "'--flow' must be standard, user-intent or custom, not '\(flowName)'", command: Self.generateSpec.name)
        }
        let discoveryList = arguments.value("discovery") ?? "ble"
        guard let discovery = DiscoveryCapabilities(list: discoveryList) else {
            throw UsageError(
                message: "'--discovery' must list some of \(Self.discoveryNames) (comma-separated), not '\(discoveryList)'",
                command: Self.generateSpec.name)
        }
        let payload = OnboardingPayload(
            vendorID: UInt16(vendor), productID: UInt16(product), discriminator: UInt16(discriminator),
            passcode: UInt32(passcode), commissioningFlow: flow, discoveryCapabilities: discovery)
        do {
            let qr = try payload.qrCode()
            let manual = try payload.manualCode(grouped: true)
            if arguments.flag("json") {
                environment.standardOutput.line(JSONWriter.pretty(["qrCode": .string(qr), "manualCode": .string(manual)]))
            } else {
                environment.standardOutput.line("QR code:     \(qr)")
                environment.standardOutput.line("manual code: \(manual)")
            }
            return ExitCode.success
        } catch {
            for problem in error.errors {
                environment.standardError.line("error[\(problem.code.rawValue)]: \(problem.message)")
                problems.append(code: problem.code.rawValue, message: problem.message, extra: Self.whereJSON(problem))
            }
            return problems.refuse(json: arguments.flag("json"), to: environment.standardOutput)
        }
    }
}
