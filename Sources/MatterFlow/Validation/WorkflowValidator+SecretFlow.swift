import MatterFlowJSON

extension WorkflowValidator {
    /// A secret parameter (an operation's secret argument, a sub-workflow's secret input) must not be given an input
    /// of this workflow that is not secret: the call redacts the value, but the run's start, its checkpoints and its
    /// traces show the inputs as they are declared.
    ///
    /// An input reaches the parameter directly (`${input.code}`) or through variables that assign states set from it
    /// (`${vars.label}` after `"set": {"label": "${input.code}"}`), each reported once.
    func checkSecretFlow(_ template: Template, into parameter: String, at pointer: String, inputsInVariables: [String: Set<String>]) {
        var reported: Set<String> = []
        for reference in template.references {
            guard let head = reference.head else { continue }
            let names: [(input: String, through: String?)]
            switch reference.root {
            case .input: names = [(head, nil)]
            case .vars: names = (inputsInVariables[head] ?? []).sorted().map { ($0, head) }
            case .error, .run: names = []
            }
            for (name, variable) in names {
                guard let input = workflow.input(named: name), !input.secret, reported.insert(name).inserted else { continue }
                let route = variable.map { " (through variable \"\($0)\")" } ?? ""
                collector.error(
                    Code.secretInputNotDeclared, at: pointer,
                    "\(parameter) is secret, but input \"\(name)\" given to it\(route) is not: its value would show in the run's start, checkpoints and traces; declare the input \"secret\": true (or type onboardingPayload or operationalDataset)")
            }
        }
    }

    /// For each variable that an assign state sets, the inputs whose values may flow into it: those its templates
    /// name, and those of the variables they name, to a fixed point (a variable may be set from another set later in
    /// the document).
    static func inputsFlowingIntoVariables(of workflow: Workflow) -> [String: Set<String>] {
        var assignments: [(variable: String, inputs: Set<String>, variables: Set<String>)] = []
        for state in workflow.statesInOrder {
            guard case .assign(let assign) = state.kind else { continue }
            for (name, template) in assign.assignments {
                var inputs: Set<String> = []
                var variables: Set<String> = []
                for reference in template.references {
                    guard let head = reference.head else { continue }
                    switch reference.root {
                    case .input: inputs.insert(head)
                    case .vars: variables.insert(head)
                    case .error, .run: break
                    }
                }
                assignments.append((name, inputs, variables))
            }
        }
        var flows: [String: Set<String>] = [:]
        var changed = true
        while changed {
            changed = false
            for assignment in assignments {
                var inputs = assignment.inputs
                for variable in assignment.variables { inputs.formUnion(flows[variable] ?? []) }
                if !inputs.isSubset(of: flows[assignment.variable] ?? []) {
                    flows[assignment.variable, default: []].formUnion(inputs)
                    changed = true
                }
            }
        }
        return flows
    }
}
