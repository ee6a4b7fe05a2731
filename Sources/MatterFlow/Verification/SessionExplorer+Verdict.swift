/// The quick half of the session proofs: whether a walk from a workflow's start could report anything at all,
/// decided from the nodes of its tree, so that a walk that would only confirm "nothing to report" can be left out.
///
/// A walk reports a leak only at an end where the session is held, an unbalanced map or repeat body only where a
/// body changes whether the session is held, and a call out of order only at a call with an order requirement;
/// a run enters its top level without the session. So where no call of the tree opens or releases the session
/// and none has an order requirement, the session is never held and no call can be out of order. What is left is
/// the proof's limit: the walk certainly finishes when every configuration it could number fits under the limit
/// (bounded above from the tree's sizes), and no walk of the load was cut short (whose instances it could reuse).
extension SessionExplorer {
    /// Whether a walk from `workflow`'s start might report something; false only when it certainly reports
    /// nothing (see the extension's description).
    func mayFind(from workflow: Workflow) -> Bool {
        guard let bound = configurationBound(from: workflow) else { return true }
        return bound >= configurationLimit
    }

    /// For a tree where no call opens or releases the session or has an order requirement, and no walk of the load
    /// was cut short: at least as many configurations as a walk from `workflow`'s start numbers (saturating at
    /// `Int.max`). Nil for any other tree.
    func configurationBound(from workflow: Workflow) -> Int? {
        guard let rootNode = graph.nodeIDs[workflow.file] else { return nil }
        if graph.instances.contains(where: \.truncated) { return nil }
        var seen: Set<Int> = [rootNode]
        var pending = [rootNode]
        // The support checks choices may record: the only session facts such a tree can change.
        var tested = OperationSet()
        // The sum over the tree's files of states × 3^tracked variables (each known to exist, known not to, or
        // unknown), saturating.
        var weight = 0
        while let id = pending.popLast() {
            let node = nodes[id]
            for case let call? in node.calls
            where call.acquiresSession || call.releasesSession || !call.requirements.isEmpty {
                return nil
            }
            for checks in node.supportChecks.values {
                for operations in checks { tested.formUnion(operations) }
            }
            var own = node.model.count
            for _ in 0..<node.tracked.count { own = Self.saturating(own, times: 3) }
            weight = Self.saturating(weight, plus: own)
            for child in node.children.values where seen.insert(child).inserted { pending.append(child) }
        }
        // The session is never held and its operations never tracked, so an instance differs from another of its
        // file only by the support checks it starts with (2^k) and whether a cancel is under way (2); within one,
        // a configuration by its state, mode (2), retrying (2), variable facts and support checks (2^k).
        let checks = tested.count
        guard checks < 20 else { return .max }
        let perState = (1 << checks) * 2 * 2 * 2 * (1 << checks)
        return Self.saturating(weight, times: perState)
    }

    private static func saturating(_ value: Int, times factor: Int) -> Int {
        let (product, overflow) = value.multipliedReportingOverflow(by: factor)
        return overflow ? .max : product
    }

    private static func saturating(_ value: Int, plus term: Int) -> Int {
        let (sum, overflow) = value.addingReportingOverflow(term)
        return overflow ? .max : sum
    }
}
