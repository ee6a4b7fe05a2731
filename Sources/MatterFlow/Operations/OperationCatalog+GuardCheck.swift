import MatterFlowJSON

extension OperationCatalog {
    /// Checks a custom guard against this catalog, whichever way it was declared (a catalog file or Swift): its
    /// operation is in the catalog and only reads; its arguments are the operation's (`missingArgument`,
    /// `unexpectedArgument`, `argumentType`) and read no `${error}`, which a guard never has; its condition reads only
    /// `${vars.status...}` or `${vars.result...}`, along a path the hub's status or the operation's result has
    /// (`unknownField`). Findings stand under `pointer`, the guard's place (`/guards/NAME`); false when there was one.
    func checkGuard(_ check: GuardDescriptor.Check, at pointer: String, collector: DiagnosticCollector) -> Bool {
        let before = collector.diagnostics.count
        let readable: ValueShape?
        switch check {
        case .status:
            readable = GuardDescriptor.statusShape
        case .operation(let name, let arguments, _):
            let operation = self[name]
            if let problem = Self.guardOperationProblem(operation, named: name) {
                collector.error(DiagnosticCode.invalidValue, at: JSONPointer.appending("operation", to: pointer), problem)
            }
            let argumentsPointer = JSONPointer.appending("arguments", to: pointer)
            if let operation {
                collector.checkArguments(
                    given: arguments, declared: operation.arguments.map { ($0.name, $0.shape, $0.required) },
                    at: argumentsPointer, callee: "operation \(operation.name)")
            }
            for (name, template) in arguments {
                for reference in template.references where reference.root == .error {
                    collector.error(
                        DiagnosticCode.invalidValue, at: JSONPointer.appending(name, to: argumentsPointer),
                        "${\(reference)}: a guard is checked before its step's work, where there is no error to read; use ${input...}, ${vars...} or ${run...}")
                }
            }
            readable = operation?.result
        }
        if let readable { checkCondition(of: check, reading: readable, at: pointer, collector: collector) }
        return collector.diagnostics.count == before
    }

    /// The findings about the guards of a catalog file that has other errors, checked against this catalog with the
    /// file's operations that decoded, so one read of the file reports every problem. A guard reading an operation the
    /// file declares but that did not decode is not checked: its operation's own findings say what to fix.
    func findings(checkingGuardsOf decoder: CatalogDecoder) -> [Diagnostic] {
        var probe = self
        for operation in decoder.decodedOperations where probe[operation.name] == nil { probe.add(operation) }
        let collector = DiagnosticCollector(document: decoder.collector.document)
        for (check, pointer) in decoder.decodedGuardChecks {
            if let operation = check.operation, decoder.declaredOperationNames.contains(operation), probe[operation] == nil { continue }
            _ = probe.checkGuard(check, at: pointer, collector: collector)
        }
        return collector.diagnostics
    }

    /// A guard's condition reads only `${vars.<its variable>...}`, along a path `shape` has.
    private func checkCondition(
        of check: GuardDescriptor.Check, reading shape: ValueShape, at pointer: String, collector: DiagnosticCollector
    ) {
        let conditionPointer = JSONPointer.appending("passesWhen", to: pointer)
        let variable = check.conditionVariable
        for reference in check.condition.templates.flatMap(\.references) {
            guard reference.root == .vars, reference.head == variable else {
                let what =
                    check.operation == nil
                    ? "the hub's status (\(GuardDescriptor.statusFacts.map { "${vars.status.\($0)}" }.joined(separator: ", ")))"
                    : "the result of the guard's operation"
                collector.error(
                    DiagnosticCode.invalidValue, at: conditionPointer,
                    "${\(reference)}: a guard's condition reads only ${vars.\(variable)...}, \(what)")
                continue
            }
            if let problem = ReferenceChecker.pathProblem(reference, from: shape) {
                collector.error(WorkflowDiagnosticCode.unknownField, at: conditionPointer, problem)
            }
        }
    }
}
