import Foundation
import MatterFlow
import MatterFlowJSON

/// A `workflow` state whose sub-workflow is replaced, in one fixture, by a stand-in that ends at once: with an
/// error or with an output. This is how fixtures exercise a parent's error routes for a child that cannot fail
/// on its own (`rooms.json` turns every failure into an empty room list), in the manner of Step Functions mocked
/// responses.
///
/// The stand-in is a workflow with one state, `mocked` (a `fail` or `succeed` state), so the run visits
/// `rooms/mocked` where it would have visited `rooms/fetch`. It declares the real child's inputs, so the parent
/// passes them as usual; its own states are not counted in coverage.
public struct FixtureMock: Sendable {
    /// How the stand-in ends.
    public enum Effect: Sendable, Hashable {
        /// Fails with this error (its `state` is `mocked`, qualified by the parent states).
        case fail(FlowError)
        /// Succeeds with this output.
        case output(JSONValue)
    }

    /// The `workflow` state whose child is replaced, qualified (`rooms`, or `commission/...` for a nested one).
    public var state: String
    /// How the stand-in ends.
    public var effect: Effect

    /// A mock of the `workflow` state `state` (qualified).
    public init(state: String, effect: Effect) {
        self.state = state
        self.effect = effect
    }

    /// The name of the stand-in's only state.
    public static let stateName = "mocked"

    /// The stand-in for a child workflow, loaded from generated text so it is validated like any workflow.
    func standIn(for child: Workflow, label: String, engine: WorkflowEngine) throws(DiagnosticsError) -> Workflow {
        var inputs = JSONObject()
        for input in child.inputs { inputs[input.name] = ["type": "any"] }
        let terminal: JSONValue
        switch effect {
        case .fail(let error):
            terminal = [
                "type": "fail", "code": .string(error.code.rawValue),
                "cause": .string(Self.literal(error.cause.rawValue)),
                "message": .string(Self.literal(error.message)),
            ]
        case .output(let output):
            terminal = ["type": "succeed", "output": Self.literal(output)]
        }
        let text = JSONWriter.compact([
            "workflow": .string(child.name), "version": 1, "inputs": .object(inputs), "start": .string(Self.stateName),
            "states": .object(JSONObject([JSONObject.Member(key: Self.stateName, value: terminal)])),
        ])
        return try engine.load(text: text, file: label, baseDirectory: "/")
    }

    /// Text as a literal: `${` written as `$${`, so nothing in it is read as a reference.
    static func literal(_ text: String) -> String {
        text.replacingOccurrences(of: "${", with: "$${")
    }

    static func literal(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): .string(literal(text))
        case .array(let elements): .array(elements.map(literal))
        case .object(let object):
            .object(JSONObject(object.members.map { .init(key: $0.key, value: literal($0.value)) }))
        case .null, .bool, .int, .double: value
        }
    }
}

extension Workflow {
    /// This workflow with the child of the `workflow` state at `path` (state names, outermost first) replaced.
    /// Each replaced level gets a key of its own, so other states running the same file keep the real one.
    func replacingChild(at path: ArraySlice<String>, with standIn: Workflow) -> Workflow? {
        guard let name = path.first, var state = states[name], case .workflow(var step) = state.kind,
            let child = subworkflows[step.path]
        else { return nil }
        let replacement: Workflow
        if path.count == 1 {
            replacement = standIn
        } else {
            guard let nested = child.replacingChild(at: path.dropFirst(), with: standIn) else { return nil }
            replacement = nested
        }
        step.path = "mock:\(name):\(step.path)"
        state.kind = .workflow(step)
        return with { definition in
            definition.states[name] = state
            definition.subworkflows[step.path] = replacement
        }
    }
}
