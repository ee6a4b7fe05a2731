import MatterFlowJSON

/// Turns a parsed workflow document into a ``Workflow``, reporting every shape problem it finds (unknown and
/// missing keys, wrong types, malformed references and conditions) instead of stopping at the first.
struct WorkflowDecoder {
    let collector: DiagnosticCollector
    typealias Code = WorkflowDiagnosticCode

    init(document: JSONDocument) {
        collector = DiagnosticCollector(document: document)
        collector.synonyms = .workflowLanguage
    }

    /// A decoder reporting to another's collector (a catalog's guards read conditions and templates as workflows do).
    init(collector: DiagnosticCollector) {
        self.collector = collector
    }

    /// Decodes the document; nil when it is too broken to build a workflow from.
    func decode() -> Workflow.Definition? {
        collector.append(contentsOf: collector.document.duplicateKeyDiagnostics())
        guard let root = collector.object(collector.document.value, at: "", what: "a workflow file") else { return nil }
        if let misplaced = FileKind.misplaced(root.object, as: .workflow) {
            collector.error(Code.notAWorkflow, at: "", misplaced)
            return nil
        }

        if let version = root.int("version", required: true) {
            if version > Workflow.supportedVersion {
                collector.error(
                    DiagnosticCode.unsupportedVersion, at: root.pointer("version"),
                    "this file is written for workflow language version \(version), but this MatterFlow reads versions up to \(Workflow.supportedVersion); upgrade MatterFlow or rewrite the file for version \(Workflow.supportedVersion)")
                return nil
            }
            if version < 1 {
                collector.error(DiagnosticCode.invalidValue, at: root.pointer("version"), "\"version\" must be 1")
            }
        }
        let name = root.string("workflow", required: true)
        if let name { checkLevelName(name, at: root.pointer("workflow"), what: "the workflow's name") }
        let description = root.string("description")
        let start = root.string("start", required: true)
        let onCancel = root.string("onCancel")
        let inputs = root.object("inputs").map(decodeInputs) ?? []
        let contract = WorkflowContract.read(root)

        var states: [WorkflowState] = []
        if let statesReader = root.object("states", required: true) {
            if statesReader.object.isEmpty {
                collector.error(DiagnosticCode.invalidValue, at: statesReader.pointer, "a workflow needs at least one state")
            }
            // Every key names a state (the states object is never finished, so its keys need no allowing).
            for member in statesReader.object.members {
                if let state = decodeState(name: member.key, value: member.value, pointer: statesReader.pointer(member.key)) {
                    states.append(state)
                }
            }
        }
        // `$schema` names the file's JSON Schema for editors (docs/workflow.schema.json); the engine checks only that
        // it is a string.
        _ = root.string("$schema")
        root.finish()
        guard let name, let start else { return nil }
        return Workflow.Definition(
            name: name, version: Workflow.supportedVersion, description: description, inputs: inputs, start: start,
            onCancel: onCancel, states: states, file: collector.document.file, contract: contract)
    }

