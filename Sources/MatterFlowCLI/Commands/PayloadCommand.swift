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
                help: "Print a JSON array of the decoded payloads, each with a \"warnings\" array of {code, message}.")
        ],
        discussion: """
            Exit status: 0 when the code is valid, 2 when it is not (the broken rule is named on stderr).
            Discovery-capability bits a newer Matter revision defines (6, 7) are ignored with a warning on stderr
            (warning[unknownDiscoveryCapabilities]); with --json, each payload's "warnings" array holds it too.
            The output shows the setup passcode: you asked for this code to be decoded.
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
            Exit status: 0 on success, 2 when a field breaks a rule (named on stderr).
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func decode() -> Int32 {
        let code = arguments.positionals[0]
        let payloads: [OnboardingPayload]
        do {
            payloads = try OnboardingPayload.decode(code)
        } catch {
            for problem in error.errors { environment.standardError.line("error[\(problem.code.rawValue)]: \(problem.message)") }
            return ExitCode.invalidInput
        }
        for (index, payload) in payloads.enumerated() {
            for warning in payload.warnings() {
                let item = payloads.count > 1 ? "payload \(index + 1): " : ""
                environment.standardError.line("warning[\(warning.code.rawValue)]: \(item)\(warning.message)")
            }
        }
        if arguments.flag("json") {
            environment.standardOutput.line(JSONWriter.pretty(.array(payloads.map { Self.json($0) })))
            return ExitCode.success
        }
        for (index, payload) in payloads.enumerated() {
            if payloads.count > 1 { environment.standardOutput.line("payload \(index + 1) of \(payloads.count):") }
            for (key, value) in payload.jsonFields() {
                environment.standardOutput.line("  \(key): \(value)")
            }
        }
        return ExitCode.success
    }

    /// One payload for `payload --json`: the members of ``OnboardingPayload/jsonFields(redactingPasscode:)``, then
    /// `warnings`, an array (empty when there is nothing to say) of `{"code", "message"}` objects from
    /// ``OnboardingPayload/warnings()``. A warning names only what the payload holds that this tool ignores (such as
    /// discovery-capability bits 6-7), never the passcode.
    static func json(_ payload: OnboardingPayload) -> JSONValue {
        var object = JSONObject()
        for (key, value) in payload.jsonFields() {
            if let number = value.intValue {
                object[key] = .int(number)
            } else {
                object[key] = value.stringValue.map(JSONValue.string) ?? .null
            }
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

    func generate() throws(UsageError) -> Int32 {
        /// The option's whole number; `range` is what the message names (the payload's own rules check the rest).
        func number(_ name: String, max: UInt64, range: String) throws(UsageError) -> UInt64 {
            guard let text = arguments.value(name) else {
                throw UsageError(message: "Missing '--\(name)'", command: Self.generateSpec.name)
            }
            let value = text.lowercased().hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
            guard let value, value <= max else {
                // The passcode is a secret: the message does not repeat it.
                let shown = name == "passcode" ? "" : ", not '\(text)'"
                throw UsageError(message: "'--\(name)' must be a whole number, \(range)\(shown)", command: Self.generateSpec.name)
            }
            return value
        }
        let vendor = try number("vendor-id", max: UInt64(UInt16.max), range: "0 to 0xFFFF")
        let product = try number("product-id", max: UInt64(UInt16.max), range: "0 to 0xFFFF")
        let discriminator = try number("discriminator", max: UInt64(UInt16.max), range: "0 to 4095")
        let passcode = try number("passcode", max: UInt64(UInt32.max), range: "1 to 99999998")
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
            vendorID: UInt16(vendor), productID: UInt16(product), discriminator: UInt16(truncatingIfNeeded: discriminator),
            passcode: UInt32(passcode), commissioningFlow: flow, discoveryCapabilities: discovery)
        if discriminator > 4095 {
            environment.standardError.line("error[discriminatorOutOfRange]: the discriminator must be 0...4095, not \(discriminator)")
            return ExitCode.invalidInput
        }
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
            for problem in error.errors { environment.standardError.line("error[\(problem.code.rawValue)]: \(problem.message)") }
            return ExitCode.invalidInput
        }
    }
}
