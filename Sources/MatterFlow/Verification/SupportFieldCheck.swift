import MatterFlowJSON

/// A choice branch's condition reads a member a support result does not declare (`unknownSupportField`).
struct UnknownSupportField {
    /// The choice state's number in its node's ``CompiledWorkflow``.
    var state: Int
    /// The branch's index in the choice's `choices`.
    var branch: Int
    var reference: Reference
    var result: SupportResult
}

/// Reports the members of support results that choice branches read but the results do not declare
/// (`unknownSupportField`, a warning), found with the session walk's node of the workflow
/// (``SessionExplorer/Node/unknownSupportFields``). Such a branch is no support check: the protocol-order proof
/// does not count it, and the run finds no value there. The reference checks already report a member a variable's
/// known shape lacks (`unknownField`); this adds the shapes only the proof follows, such as a border router a
/// sub-workflow outputs (`find-border-router.json`).
struct SupportFieldCheck {
    typealias Code = WorkflowDiagnosticCode
    let node: SessionExplorer.Node
    let collector: DiagnosticCollector

    func check() {
        for unknown in node.unknownSupportFields {
            let state = node.model.states[unknown.state]
            collector.warning(
                Code.unknownSupportField, at: state.pointer + "/choices/\(unknown.branch)/if",
                "\(Self.problem(unknown)): a run finds no value there, and the protocol-order proof does not count this branch as a support check of \(unknown.result.operation)")
        }
    }

    /// What the reference reads that the result lacks, with the member meant and those it has.
    private static func problem(_ unknown: UnknownSupportField) -> String {
        let reference = unknown.reference
        let result = "the result of \(unknown.result.operation) held in \"\(reference.head ?? "")\""
        // Found when the node was made: the path stops somewhere.
        guard let stuck = ReferenceChecker.follow(reference, from: unknown.result.shape).stuck else {
            return "${\(reference)} reads \(result)"
        }
        switch (stuck.at, stuck.segment) {
        case (.object(let fields), .member(let name)):
            let names = fields.map(\.name)
            return "${\(reference)} reads \"\(name)\", which \(result) does not declare\(SpellingSuggestion.hint(for: name, among: names)) (fields: \(names.joined(separator: ", ")))"
        case (_, .member), (_, .index):
            return "${\(reference)} reads into \(stuck.at), which has no such part (in \(result))"
        }
    }
}