    /// `minimum` and `maximum` (numbers and integers), `maxBytes` (strings), and `enum` (a non-empty list of values of
    /// the input's type); a default must meet them.
    private func decodeConstraints(_ input: ObjectReader, into declaration: inout InputDeclaration) {
        let numeric = declaration.type == .integer || declaration.type == .number
        for key in ["minimum", "maximum"] where input.object[key] != nil {
            guard numeric else {
                input.allow(key)
                collector.error(
                    DiagnosticCode.invalidValue, at: input.pointer(key),
                    "\"\(key)\" applies to integer and number inputs; input \"\(declaration.name)\" is \(declaration.type.rawValue)")
                continue
            }
            let bound = input.number(key, in: NumberRange(-1e15...1e15))
            if key == "minimum" { declaration.minimum = bound } else { declaration.maximum = bound }
        }
        if input.object["maxBytes"] != nil {
            if declaration.type == .string {
                declaration.maxBytes = input.int("maxBytes", in: NumberLimits.argumentBytes)
            } else {
                input.allow("maxBytes")
                collector.error(
                    DiagnosticCode.invalidValue, at: input.pointer("maxBytes"),
                    "\"maxBytes\" applies to string inputs; input \"\(declaration.name)\" is \(declaration.type.rawValue)")
            }
        }
        var emptyRange = false
        if let minimum = declaration.minimum, let maximum = declaration.maximum, minimum > maximum {
            emptyRange = true
            collector.error(
                DiagnosticCode.invalidValue, at: input.pointer("minimum"),
                "input \"\(declaration.name)\" has minimum \(NumberRange.format(minimum)) above its maximum \(NumberRange.format(maximum)); no value could be given")
        }
        if let list = input.value("enum") {
            guard case .array(let values) = list, !values.isEmpty else {
                collector.error(
                    DiagnosticCode.wrongType, at: input.pointer("enum"),
                    "\"enum\" must be a non-empty list of the values input \"\(declaration.name)\" may take, found \(list.typeName)")
                return
            }
            for (index, value) in values.enumerated() where !declaration.type.admits(value) {
                collector.error(
                    DiagnosticCode.wrongType, at: JSONPointer.appending(index, to: input.pointer("enum")),
                    "each value of \"enum\" must be \(declaration.type.rawValue), as input \"\(declaration.name)\" is; found \(value.typeName)")
            }
            declaration.allowedValues = values
        }
        if !emptyRange, let value = declaration.defaultValue, !value.isNull, declaration.type.admits(value),
            let problem = declaration.constraintProblem(value)
        {
            collector.error(
                DiagnosticCode.invalidValue, at: input.pointer("default"),
                "the default of input \"\(declaration.name)\" is not \(problem.expected) (\(problem.problem)); fix it or drop it")
        }
    }

