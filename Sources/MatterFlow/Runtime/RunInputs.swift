import MatterFlowJSON

extension Workflow {
    /// Checks a run's inputs against the declarations and fills in defaults.
    ///
    /// - Throws: ``DiagnosticsError`` listing every unknown input, missing required input and wrong type.
    public func resolveInputs(_ given: JSONObject, source: String = "<inputs>") throws(DiagnosticsError) -> JSONObject {
        var diagnostics: [Diagnostic] = []
        func report(_ code: String, _ name: String, _ message: String) {
            diagnostics.append(
                Diagnostic(severity: .error, code: code, message: message, file: source, pointer: JSONPointer.appending(name, to: "")))
        }
        var resolved = JSONObject()
        resolved.reserveCapacity(inputs.count)
        // Declarations are read in place: copying each one would retain every member of it.
        for member in given.members where !inputs.contains(where: { $0.name == member.key }) {
            let names = inputs.map(\.name)
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
                        "input \"\(name)\" must be \(inputs[index].type.rawValue), got \(value.typeName)")
                }
                resolved[name] = value
            } else if let defaultValue = inputs[index].defaultValue {
                resolved[name] = defaultValue
            } else if inputs[index].required {
                report(
                    DiagnosticCode.missingKey, name,
                    "required input \"\(name)\" is missing (or null); pass --input \(name)=VALUE")
            } else {
                resolved[name] = .null
            }
        }
        guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics) }
        return resolved
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
