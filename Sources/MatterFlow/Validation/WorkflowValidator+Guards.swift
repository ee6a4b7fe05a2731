import MatterFlowJSON

extension WorkflowValidator {
    /// Each guard a step lists is built in or declared by the catalog (`unknownGuard`, which says to pass the
    /// catalog that declares it), and a custom guard's arguments read only inputs the workflow declares.
    func checkGuards(_ step: StepBehavior, state: WorkflowState) {
        for (index, listed) in step.guards.enumerated() {
            let pointer = JSONPointer.appending(index, to: state.pointer + "/guards")
            guard case .custom(let name) = listed else { continue }
            guard let descriptor = catalog.customGuard(named: name) else {
                let builtIn = BuiltInGuard.allCases.map(\.rawValue)
                let custom = catalog.guards.map(\.name)
                let declared = custom.isEmpty
                    ? "no operation catalog given declares custom guards"
                    : "custom guards of the given catalogs: \(custom.joined(separator: ", "))"
                collector.error(
                    Code.unknownGuard, at: pointer,
                    "unknown guard \"\(name)\"\(SpellingSuggestion.hint(for: name, among: builtIn + custom)) (built-in guards: \(builtIn.joined(separator: ", ")); \(declared)); a custom guard needs the operation catalog that declares it: pass --catalog FILE")
                continue
            }
            guard case .operation(_, let arguments, _) = descriptor.check else { continue }
            for (argument, template) in arguments {
                for reference in template.references where reference.root == .input {
                    guard let input = reference.head, workflow.input(named: input) == nil else { continue }
                    collector.error(
                        Code.undefinedInput, at: pointer,
                        "guard \"\(name)\" passes ${\(reference)} as argument \"\(argument)\", but this workflow declares no input \"\(input)\"; declare it under \"inputs\" or use another guard")
                }
            }
        }
    }
}