    private func decodeInputs(_ reader: ObjectReader) -> [InputDeclaration] {
        var inputs: [InputDeclaration] = []
        for member in reader.object.members {
            reader.allow(member.key)
            checkReadable(member.key, at: reader.pointer(member.key), what: "input")
            guard let input = collector.object(member.value, at: reader.pointer(member.key), what: "input \"\(member.key)\"")
            else { continue }
            let typeName = input.string("type", required: true)
            let type = typeName.flatMap(InputDeclaration.InputType.init(rawValue:))
            if let typeName, type == nil {
                collector.error(
                    DiagnosticCode.invalidValue, at: input.pointer("type"),
                    "unknown input type \"\(typeName)\"\(SpellingSuggestion.hint(for: typeName, among: InputDeclaration.InputType.allCases.map(\.rawValue), synonyms: collector.synonyms)); use one of \(InputDeclaration.InputType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let required = input.bool("required") ?? false
            let defaultValue = input.value("default")
            if let defaultValue, let type, !defaultValue.isNull, !type.admits(defaultValue) {
                collector.error(
                    DiagnosticCode.wrongType, at: input.pointer("default"),
                    "the default of input \"\(member.key)\" must be \(type.rawValue), found \(defaultValue.typeName)")
            } else if let defaultValue, let problem = type?.contentProblem(of: defaultValue) {
                // Checked at load too, where the file and the default's place can be named.
                collector.error(
                    DiagnosticCode.invalidValue, at: input.pointer("default"),
                    "the default of input \"\(member.key)\" is not \(problem.expected) (\(problem.problem)); fix it or drop it")
            }
            if required, defaultValue != nil {
                collector.warning(
                    DiagnosticCode.invalidValue, at: input.pointer("default"),
                    "input \"\(member.key)\" is required, so its default is never used; drop one of them")
            }
            // An onboarding payload holds the setup passcode, a dataset the Network Key: secret whatever the file says.
            let secret = (input.bool("secret") ?? false) || type == .onboardingPayload || type == .operationalDataset
            if secret, let defaultValue {
                // Refused here, where it is written: at run time the default would be blamed on the run's inputs.
                for pointer in Workflow.shortStrings(in: defaultValue, at: { input.pointer("default") }) {
                    collector.error(
                        DiagnosticCode.invalidValue, at: pointer,
                        "the default of secret input \"\(member.key)\" has 1-\(SecretValues.minimumLength - 1) characters\(pointer == input.pointer("default") ? "" : " at \(pointer)"); "
                            + "a secret that short cannot be told apart from other text, so it could not be kept out of traces, journals "
                            + "and messages: use at least \(SecretValues.minimumLength) characters, or drop the default")
                }
            }
            if secret, type == .boolean {
                collector.error(
                    DiagnosticCode.invalidValue, at: input.pointer("secret"),
                    "a boolean input cannot be kept secret: true and false appear in every report, so redaction could not hide "
                        + "which one \"\(member.key)\" holds; drop \"secret\", or make the input a string")
            }
            let description = input.string("description")
            var declaration = InputDeclaration(
                name: member.key, type: type ?? .any, required: required, defaultValue: defaultValue, secret: secret,
                description: description)
            decodeConstraints(input, into: &declaration)
            input.finish()
            inputs.append(declaration)
        }
        return inputs
    }

    private func decodeState(name: String, value: JSONValue, pointer: String) -> WorkflowState? {
        checkLevelName(name, at: pointer, what: "state name")
        guard let reader = collector.object(value, at: pointer, what: "state \"\(name)\"") else { return nil }
        let typeName = reader.string("type", required: true)
        let description = reader.string("description")
        let kind: WorkflowState.Kind?
        switch typeName {
        case "action": kind = decodeAction(reader).map(WorkflowState.Kind.action)
        case "workflow": kind = decodeSubworkflow(reader).map(WorkflowState.Kind.workflow)
        case "map": kind = decodeMap(reader).map(WorkflowState.Kind.workflow)
        case "repeat": kind = decodeRepeat(reader).map(WorkflowState.Kind.workflow)
        case "choice": kind = decodeChoice(reader).map(WorkflowState.Kind.choice)
        case "assign": kind = decodeAssign(reader).map(WorkflowState.Kind.assign)
        case "wait": kind = decodeWait(reader).map(WorkflowState.Kind.wait)
        case "ask": kind = decodeAsk(reader, stateName: name).map(WorkflowState.Kind.ask)
        case "delay": kind = decodeDelay(reader).map(WorkflowState.Kind.delay)
        case "succeed": kind = .succeed(SucceedState(output: reader.value("output").map { template($0, reader.pointer("output")) }))
        case "fail": kind = decodeFail(reader).map(WorkflowState.Kind.fail)
        case nil:
            kind = nil
        case let other?:
            let types = WorkflowState.Kind.typeNames
            collector.error(
                Code.unknownStateType, at: reader.pointer("type"),
                "unknown state type \"\(other)\"\(SpellingSuggestion.hint(for: other, among: types, synonyms: collector.synonyms)) (types: \(types.joined(separator: ", ")))")
            return Self.placeholder(name)
        }
        reader.finish()
        // A state too broken to decode still exists, so transitions to it are not reported as undefined too.
        guard let kind else { return Self.placeholder(name) }
        return WorkflowState(name: name, kind: kind, description: description, pointer: pointer)
    }

    /// Stands in for a state with errors of its own (the workflow is rejected anyway).
    private static func placeholder(_ name: String) -> WorkflowState {
        var state = WorkflowState(name: name, kind: .succeed(SucceedState(output: nil)))
        state.isPlaceholder = true
        return state
    }

    /// Reads a template; `pointer` is only spelled out for a value that may hold a reference.
    func template(_ value: JSONValue, _ pointer: @autoclosure () -> String) -> Template {
        switch value {
        case .null, .bool, .int, .double: return .literal(value)
        case .string(let text) where !Template.mayHoldReference(text): return .literal(value)
        case .string, .array, .object: break
        }
        var errors: [Template.ParseError] = []
        let result = Template.parse(value, pointer: pointer(), errors: &errors)
        for error in errors { collector.error(Code.invalidReference, at: error.pointer, error.message) }
        return result
    }

    /// Reports `name`, which an input declares or a state binds (`what`: "input", "variable"), when no `${...}`
    /// could read it.
    /// A state's or workflow's name is one level of the `/`-joined names that traces, journals, checkpoints,
    /// graphs and hub idempotency keys use for a place in a run (`commission/rememberFailure`): it cannot be
    /// empty or hold `/`, or one such name could mean two places.
    func checkLevelName(_ name: String, at pointer: @autoclosure () -> String, what: String) {
        if name.isEmpty {
            collector.error(DiagnosticCode.invalidValue, at: pointer(), "\(what) is empty; give it one")
        } else if name.unicodeScalars.contains(where: Self.isControl) {
            collector.error(
                DiagnosticCode.invalidValue, at: pointer(),
                "\(what) holds a control character (a NUL, a tab, a newline, ...), which traces, graphs and terminals cannot show as written; rename it")
        } else if name.utf8.contains(UInt8(ascii: "/")) {
            let suggestion = String(name.map { $0 == "/" ? "_" : $0 })
            collector.error(
                DiagnosticCode.invalidValue, at: pointer(),
                "\(what) \"\(name)\" holds '/', which separates the levels of a place in a run (as in commission/rememberFailure, in traces, journals and graphs), so it could name two places; rename it, e.g. \"\(suggestion)\"")
        }
    }

    /// Whether a character is a control character (general category Cc: U+0000...U+001F, U+007F...U+009F), told
    /// by its value, which costs less than a property lookup for every character of every name.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    func checkReadable(_ name: String, at pointer: @autoclosure () -> String, what: String) {
        guard !Reference.isName(name) else { return }
        let suggestion = String(name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
        collector.error(
            DiagnosticCode.invalidValue, at: pointer(),
            "\(what) \"\(name)\" could never be read: in ${...} a name consists of letters, digits, `_` and `-`"
                + (name.isEmpty ? "; give it one" : " (\"\(name)\" would be read as a path); rename it, e.g. \"\(suggestion)\""))
    }

    func templates(_ reader: ObjectReader?) -> [(name: String, value: Template)] {
        guard let reader else { return [] }
        return reader.object.members.map { member in
            reader.allow(member.key)
            return (member.key, template(member.value, reader.pointer(member.key)))
        }
    }

    /// Reads a step's guards, retriers, result and routes; a map state's step has neither guards nor retriers (its
    /// body's states have their own), so for it those keys stay unknown.
    func decodeStep(_ reader: ObjectReader, guardsAndRetry: Bool = true) -> StepBehavior? {
        // Any name is a guard here: a built-in one, or a custom one the validator looks up in the catalog.
        let guards = (guardsAndRetry ? reader.stringArray("guards") ?? [] : []).map(Guard.init(named:))
        let result = reader.string("result")
        if let result { checkReadable(result, at: reader.pointer("result"), what: "variable") }
        let retry = (guardsAndRetry ? reader.array("retry") ?? [] : []).enumerated().compactMap { index, value in
            decodeRetrier(value, JSONPointer.appending(index, to: reader.pointer("retry")))
        }
        let onError = (reader.array("onError") ?? []).enumerated().compactMap { index, value in
            decodeRoute(value, JSONPointer.appending(index, to: reader.pointer("onError")))
        }
        guard let next = reader.string("next", required: true) else { return nil }
        return StepBehavior(guards: guards, result: result, retry: retry, next: next, onError: onError)
    }

    private func errorNames(_ reader: ObjectReader) -> [String]? {
        guard let names = reader.stringArray("errors", required: true) else { return nil }
        if names.isEmpty {
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer("errors"),
                "\"errors\" needs at least one error code or cause, or \"*\" for any error")
        }
        return names
    }

    private func decodeRetrier(_ value: JSONValue, _ pointer: String) -> Retrier? {
        guard let reader = collector.object(value, at: pointer, what: "a retry entry") else { return nil }
        let errors = errorNames(reader)
        var retrier = Retrier(errors: errors ?? [])
        if let maxRetries = reader.int("maxRetries", in: NumberLimits.retries) { retrier.maxRetries = maxRetries }
        if let interval = reader.number("intervalSeconds", in: NumberLimits.duration) { retrier.intervalSeconds = interval }
        if let rate = reader.number("backoffRate", in: NumberLimits.backoffRate) { retrier.backoffRate = rate }
        if let cap = reader.number("maxDelaySeconds", in: NumberLimits.duration) { retrier.maxDelaySeconds = cap }
        if let jitter = reader.string("jitter") {
            switch jitter {
            case "full": retrier.jitter = true
            case "none": retrier.jitter = false
            default:
                collector.error(DiagnosticCode.invalidValue, at: reader.pointer("jitter"), "\"jitter\" must be \"none\" or \"full\"")
            }
        }
        reader.finish()
        return errors == nil ? nil : retrier
    }

    func decodeRoute(_ value: JSONValue, _ pointer: String) -> ErrorRoute? {
        guard let reader = collector.object(value, at: pointer, what: "an error route") else { return nil }
        let errors = errorNames(reader)
        let next = reader.string("next", required: true)
        reader.finish()
        guard let errors, let next else { return nil }
        return ErrorRoute(errors: errors, next: next)
    }

    private func decodeAction(_ reader: ObjectReader) -> ActionState? {
        let operation = reader.string("operation", required: true)
        let arguments = templates(reader.object("arguments"))
        let timeout = reader.number("timeoutSeconds", in: NumberLimits.duration)
        let repeatSafety = RepeatSafety.read(reader)
        let step = decodeStep(reader)
        guard let operation, let step else { return nil }
        return ActionState(
            operation: operation, arguments: arguments, timeoutSeconds: timeout, step: step, repeatSafety: repeatSafety)
    }

    private func decodeSubworkflow(_ reader: ObjectReader) -> SubworkflowState? {
        let path = reader.string("path", required: true)
        let inputs = templates(reader.object("inputs"))
        let step = decodeStep(reader)
        guard let path, let step else { return nil }
        return SubworkflowState(path: path, inputs: inputs, step: step)
    }

    private func decodeChoice(_ reader: ObjectReader) -> ChoiceState? {
        var branches: [ChoiceState.Branch] = []
        for (index, value) in (reader.array("choices", required: true) ?? []).enumerated() {
            let pointer = JSONPointer.appending(index, to: reader.pointer("choices"))
            guard let branch = collector.object(value, at: pointer, what: "a choice") else { continue }
            let condition = branch.value("if", required: true).flatMap { decodeCondition($0, branch.pointer("if")) }
            let next = branch.string("next", required: true)
            branch.finish()
            if let condition, let next { branches.append(ChoiceState.Branch(condition: condition, next: next)) }
        }
        guard let defaultNext = reader.string("default", required: true) else { return nil }
        return ChoiceState(branches: branches, defaultNext: defaultNext)
    }

    private func decodeAssign(_ reader: ObjectReader) -> AssignState? {
        let set = reader.object("set")
        let assignments = templates(set)
        if let set { for assignment in assignments { checkReadable(assignment.name, at: set.pointer(assignment.name), what: "variable") } }
        let warning = reader.value("warning").map { template($0, reader.pointer("warning")) }
        let show = reader.value("show").map { template($0, reader.pointer("show")) }
        if assignments.isEmpty, warning == nil, show == nil {
            collector.error(DiagnosticCode.missingKey, at: reader.pointer, "an assign state needs \"set\", \"warning\", \"show\" or several of them")
        }
        guard let next = reader.string("next", required: true) else { return nil }
        return AssignState(assignments: assignments, warning: warning, show: show, next: next)
    }

    private func decodeWait(_ reader: ObjectReader) -> WaitState? {
        let event = reader.string("event", required: true)
        let match = templates(reader.object("match"))
        // A timeout out of range is reported; the state is kept with the longest one, so that nothing is reported
        // about it missing.
        let timeout = reader.number("timeoutSeconds", in: NumberLimits.duration, required: true)
            ?? (reader.has("timeoutSeconds") ? NumberLimits.longestSeconds : nil)
        let result = reader.string("result")
        if let result { checkReadable(result, at: reader.pointer("result"), what: "variable") }
        var branches: [(value: String, next: String)] = []
        if let on = reader.object("on", required: true) {
            for member in on.object.members {
                on.allow(member.key)
                guard let next = member.value.stringValue else {
                    collector.error(
                        DiagnosticCode.wrongType, at: on.pointer(member.key),
                        "the state for \"\(member.key)\" must be a state name (string), found \(member.value.typeName)")
                    continue
                }
                branches.append((member.key, next))
            }
        }
        let otherwise = reader.string("otherwise")
        let onTimeout = reader.string("onTimeout", required: true)
        guard let event, let timeout, let onTimeout else { return nil }
        return WaitState(
            event: event, match: match, timeoutSeconds: timeout, result: result, branches: branches, otherwise: otherwise,
            onTimeout: onTimeout)
    }

    private func decodeFail(_ reader: ObjectReader) -> FailState? {
        if reader.has("error") {
            let mixed = ["code", "cause", "message"].filter { reader.has($0) }
            if !mixed.isEmpty {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("error"),
                    "a fail state either re-raises \"error\" or raises a new \"code\"/\"cause\"/\"message\", not both")
            }
            guard let value = reader.value("error") else { return nil }
            return FailState(raise: .rethrow(template(value, reader.pointer("error"))))
        }
        let code = reader.value("code", required: true, what: "a canonical error code, or \"error\": \"${error}\" to re-raise")
        let cause = reader.value("cause")
        let message = reader.value("message", required: true)
        guard let code, let message else { return nil }
        let codeTemplate = template(code, reader.pointer("code"))
        if case .literal(let literal) = codeTemplate {
            if literal.stringValue.flatMap(ErrorCode.init(rawValue:)) == nil {
                collector.error(
                    WorkflowDiagnosticCode.invalidErrorCode, at: reader.pointer("code"),
                    "\(JSONWriter.compact(literal)) is not a canonical error code\(ErrorValueProblem.codeHint(for: literal.stringValue ?? "")); use one of \(ErrorCode.all.map(\.rawValue).joined(separator: ", "))")
            }
        }
        return FailState(
            raise: .new(
                code: codeTemplate, cause: cause.map { template($0, reader.pointer("cause")) },
                message: template(message, reader.pointer("message"))))
    }

