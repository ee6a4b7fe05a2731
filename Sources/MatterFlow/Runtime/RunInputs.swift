import MatterFlowJSON

extension Workflow {
    /// Checks a run's inputs against the declarations and fills in defaults.
    ///
    /// - Throws: ``DiagnosticsError`` listing every unknown input, missing required input (but one an unknown input's
    ///   spelling hint names: that is one mistake, reported once, as the unknown input), wrong type and empty
    ///   required `string` input (`invalidValue`), every `onboardingPayload` input (given, or its default) that is not
    ///   a valid code (`invalidValue`, never quoting it), and every secret input holding a string or number of 1-3
    ///   characters (`invalidValue`): a secret that short could not be redacted from free text without mangling it,
    ///   so it is refused rather than shown.
    public func resolveInputs(_ given: JSONObject, source: String = "<inputs>") throws(DiagnosticsError) -> JSONObject {
        var payloads = PayloadChecks()
        return try resolveInputs(given, source: source, payloads: &payloads)
    }

    /// ``resolveInputs(_:source:)`` for a run about to start, keeping what was found of its onboarding payloads for the
    /// run (``WorkflowEngine/start(_:resolvedInputs:on:options:)``), which then does not decode them again.
    package func resolveRunInputs(_ given: JSONObject) throws(DiagnosticsError) -> ResolvedInputs {
        var payloads = PayloadChecks()
        let values = try resolveInputs(given, source: "<inputs>", payloads: &payloads)
        return ResolvedInputs(values: values, payloads: payloads)
    }

    /// ``resolveInputs(_:source:)``, each onboarding payload checked through the run's `payloads`: a code the run
    /// has checked already is not decoded again, and one checked here is not decoded again by the run.
    /// `parentState`: the state of a parent workflow whose `inputs` give these (the remedies then point there).
    func resolveInputs(
        _ given: JSONObject, source: String, payloads: inout PayloadChecks, parentState: String? = nil
    ) throws(DiagnosticsError) -> JSONObject {
        var diagnostics: [Diagnostic] = []
        func report(_ code: String, _ name: String, _ message: String) {
            diagnostics.append(
                Diagnostic(severity: .error, code: code, message: message, file: source, pointer: JSONPointer.appending(name, to: "")))
        }
        // Why an input's value is not a usable value of it; nil when it is. Codes are checked through the run's cache.
        func valueProblem(_ index: Int, _ value: JSONValue) -> InputContentProblem? {
            inputs[index].valueProblem(value) { payloads.check($0).problem }
        }
        var resolved = JSONObject()
        resolved.reserveCapacity(inputs.count)
        // The inputs an unknown one's hint names: a required one of them that is missing is that misspelling, which
        // its hint already says how to write, and is not reported again.
        var suggested: Set<String> = []
        // Declarations are read in place: copying each one would retain every member of it.
        for member in given.members where !inputs.contains(where: { $0.name == member.key }) {
            let names = inputs.map(\.name)
            if let near = SpellingSuggestion.closest(to: member.key, among: names) { suggested.insert(near) }
            report(
                DiagnosticCode.unknownKey, member.key,
                "workflow \(name) has no input \"\(member.key)\"\(SpellingSuggestion.hint(for: member.key, among: names)) (inputs: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
        }
        for index in inputs.indices {
            let name = inputs[index].name
            // An explicit null means "not given", so the default applies (as when a sub-workflow passes an unset value).
            if let value = given[name], !value.isNull {
                if !inputs[index].type.admits(value) {
                    report(
                        DiagnosticCode.wrongType, name,
                        "input \"\(name)\" must be \(inputs[index].type.inWords), got \(inputs[index].type == .integer ? value.typeNameWhereIntegerExpected : value.typeName)"
                            + Self.quoting(value, for: inputs[index].type))
                } else if let problem = valueProblem(index, value) {
                    report(
                        DiagnosticCode.invalidValue, name,
                        "input \"\(name)\" is not \(problem.expected) (\(problem.problem)); \(problem.remedy)")
                }
                resolved[name] = value
            } else if let defaultValue = inputs[index].defaultValue {
                // A loaded workflow's default was checked as it loaded; one built in code is checked here.
                if let problem = valueProblem(index, defaultValue) {
                    report(
                        DiagnosticCode.invalidValue, name,
                        "the default of input \"\(name)\" is not \(problem.expected) (\(problem.problem)); give the input a valid value, or fix the workflow's default")
                }
                resolved[name] = defaultValue
            } else if inputs[index].required, !suggested.contains(name) {
                report(
                    DiagnosticCode.missingKey, name,
                    "required input \"\(name)\" is missing (or null); "
                        + (parentState.map { "give it in the \"inputs\" of state \($0), with a value that is not null" }
                            ?? "give it with the run's inputs (--input \(name)=VALUE on the command line)"))
            } else {
                resolved[name] = .null
            }
        }
        for index in inputs.indices where inputs[index].secret {
            let name = inputs[index].name
            // A value of the wrong type was reported as such: its length is beside the point.
            guard let value = resolved[name], inputs[index].type.admits(value) else { continue }
            let base = { JSONPointer.appending(name, to: "") }
            for pointer in Self.shortStrings(in: value, at: base) {
                diagnostics.append(
                    Diagnostic(
                        severity: .error, code: DiagnosticCode.invalidValue,
                        message: "secret input \"\(name)\" holds a string or number of 1-\(SecretValues.minimumLength - 1) "
                            + "characters\(pointer == base() ? "" : " at \(pointer)"); a secret that short cannot be told "
                            + "apart from other text, so it could not be kept out of traces, journals and messages: use at "
                            + "least \(SecretValues.minimumLength) characters",
                        file: source, pointer: pointer))
            }
        }
        guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics) }
        return resolved
    }

    /// `; write it in quotes: "34970112332"` for a number given where a string type is declared (a manual pairing
    /// code written as a JSON number, most often); empty otherwise. A secret's value is not repeated.
    static func quoting(_ value: JSONValue, for type: InputDeclaration.InputType) -> String {
        guard type.shape == .string, value.intValue != nil || value.doubleValue != nil else { return "" }
        return type == .string ? "; write it in quotes" : "; write the code in quotes, as a string"
    }

    /// The JSON pointers of the strings inside `value` that are not empty but shorter than
    /// ``SecretValues/minimumLength``, and of the numbers JSON writes that short; `pointer` gives `value`'s own,
    /// built only when one is found.
    static func shortStrings(in value: JSONValue, at pointer: () -> String) -> [String] {
        switch value {
        case .string, .int, .double:
            return SecretValues.isTooShort(value) ? [pointer()] : []
        case .array(let elements):
            return elements.indices.flatMap { index in
                shortStrings(in: elements[index]) { JSONPointer.appending(String(index), to: pointer()) }
            }
        case .object(let object):
            return object.members.flatMap { member in
                shortStrings(in: member.value) { JSONPointer.appending(member.key, to: pointer()) }
            }
        case .null, .bool:
            return []
        }
    }

    /// The inputs with secret values replaced by `"<redacted>"`.
    public func redacting(_ inputs: JSONObject) -> JSONObject {
        var copy = inputs
        for declaration in self.inputs where declaration.secret && copy[declaration.name].map({ !$0.isNull }) == true {
            copy[declaration.name] = .string(RunOptions.redacted)
        }
        return copy
    }
}

/// A run's inputs, resolved (``Workflow/resolveInputs(_:source:)``), with the onboarding payloads checked on the way.
package struct ResolvedInputs: Sendable {
    /// The inputs, defaults filled in.
    package let values: JSONObject
    let payloads: PayloadChecks
}
