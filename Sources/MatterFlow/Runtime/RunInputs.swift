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
        for member in given.members where input(named: member.key) == nil {
            let names = inputs.map(\.name)
            report(
                DiagnosticCode.unknownKey, member.key,
                "workflow \(name) has no input \"\(member.key)\"\(SpellingSuggestion.hint(for: member.key, among: names)) (inputs: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
        }
        for declaration in inputs {
            // An explicit null means "not given", so the default applies (as when a sub-workflow passes an unset value).
            if let value = given[declaration.name], !value.isNull {
                if !declaration.type.admits(value) {
                    report(
                        DiagnosticCode.wrongType, declaration.name,
                        "input \"\(declaration.name)\" must be \(declaration.type.rawValue), got \(value.typeName)")
                }
                resolved[declaration.name] = value
            } else if let defaultValue = declaration.defaultValue {
                resolved[declaration.name] = defaultValue
            } else if declaration.required {
                report(
                    DiagnosticCode.missingKey, declaration.name,
                    "required input \"\(declaration.name)\" is missing (or null); pass --input \(declaration.name)=VALUE")
            } else {
                resolved[declaration.name] = .null
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
