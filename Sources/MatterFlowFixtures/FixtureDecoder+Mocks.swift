import MatterFlow
import MatterFlowJSON

/// Decoding of `mocks`: sub-workflows replaced by stand-ins.
extension FixtureDecoder {
    /// Reads the mocks and puts their stand-ins in place in `workflow`.
    func decodeMocks(_ elements: [JSONValue], at pointer: String, into workflow: inout Workflow?) -> [FixtureMock] {
        var mocks: [FixtureMock] = []
        var positions: [Int] = []  // each mock's index in the file's array
        for (index, element) in elements.enumerated() {
            let elementPointer = JSONPointer.appending(index, to: pointer)
            guard let reader = collector.object(element, at: elementPointer, what: "a mock") else { continue }
            _ = reader.string("description")
            let stateName = reader.nonEmptyString("state", required: true).flatMap {
                state($0, at: reader.pointer("state"))
            }
            let effects = ["fail", "output"].filter { reader.has($0) }
            var effect: FixtureMock.Effect?
            if effects.count != 1 {
                collector.error(
                    effects.isEmpty ? DiagnosticCode.missingKey : DiagnosticCode.invalidValue, at: elementPointer,
                    "a mock has one of \"fail\" (an error) or \"output\" (the sub-workflow's output)")
            } else if effects == ["output"] {
                effect = reader.value("output").map(FixtureMock.Effect.output)
            } else if let error = reader.object("fail").flatMap({ decodeError($0, operation: nil) }) {
                effect = .fail(error)
            }
            reader.finish()
            guard let stateName, let effect, let current = workflow else { continue }
            if let earlier = mocks.firstIndex(where: { $0.state == stateName || stateName.hasPrefix($0.state + "/") }) {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("state"),
                    mocks[earlier].state == stateName
                        ? "state \"\(stateName)\" is mocked already (mocks[\(positions[earlier])]); keep one mock per state"
                        : "state \"\(stateName)\" is inside \"\(mocks[earlier].state)\", which mocks[\(positions[earlier])] replaces as a whole; drop one of the two")
                continue
            }
            let path = stateName.split(separator: "/").map(String.init)
            guard let child = current.child(at: path[...]) else {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("state"),
                    "\"\(stateName)\" is not a workflow state; only sub-workflows can be mocked (script hub calls with \"faults\")"
                )
                continue
            }
            let mock = FixtureMock(state: stateName, effect: effect)
            do {
                let label = "\(collector.document.file) (mock of \(stateName))"
                let standIn = try mock.standIn(for: child, label: label, engine: WorkflowEngine(catalog: catalog))
                workflow = current.replacingChild(at: path[...], with: standIn)
                mocks.append(mock)
                positions.append(index)
            } catch {
                collector.error(
                    DiagnosticCode.invalidValue, at: elementPointer,
                    "the mock's stand-in workflow is invalid: \(error.diagnostics.map(\.message).joined(separator: "; "))"
                )
            }
        }
        return mocks
    }
}

extension Workflow {
    /// The child workflow run by the `workflow` state at `path` (state names, outermost first).
    func child(at path: ArraySlice<String>) -> Workflow? {
        guard let name = path.first, case .workflow(let step)? = states[name]?.kind, let child = subworkflows[step.path]
        else { return nil }
        return path.count == 1 ? child : child.child(at: path.dropFirst())
    }
}