    func decodeCondition(_ value: JSONValue, _ pointer: String) -> Condition? {
        guard case .object(let object) = value, object.count == 1, let member = object.members.first else {
            collector.error(
                Code.invalidCondition, at: pointer,
                "a condition is an object with exactly one operator (\(Condition.operatorNames.joined(separator: ", ")))")
            return nil
        }
        let operand = JSONPointer.appending(member.key, to: pointer)
        func pair() -> (Template, Template)? {
            guard let elements = member.value.arrayValue, elements.count == 2 else {
                collector.error(Code.invalidCondition, at: operand, "\"\(member.key)\" takes an array of two values")
                return nil
            }
            return (template(elements[0], operand + "/0"), template(elements[1], operand + "/1"))
        }
        func list() -> [Condition]? {
            guard let elements = member.value.arrayValue, !elements.isEmpty else {
                collector.error(Code.invalidCondition, at: operand, "\"\(member.key)\" takes a non-empty array of conditions")
                return nil
            }
            let conditions = elements.enumerated().compactMap { decodeCondition($1, JSONPointer.appending($0, to: operand)) }
            return conditions.count == elements.count ? conditions : nil
        }
        if let comparison = Condition.Comparison(rawValue: member.key) {
            return pair().map { .compare(comparison, $0.0, $0.1) }
        }
        switch member.key {
        case "exists": return .exists(template(member.value, operand))
        case "isEmpty": return .isEmpty(template(member.value, operand))
        case "contains": return pair().map { .contains($0.0, $0.1) }
        case "and": return list().map(Condition.and)
        case "or": return list().map(Condition.or)
        case "not": return decodeCondition(member.value, operand).map(Condition.not)
        default:
            collector.error(
                Code.invalidCondition, at: operand, atKey: true,
                "unknown condition operator \"\(member.key)\"\(SpellingSuggestion.hint(for: member.key, among: Condition.operatorNames, synonyms: collector.synonyms))")
            return nil
        }
    }
}
