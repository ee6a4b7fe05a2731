import MatterFlowJSON

/// Why a value of the right JSON type still cannot be an input's value: an onboarding payload that is no valid code,
/// or a dataset no border router can join.
struct InputContentProblem: Sendable, Hashable {
    /// What the value must be ("a valid QR code (MT:...) or manual pairing code").
    let expected: String
    /// What is wrong with this value.
    let problem: String
    /// What a user giving the value for a run should do.
    let remedy: String
}

extension InputDeclaration.InputType {
    /// Why `value`, already of this type's JSON shape, is not a usable value of the type; nil when it is. Only
    /// onboarding payloads and datasets have content rules. `payloadProblem` checks a code (a run passes its own,
    /// which keeps what it found).
    func contentProblem(
        of value: JSONValue, payloadProblem: (String) -> String? = OnboardingPayloadFacts.problem(with:)
    ) -> InputContentProblem? {
        guard let text = value.stringValue else { return nil }
        switch self {
        case .onboardingPayload:
            return payloadProblem(text).map {
                InputContentProblem(
                    expected: "a valid QR code (MT:...) or manual pairing code", problem: $0,
                    remedy: "check the code on the device's label")
            }
        case .operationalDataset:
            return BorderRouterOperations.datasetProblem(text).map {
                InputContentProblem(
                    expected: "a dataset a border router can join", problem: $0,
                    remedy: "give the whole Active Operational Dataset as hex (`ot-ctl dataset active -x`)")
            }
        case .string, .integer, .number, .boolean, .array, .object, .any:
            return nil
        }
    }
}

extension InputDeclaration {
    /// Why `value`, already of the input's JSON type, cannot be its value: an empty required string, or content its
    /// type refuses (``InputDeclaration/InputType/contentProblem(of:payloadProblem:)``); nil when it can. What a
    /// run's inputs are resolved with, and what the validator checks a literal against.
    func valueProblem(
        _ value: JSONValue, payloadProblem: (String) -> String? = OnboardingPayloadFacts.problem(with:)
    ) -> InputContentProblem? {
        if required, type == .string, value.stringValue?.isEmpty == true {
            return InputContentProblem(
                expected: "a non-empty string", problem: "it is empty", remedy: "a required string input must have a value")
        }
        return constraintProblem(value) ?? type.contentProblem(of: value, payloadProblem: payloadProblem)
    }

    /// The declared `minimum`/`maximum` as `0...600` (`...600`, `0...` with one of them); nil without either.
    var declaredRange: String? {
        guard minimum != nil || maximum != nil else { return nil }
        return "\(minimum.map(NumberRange.format) ?? "")...\(maximum.map(NumberRange.format) ?? "")"
    }

    /// Why `value` cannot be this input's value, in words (`is not a valid QR code ... (its checksum ...)`; a secret's
    /// value is never quoted); nil when it can. Of the wrong JSON type, content its type refuses, or outside the
    /// declared range or values.
    public func problem(with value: JSONValue) -> String? {
        guard type.admits(value) else { return "must be \(type.inWords), not \(value.typeName)" }
        return valueProblem(value).map { "is not \($0.expected) (\($0.problem)); \($0.remedy)" }
    }

    /// Why `value` is outside the input's declared `minimum`/`maximum`, longer than its `maxBytes` or holding a
    /// control character with one, or not among its `enum`; nil when it is not.
    func constraintProblem(_ value: JSONValue) -> InputContentProblem? {
        if let limit = maxBytes, let text = value.stringValue, text.utf8.count > limit {
            return InputContentProblem(
                expected: "at most \(limit) bytes of UTF-8",
                problem: secret ? "it is longer" : "it takes \(text.utf8.count) bytes, in \(text.count) characters",
                remedy: "shorten it (letters beyond ASCII take 2 to 4 bytes each)")
        }
        // A value a device keeps (what `maxBytes` marks) is text on one line: a device refuses a control character,
        // which is most often the CR a file with CRLF line ends left at the end.
        if maxBytes != nil, let text = value.stringValue, let control = ControlCharacter.first(in: text) {
            return InputContentProblem(
                expected: "text without control characters, as a device keeps it",
                problem: secret ? "it holds one" : "character \(control.position) is \(control.code)", remedy: ControlCharacter.remedy)
        }
        if let number = value.doubleValue, minimum.map({ number < $0 }) == true || maximum.map({ number > $0 }) == true,
            let range = declaredRange
        {
            return InputContentProblem(
                expected: "a number in \(range)", problem: secret ? "it is outside that range" : "\(JSONWriter.compact(value)) is outside it",
                remedy: "give a value in \(range)")
        }
        if let allowed = allowedValues, !allowed.contains(where: { Scope.equal($0, value) }) {
            let list = allowed.map(JSONWriter.compact).joined(separator: ", ")
            // The allowed text nearest a misspelt one (`nat64` for `nat64Only`); none for a secret, which a near
            // allowed value would give away.
            let hint = secret ? "" : value.stringValue.map { SpellingSuggestion.hint(for: $0, among: allowed.compactMap(\.stringValue)) } ?? ""
            return InputContentProblem(
                expected: "one of \(list)", problem: secret ? "it is none of them" : "\(JSONWriter.compact(value)) is none of them",
                remedy: "give one of \(list)\(hint)")
        }
        return nil
    }
}

