import MatterFlowJSON

/// The session-release proof (`sessionLeak`) and the protocol order (`operationOutOfOrder`), reported from one
/// ``SessionExplorer`` walk, each finding with the path that shows it, state by state.
///
/// A run ends with the session released when it fails, ends with an error no route takes, or is cancelled. A
/// succeed state may hand an open session to the caller (as `prepare.json` does) unless the workflow declares
/// `"sessionOnSuccess": "released"`. A failed release still counts when the operation says so
/// (``OperationDescriptor/releaseAttemptSuffices``, as for `cancelCommissioning`): nothing more could release it.
struct SessionCheck {
    typealias Code = WorkflowDiagnosticCode
    let workflow: Workflow
    let explorer: SessionExplorer
    let collector: DiagnosticCollector

    func check() {
        reportLeaks()
        reportUnbalancedMaps()
        reportOrder()
        reportUnfinished()
    }

    private func reportLeaks() {
        var reported = Set<String>()
        let releasedOnSuccess = workflow.contract.sessionOnSuccess == .released
        for end in explorer.ends where end.held && (end.ending != .succeeded || releasedOnSuccess) {
            let pointer = explorer.rootPointer(end) ?? explorer.lastRootPointer(to: end.point) ?? ""
            guard reported.insert(pointer).inserted else { continue }
            let stillRunning = !explorer.innermostIsTerminal(end.point)
            let state = explorer.stateName(end)
            let how: String
            switch end.ending {
            case .succeeded: how = "in succeed state \"\(state)\" (the workflow declares \"sessionOnSuccess\": \"released\")"
            case .failed: how = "in fail state \"\(state)\""
            case .unrouted: how = "with an error no route of \"\(state)\" takes"
            case .cancelled: how = stillRunning ? "when cancelled in \"\(state)\", which has no cancel path" : "after a cancel, in \"\(state)\""
            }
            let final = explorer.label(end) ?? (end.ending == .cancelled && stillRunning ? "cancel" : nil)
            let cause = end.ending == .cancelled ? nil : inputCause(of: end)
            collector.error(
                Code.sessionLeak, at: pointer,
                "the commissioning session opened in \"\(acquirer(on: end.point))\" can still be open when the run ends \(how)\(cause.map { "; \($0)" } ?? ""); release it on this path first (cancelCommissioning, or completeCommissioning after a commission). Path: \(explorer.pathText(to: end.point, final: final))")
        }
    }

    private func reportUnbalancedMaps() {
        var reported = Set<String>()
        for unbalanced in explorer.unbalancedMaps {
            let state = explorer.name(unbalanced.config)
            let config = explorer.graph.configs[unbalanced.config]
            let kind = explorer.node(of: config).model.states[config.state].kind.typeName
            guard reported.insert("\(state) \(unbalanced.opened)").inserted else { continue }
            let root = explorer.graph.configs[explorer.rootConfig(of: unbalanced.config)]
            let rootState = explorer.node(of: root).model.states[root.state]
            let what = unbalanced.opened
                ? "can end holding a commissioning session it opened, so the next run of the body would find it busy and the last would leave it open"
                : "can release the commissioning session it was started in, so the next run of the body and the states after it run without it"
            collector.error(
                Code.unbalancedMapBody, at: rootState.pointer + "/path",
                "the body of \(kind) state \"\(state)\" \(what); a \(kind) state's body must leave the session as it found it (open and release it inside the body, or do neither). Path: \(explorer.pathText(to: unbalanced.point))")
        }
    }

    private func reportOrder() {
        var reported = Set<String>()
        for violation in explorer.violations {
            let state = explorer.name(violation.config)
            guard reported.insert("\(state) \(violation.requirement)").inserted else { continue }
            let point = SessionExplorer.Point(config: violation.config, via: nil)
            collector.error(
                Code.operationOutOfOrder, at: explorer.pointer(of: violation),
                "\(violation.operation) can be called in \"\(state)\" without \(violation.requirement) (the hub refuses it, or acts on the wrong device or session); path: \(explorer.pathText(to: point))")
        }
    }

    /// The proof covers every path only when the walk finished: one cut short is a finding, not a pass.
    private func reportUnfinished() {
        guard !explorer.finished else { return }
        collector.error(
            Code.proofIncomplete, at: "",
            "the session-release and protocol-order proofs stopped after \(explorer.configurationLimit) configurations without covering every path, so they prove nothing; split the workflow into smaller sub-workflows (each file is explored once per way it is entered)")
    }

    /// The state on the path where the session was last opened.
    private func acquirer(on point: SessionExplorer.Point) -> String {
        let path = explorer.path(to: point)
        // Where the path goes from not holding it to holding it, the state it leaves; when the path holds it only at
        // its end (a cancel arriving just after the state's call opened it), the state it ends in.
        var found = path.last?.name ?? "?"
        var held = false
        for (position, element) in path.enumerated() {
            if element.held, !held, position > 0 { found = path[position - 1].name }
            held = element.held
        }
        return found
    }
}
