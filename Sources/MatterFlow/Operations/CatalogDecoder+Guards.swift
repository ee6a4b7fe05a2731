import MatterFlowJSON

extension CatalogDecoder {
    /// `"NAME": {"summary", "operation"?, "arguments"?, "passesWhen", "error": {"cause", "message"}}`: a custom guard
    /// (docs/operation-catalog.md, section 7). Without `operation` it reads the hub's status.
    func decodeGuard(
        _ name: String, _ value: JSONValue, at pointer: String, declaredOperations: [OperationDescriptor]
    ) -> GuardDescriptor? {
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

        // The source: an operation with effect read, or the hub's status.
        var operation: OperationDescriptor?
        var sourceValid = true
        let operationName = reader.nonEmptyString("operation")
        if let operationName {
            let found = declaredOperations.first { $0.name == operationName } ?? OperationCatalog.standard[operationName]
            if let problem = OperationCatalog.guardOperationProblem(found, named: operationName) {
                collector.error(DiagnosticCode.invalidValue, at: reader.pointer("operation"), problem)
                sourceValid = false
            } else {
                operation = found
            }
        } else if reader.object["operation"] != nil {
            sourceValid = false
        }
        var arguments: [(name: String, value: Template)] = []
        if let argumentsReader = reader.object("arguments") {
            if operationName == nil {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("arguments"),
                    "\"arguments\" only applies to a guard that calls an \"operation\"; a status guard reads the hub's status")
                sourceValid = false
            }
            arguments = workflowDecoder.templates(argumentsReader)
            if let operation { checkArguments(arguments, of: operation, at: argumentsReader.pointer) }
        }

        let variable = operationName == nil ? GuardDescriptor.statusVariable : GuardDescriptor.resultVariable
        var condition: Condition?
        if let conditionValue = reader.value("passesWhen", required: true, what: "a condition") {
            let conditionPointer = reader.pointer("passesWhen")
            condition = workflowDecoder.decodeCondition(conditionValue, conditionPointer)
            if let condition {
                let readable = operationName == nil ? GuardDescriptor.statusFacts : operation.flatMap(Self.resultFields)
                if !checkConditionReferences(condition, variable: variable, fields: readable, at: conditionPointer) {
                    sourceValid = false
                }
            }
        }

        var cause: ErrorCause?
        var message: String?
        var declaredCauses: [DeclaredCause] = []
        if let errorReader = reader.object("error", required: true) {
            let causeName = errorReader.nonEmptyString("cause", required: true)
            message = errorReader.nonEmptyString("message", required: true)
            errorReader.finish()
            if let causeName {
                if ErrorCause(rawValue: causeName).code != nil {
                    cause = ErrorCause(rawValue: causeName)
                } else if let declared = causes[causeName] {
                    cause = declared.cause
                    declaredCauses.append(declared)
                } else {
                    let known = ErrorCause.table.map(\.cause.rawValue) + causes.keys.sorted()
                    collector.error(
                        DiagnosticCode.invalidValue, at: errorReader.pointer("cause"),
                        "\"\(causeName)\" is not an error cause MatterFlow knows\(SpellingSuggestion.hint(for: causeName, among: known)); name a cause listed in docs/workflow-language.md section 14, or declare it with its code under \"causes\" in this file")
                }
            }
        }
        reader.finish()
        guard nameValid, sourceValid, let summary, let condition, let cause, let message else { return nil }
        let check: GuardDescriptor.Check
        if let operationName {
            check = .operation(operationName, arguments: arguments, passesWhen: condition)
        } else {
            check = .status(passesWhen: condition)
        }
        return GuardDescriptor(
            name: name, summary: summary, check: check, cause: cause, message: message, declaredCauses: declaredCauses)
    }

    /// The names of an operation's result fields; nil when its result may hold anything.
    private static func resultFields(_ operation: OperationDescriptor) -> [String]? {
        if case .object(let fields) = operation.result { return fields.map(\.name) }
        return nil
    }

    /// A guard's arguments must be the operation's (each required one given, literals of the declared type), and
    /// may read the state's scope (`input`, `vars`, `run`) but not `${error}`, which a guard never has.
    private func checkArguments(
        _ arguments: [(name: String, value: Template)], of operation: OperationDescriptor, at pointer: String
    ) {
        let declaredNames = operation.arguments.map(\.name)
        for argument in operation.arguments where argument.required && !arguments.contains(where: { $0.name == argument.name }) {
            collector.error(
                DiagnosticCode.invalidValue, at: pointer, "operation \(operation.name) needs argument \"\(argument.name)\"")
        }
        for (name, template) in arguments {
            let argumentPointer = JSONPointer.appending(name, to: pointer)
            guard let declared = operation.arguments.first(where: { $0.name == name }) else {
                collector.error(
                    DiagnosticCode.invalidValue, at: argumentPointer, atKey: true,
                    "operation \(operation.name) takes no \"\(name)\"\(SpellingSuggestion.hint(for: name, among: declaredNames)) (it takes: \(declaredNames.isEmpty ? "nothing" : declaredNames.joined(separator: ", ")))")
                continue
            }
            if let literal = template.literalValue, !literal.isNull, !declared.shape.admits(literal) {
                collector.error(
                    DiagnosticCode.invalidValue, at: argumentPointer,
                    "argument \"\(name)\" of \(operation.name) must be \(declared.shape), not \(literal.typeName)")
            }
            for reference in template.references where reference.root == .error {
                collector.error(
                    DiagnosticCode.invalidValue, at: argumentPointer,
                    "${\(reference)}: a guard is checked before its step's work, where there is no error to read; use ${input...}, ${vars...} or ${run...}")
            }
        }
    }

    /// A guard's condition reads only `${vars.<variable>...}`: the status facts, or the operation's result fields
    /// (any member when `fields` is nil). Reports each other reference; false when there was one.
    private func checkConditionReferences(_ condition: Condition, variable: String, fields: [String]?, at pointer: String) -> Bool {
        var valid = true
        for reference in condition.templates.flatMap(\.references) {
            guard reference.root == .vars, reference.head == variable else {
                collector.error(
                    DiagnosticCode.invalidValue, at: pointer,
                    "${\(reference)}: a guard's condition reads only ${vars.\(variable)...}, "
                        + (variable == GuardDescriptor.statusVariable
                            ? "the hub's status (\(GuardDescriptor.statusFacts.map { "${vars.status.\($0)}" }.joined(separator: ", ")))"
                            : "the result of the guard's operation"))
                valid = false
                continue
            }
            guard let fields, reference.path.count > 1 else { continue }
            guard case .member(let field) = reference.path[1], fields.contains(field) else {
                let readable = fields.map { "${vars.\(variable).\($0)}" }.joined(separator: ", ")
                collector.error(
                    DiagnosticCode.invalidValue, at: pointer,
                    "${\(reference)} names no field of \(variable == GuardDescriptor.statusVariable ? "the hub's status" : "the operation's result") (fields: \(readable))")
                valid = false
                continue
            }
        }
        return valid
    }
}
