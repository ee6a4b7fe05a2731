import MatterFlow
import MatterFlowJSON

/// Which states of a workflow (and of its sub-workflows) need hub methods that a hub's handshake does not list:
/// what `matterflow validate --hub` reports before any run.
public enum HubSupportCheck {
    /// The diagnostic code of a state the hub cannot serve.
    public static let code = "unsupportedByHub"

    /// A warning per state whose operation, guards or wait need a method missing from `handshake`, each naming the
    /// state, the operation and the missing method. Sub-workflows are checked once each. `catalog` tells which custom
    /// guards call an operation rather than read the status.
    public static func findings(
        _ workflow: Workflow, handshake: RemoteHub.Handshake, catalog: OperationCatalog = .standard
    ) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        var visited = Set<String>()
        var pending = [workflow]
        while let next = pending.popLast() {
            guard visited.insert(next.file).inserted else { continue }
            findings += check(next, handshake, catalog)
            pending += next.subworkflows.keys.sorted().compactMap { next.subworkflows[$0] }
        }
        return findings
    }

    private static func check(_ workflow: Workflow, _ handshake: RemoteHub.Handshake, _ catalog: OperationCatalog) -> [Diagnostic] {
        let locations = (try? JSONDocument.load(path: workflow.file))?.sourceMap.locations()
        var findings: [Diagnostic] = []
        func report(_ state: WorkflowState, member: String, _ message: String) {
            let pointer = state.pointer + member
            findings.append(
                Diagnostic(
                    severity: .warning, code: code, message: message, file: workflow.file, pointer: pointer,
                    location: locations?.location(of: pointer) ?? locations?.location(of: state.pointer)))
        }
        let hub = "hub \(handshake.hubName)"
        for name in workflow.stateOrder {
            guard let state = workflow.states[name] else { continue }
            for (index, listed) in (state.kind.step?.guards ?? []).enumerated() {
                let operation: String? =
                    if case .custom(let guardName) = listed { catalog.customGuard(named: guardName)?.check.operation } else { nil }
                let method = operation ?? "status"
                guard !handshake.operations.contains(method) else { continue }
                report(
                    state, member: "/guards/\(index)",
                    "\(hub) does not support \(method), which guard \(listed.name) of state '\(name)' reads; it will fail")
            }
            switch state.kind {
            case .action(let action):
                var missing = HubMethod.methods(forOperation: action.operation).filter { !handshake.operations.contains($0) }
                // The client looks one border router up in the list when the hub lists only that.
                if missing == ["borderRouter"], handshake.operations.contains("borderRouters") { missing = [] }
                if !missing.isEmpty {
                    report(
                        state, member: "/operation",
                        "\(hub) does not support \(missing.joined(separator: ", ")), which operation \(action.operation) of state '\(name)' calls; the state will fail with notSupported")
                }
            case .wait(let wait):
                if !handshake.events || !handshake.operations.contains("subscribe") {
                    report(
                        state, member: "/event",
                        "\(hub) sends no events, so state '\(name)' can never receive \(wait.event) and always times out")
                }
            case .workflow, .choice, .assign, .ask, .delay, .succeed, .fail:
                break
            }
        }
        return findings
    }
}
