import MatterFlowJSON

extension WorkflowValidator {
    /// Each guard a step lists is built in or declared by the catalog (`unknownGuard`, which says to pass the
    /// catalog that declares it). A custom guard's arguments are checked with the state's own references
    /// (``ReferenceChecker``).
    func checkGuards(_ step: StepBehavior, state: WorkflowState) {
        for (index, listed) in step.guards.enumerated() {
            let pointer = JSONPointer.appending(index, to: state.pointer + "/guards")
            guard case .custom(let name) = listed, catalog.customGuard(named: name) == nil else { continue }
            let builtIn = BuiltInGuard.allCases.map(\.rawValue)
            let custom = catalog.guards.map(\.name)
            let declared = custom.isEmpty
                ? "no operation catalog given declares custom guards"
                : "custom guards of the given catalogs: \(custom.joined(separator: ", "))"
            collector.error(
                Code.unknownGuard, at: pointer,
                "unknown guard \"\(name)\"\(SpellingSuggestion.hint(for: name, among: builtIn + custom)) (built-in guards: \(builtIn.joined(separator: ", ")); \(declared)); a custom guard needs the operation catalog that declares it: pass --catalog FILE")
        }
    }
}
