import Foundation
import MatterFlow
import MatterFlowJSON

/// Which states and transitions of each workflow a set of fixture runs exercised, per workflow file (a
/// sub-workflow counts whether it ran on its own or inside another).
///
/// Every edge of ``Workflow/edges`` is a transition of its own: `next`, each choice branch and the default, each
/// error route, each event value, the timeout, and the cancel edge of each state. The cancel edges of states that
/// only the cancel path reaches are not counted: the cancel path is shielded from further cancels, so no run can
/// take them (they are listed as ``WorkflowCoverage/uncountedTransitions``).
public struct CoverageReport: Sendable {
    /// The coverage of one workflow file.
    public struct WorkflowCoverage: Sendable {
        /// The workflow file (absolute, normalized).
        public var file: String
        /// The workflow's name.
        public var name: String
        /// Every state, in document order.
        public var states: [String]
        /// Every counted transition, in document order.
        public var transitions: [WorkflowEdge]
        /// Cancel edges no run can take (from states only the shielded cancel path reaches).
        public var uncountedTransitions: [WorkflowEdge]
        /// The states some run entered.
        public var coveredStates: Set<String>
        /// The counted transitions some run took.
        public var coveredTransitions: Set<WorkflowEdge>

        init(_ workflow: Workflow, file: String) {
            self.file = file
            name = workflow.name
            states = workflow.stateOrder
            let normal = workflow.reachableStates(includingCancel: false)
            let edges = workflow.edges
            transitions = edges.filter { $0.kind != .cancel || normal.contains($0.from) }
            uncountedTransitions = edges.filter { $0.kind == .cancel && !normal.contains($0.from) }
            coveredStates = []
            coveredTransitions = []
        }

        /// States never entered, in document order.
        public var missedStates: [String] { states.filter { !coveredStates.contains($0) } }
        /// Transitions never taken, in document order.
        public var missedTransitions: [WorkflowEdge] { transitions.filter { !coveredTransitions.contains($0) } }
        /// Whether every state and every counted transition was exercised.
        public var isComplete: Bool { missedStates.isEmpty && missedTransitions.isEmpty }

        /// The share of states entered, from 0 to 1.
        public var stateRatio: Double { Self.ratio(coveredStates.count, states.count) }
        /// The share of counted transitions taken, from 0 to 1.
        public var transitionRatio: Double { Self.ratio(coveredTransitions.count, transitions.count) }

        private static func ratio(_ part: Int, _ whole: Int) -> Double {
            whole == 0 ? 1 : Double(part) / Double(whole)
        }

        /// The coverage as JSON.
        public var jsonValue: JSONValue {
            func edge(_ edge: WorkflowEdge) -> JSONValue {
                ["from": .string(edge.from), "to": .string(edge.to), "edge": .string(edge.kind.description)]
            }
            return [
                "file": .string(file), "workflow": .string(name), "complete": .bool(isComplete),
                "states": [
                    "total": .int(states.count), "covered": .int(coveredStates.count),
                    "missed": .array(missedStates.map(JSONValue.string)),
                ],
                "transitions": [
                    "total": .int(transitions.count), "covered": .int(coveredTransitions.count),
                    "missed": .array(missedTransitions.map(edge)), "notCounted": .array(uncountedTransitions.map(edge)),
                ],
            ]
        }
    }

    /// Per workflow file, sorted by path.
    public private(set) var workflows: [WorkflowCoverage] = []

    /// Coverage of the runs of some fixture results: only a passing fixture's run covers anything, since a path
    /// whose expectations failed is not verified (the other results add their workflows, uncovered).
    public init(results: [FixtureResult]) {
        var byFile: [String: WorkflowCoverage] = [:]
        func register(_ workflow: Workflow) {
            let key = Self.key(workflow.file)
            // Each file once: a file that many states run (at many levels) is one entry, walked once.
            guard byFile[key] == nil else { return }
            byFile[key] = WorkflowCoverage(workflow, file: key)
            for child in workflow.subworkflows.values { register(child) }
        }
        for result in results {
            register(result.fixture.workflow)
            guard result.passed, let observation = result.observation else { continue }
            var stack = WorkflowStack(root: result.fixture.runnableWorkflow)
            for event in observation.events {
                guard let workflow = stack.locate(event) else { continue }
                let key = Self.key(workflow.file)
                switch event.kind {
                case .stateEntered(let state, _):
                    byFile[key]?.coveredStates.insert(state)
                case .transition(let from, let to, let kind):
                    if let edge = workflow.edges.first(where: { $0.from == from && $0.to == to && $0.kind == kind }) {
                        byFile[key]?.coveredTransitions.insert(edge)
                    }
                default:
                    break
                }
            }
        }
        workflows = byFile.values.sorted { $0.file < $1.file }
    }

    /// The coverage of one workflow file, if any fixture ran it.
    public func coverage(ofFile path: String) -> WorkflowCoverage? {
        let key = Self.key(path)
        return workflows.first { $0.file == key }
    }

    /// Whether every workflow's states and counted transitions were all exercised.
    public var isComplete: Bool { workflows.allSatisfy(\.isComplete) }

    /// The report as JSON.
    public var jsonValue: JSONValue { .array(workflows.map(\.jsonValue)) }

    static func key(_ file: String) -> String {
        URL(fileURLWithPath: file).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
