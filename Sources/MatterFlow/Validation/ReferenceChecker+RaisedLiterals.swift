import MatterFlowJSON

extension ReferenceChecker {
    /// Checks the values written as literals that a fail state re-raises (`"error": "${vars.failure}"` after an
    /// assign state's `"set": {"failure": {"code": "timeout", ...}}`): each must be an error value
    /// (``ErrorValueProblem``), or the run fails there with `internal` / `malformedError` instead of the error meant.
    /// A finding (`invalidErrorCode`) stands where the literal was written, at the member at fault. Only the `set`s
    /// that can be the variable's last binding before the fail state count; members computed at run time (`${...}`)
    /// are left to the run, and so is a `null`, often a placeholder set before the real error.
    func checkRaisedLiterals() {
        var incoming = [[Int]](repeating: [], count: model.count)
        for (index, edge) in model.edges.enumerated() { if let to = edge.to { incoming[to].append(index) } }
        for (number, state) in model.states.enumerated() {
            guard case .fail(let fail) = state.kind, case .rethrow(.reference(let reference)) = fail.raise,
                reference.root == .vars, let head = reference.head
            else { continue }
            for setter in lastSetters(of: head, before: number, incoming: incoming) {
                let assignState = model.states[setter]
                guard case .assign(let assign) = assignState.kind,
                    let written = assign.assignments.first(where: { $0.name == head })?.value,
                    let (part, tokens) = Self.part(of: written, along: reference.path.dropFirst()),
                    let value = Self.judged(part), !value.isNull, let problem = ErrorValueProblem.of(value)
                else { continue }
                // At the member at fault when it is written, else at the value.
                let member = problem.member.flatMap { value.objectValue?[$0] == nil ? nil : $0 }
                let pointer = (tokens + (member.map { [$0] } ?? [])).reduce(
                    JSONPointer.appending(head, to: assignState.pointer + "/set")) { JSONPointer.appending($1, to: $0) }
                collector.error(
                    Code.invalidErrorCode, at: pointer,
                    "fail state \"\(state.name)\" raises this value (\"error\": \"${\(reference)}\"), but it is no error value: \(problem.description); the run would fail there with internal/malformedError instead")
            }
        }
    }

    /// The states whose edges bind `variable` last on some path into state `target`: searched backwards from it,
    /// stopping at each edge that may bind the variable (a result, a `set`, an event's payload).
    private func lastSetters(of variable: String, before target: Int, incoming: [[Int]]) -> [Int] {
        var seen = [Bool](repeating: false, count: model.count)
        var setters = [Bool](repeating: false, count: model.count)
        seen[target] = true
        var pending = [target]
        while let current = pending.popLast() {
            for index in incoming[current] {
                let edge = model.edges[index]
                var binds = false
                Self.bindings(
                    of: model.states[edge.from], along: edge.kind, mayOnly: true,
                    selfExhausting: selfExhausting.contains(edge.from)
                ) { binds = binds || $0 == variable }
                if binds {
                    setters[edge.from] = true
                } else if !seen[edge.from] {
                    seen[edge.from] = true
                    pending.append(edge.from)
                }
            }
        }
        return setters.indices.filter { setters[$0] }
    }

    /// The part of a written value a reference's path past its head reads, with the pointer tokens leading to it;
    /// nil when the path leads into something computed at run time or that the value lacks.
    private static func part(
        of template: Template, along path: ArraySlice<Reference.Segment>
    ) -> (Template, [String])? {
        var current = template
        var tokens: [String] = []
        for segment in path {
            switch (segment, current) {
            case (.member(let name), .object(let members)):
                guard let member = members.first(where: { $0.key == name }) else { return nil }
                current = member.value
                tokens.append(name)
            case (.member(let name), .literal(let value)):
                guard let member = value.objectValue?[name] else { return nil }
                current = .literal(member)
                tokens.append(name)
            case (.index(let index), .array(let elements)):
                guard elements.indices.contains(index) else { return nil }
                current = elements[index]
                tokens.append(String(index))
            case (.index(let index), .literal(let value)):
                guard let elements = value.arrayValue, elements.indices.contains(index) else { return nil }
                current = .literal(elements[index])
                tokens.append(String(index))
            case (.member, _), (.index, _):
                return nil
            }
        }
        return (current, tokens)
    }

    /// A written value as the error-value check judges it: a member computed at run time stands as one that passes
    /// (a canonical code, a string), so only what is written is judged; a text with references is a string. Nil when
    /// the whole value is a reference.
    private static func judged(_ template: Template) -> JSONValue? {
        switch template {
        case .literal(let value): return value
        case .reference: return nil
        case .interpolation: return .string("")
        case .array: return .array([])
        case .object(let members):
            var object = JSONObject()
            for (key, value) in members {
                object[key] = value.literalValue ?? (key == "code" ? .string(ErrorCode.unknown.rawValue) : .string(""))
            }
            return .object(object)
        }
    }
}
