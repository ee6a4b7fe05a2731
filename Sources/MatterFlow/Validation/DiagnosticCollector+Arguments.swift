import MatterFlowJSON

extension DiagnosticCollector {
    /// Checks the arguments a call gives against those its callee declares: each required one is given
    /// (`missingArgument`), no other is (`unexpectedArgument`, with a spelling hint), and each literal has the declared
    /// type (`argumentType`). `pointer` is the object holding the given arguments; `callee` names the callee in
    /// messages (`operation readBattery`, `workflow child.json`).
    ///
    /// `literalProblem` says why a literal of the right type still cannot be the value (an onboarding payload that is
    /// no valid code, an empty required string): an `invalidValue` where it is written, as the call would fail with it.
    func checkArguments(
        given: [(name: String, value: Template)], declared: [(name: String, shape: ValueShape, required: Bool)],
        at pointer: String, callee: String, literalProblem: (_ name: String, _ literal: JSONValue) -> String? = { _, _ in nil }
    ) {
        typealias Code = WorkflowDiagnosticCode
        let givenNames = Set(given.map(\.name))
        for (name, _, required) in declared where required && !givenNames.contains(name) {
            error(Code.missingArgument, at: pointer, "\(callee) needs \"\(name)\"")
        }
        let declaredNames = declared.map(\.name)
        for (name, value) in given {
            guard let shape = declared.first(where: { $0.name == name })?.shape else {
                error(
                    Code.unexpectedArgument, at: JSONPointer.appending(name, to: pointer), atKey: true,
                    "\(callee) takes no \"\(name)\"\(SpellingSuggestion.hint(for: name, among: declaredNames)) (it takes: \(declaredNames.isEmpty ? "nothing" : declaredNames.joined(separator: ", ")))")
                continue
            }
            if let literal = value.literalValue, !literal.isNull, !shape.admits(literal) {
                error(
                    Code.argumentType, at: JSONPointer.appending(name, to: pointer),
                    "\"\(name)\" must be \(shape), found \(literal.typeName)")
            } else if let literal = value.literalValue, !literal.isNull, let problem = literalProblem(name, literal) {
                error(DiagnosticCode.invalidValue, at: JSONPointer.appending(name, to: pointer), "\"\(name)\" \(problem)")
            }
        }
    }
}
