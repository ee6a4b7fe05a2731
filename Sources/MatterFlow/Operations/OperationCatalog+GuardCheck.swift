import MatterFlowJSON

extension OperationCatalog {
    /// Checks a custom guard against this catalog, whichever way it was declared (a catalog file or Swift): its
    /// operation is in the catalog and only reads; its arguments are the operation's (`missingArgument`,
    /// `unexpectedArgument`, `argumentType`) and read no `${error}`, which a guard never has; its condition reads only
    /// `${vars.status...}` or `${vars.result...}`, along a path the hub's status or the operation's result has
    /// (`unknownField`). Findings stand under `pointer`, the guard's place (`/guards/NAME`); false when there was one.
    func checkGuard(_ descriptor: GuardDescriptor, at pointer: String, collector: DiagnosticCollector) -> Bool {
        let before = collector.diagnostics.count
        let named = "guard \"\(descriptor.name)\": "
        let readable: ValueShape?
        switch descriptor.check {
        case .status:
            readable = GuardDescriptor.statusShape
        case .operation(let name, let arguments, _):
            let operation = self[name]
            if let problem = Self.guardOperationProblem(operation, named: name) {
                collector.error(DiagnosticCode.invalidValue, at: JSONPointer.appending("operation", to: pointer), named + problem)
            }
            let argumentsPointer = JSONPointer.appending("arguments", to: pointer)
            if let operation {
                collector.checkArguments(
                    given: arguments, declared: operation.arguments.map { ($0.name, $0.shape, $0.required) },
                    at: argumentsPointer, callee: named + "operation \(operation.name)")
            }
            for (name, template) in arguments {
                for reference in template.references where reference.root == .error {
                    collector.error(
                        DiagnosticCode.invalidValue, at: JSONPointer.appending(name, to: argumentsPointer),
                        named + "${\(reference)}: a guard is checked before its step's work, where there is no error to read; use ${input...}, ${vars...} or ${run...}")
                }
            }
            readable = operation?.result
        }
        if let readable { checkCondition(of: descriptor, reading: readable, at: pointer, collector: collector) }
        return collector.diagnostics.count == before
    }

    /// A guard's condition reads only `${vars.<its variable>...}`, along a path `shape` has.
    private func checkCondition(
        of descriptor: GuardDescriptor, reading shape: ValueShape, at pointer: String, collector: DiagnosticCollector
    ) {
        let conditionPointer = JSONPointer.appending("passesWhen", to: pointer)
        let variable = descriptor.conditionVariable
        let named = "guard \"\(descriptor.name)\": "
        for reference in descriptor.check.condition.templates.flatMap(\.references) {
            guard reference.root == .vars, reference.head == variable else {
                let what =
                    descriptor.check.operation == nil
                    ? "the hub's status (\(GuardDescriptor.statusFacts.map { "${vars.status.\($0)}" }.joined(separator: ", ")))"
                    : "the result of the guard's operation"
                collector.error(
                    DiagnosticCode.invalidValue, at: conditionPointer,
                    named + "${\(reference)}: a guard's condition reads only ${vars.\(variable)...}, \(what)")
                continue
            }
            if let problem = ReferenceChecker.pathProblem(reference, from: shape) {
                collector.error(WorkflowDiagnosticCode.unknownField, at: conditionPointer, named + problem)
            }
        }
    }
}
