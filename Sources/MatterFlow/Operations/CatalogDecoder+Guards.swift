import MatterFlowJSON

extension CatalogDecoder {
    /// `"NAME": {"summary", "operation"?, "arguments"?, "passesWhen", "error": {"cause", "message"}}`: a custom guard
    /// (docs/operation-catalog.md, section 7). Without `operation` it reads the hub's status. What the guard reads
    /// and passes is checked against the catalog it joins (``OperationCatalog/checkGuard(_:at:collector:)``).
    func decodeGuard(_ name: String, _ value: JSONValue, at pointer: String) -> GuardDescriptor? {
        var nameValid = checkName(name, kind: "guard", at: pointer, reserved: [])
        if nameValid, BuiltInGuard(rawValue: name) != nil {
            collector.error(
                CatalogDiagnosticCode.nameClash, at: pointer, atKey: true,
                "guard \"\(name)\" is built in; a catalog cannot redeclare it, so choose another name")
            nameValid = false
        }
        guard let reader = collector.object(value, at: pointer, what: "guard \"\(name)\"") else { return nil }
        let workflowDecoder = WorkflowDecoder(collector: collector)
        let summary = reader.nonEmptyString("summary", required: true)

        // The source: an operation, or the hub's status.
        var sourceValid = true
        let operationName = reader.nonEmptyString("operation")
        if operationName == nil, reader.object["operation"] != nil { sourceValid = false }
        var arguments: [(name: String, value: Template)] = []
        if let argumentsReader = reader.object("arguments") {
            if operationName == nil {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("arguments"),
                    "\"arguments\" only applies to a guard that calls an \"operation\"; a status guard reads the hub's status")
                sourceValid = false
            }
            arguments = workflowDecoder.templates(argumentsReader)
        }
        let condition = reader.value("passesWhen", required: true, what: "a condition").flatMap {
            workflowDecoder.decodeCondition($0, reader.pointer("passesWhen"))
        }

        var cause: ErrorCause?
        var message: String?
        var declaredCauses: [DeclaredCause] = []
        if let errorReader = reader.object("error", required: true) {
            let causeName = errorReader.nonEmptyString("cause", required: true)
            message = errorReader.nonEmptyString("message", required: true)
            errorReader.finish()
            if let causeName, let resolved = resolveCause(causeName, at: errorReader.pointer("cause")) {
                cause = resolved.cause
                declaredCauses = resolved.declared.map { [$0] } ?? []
            }
        }
        reader.finish()
        guard sourceValid, let condition else { return nil }
        let check: GuardDescriptor.Check
        if let operationName {
            check = .operation(operationName, arguments: arguments, passesWhen: condition)
        } else {
            check = .status(passesWhen: condition)
        }
        decodedGuardChecks.append((check, pointer))
        guard nameValid, let summary, let cause, let message else { return nil }
        return GuardDescriptor(
            name: name, summary: summary, check: check, cause: cause, message: message, declaredCauses: declaredCauses)
    }
}
