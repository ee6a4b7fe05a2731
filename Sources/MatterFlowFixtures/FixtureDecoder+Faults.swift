import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator

/// Decoding of `faults` (scripted hub misbehaviour) and `events` (what happens during the run).
extension FixtureDecoder {
    /// The rules of `faults`, for the standard operations and for custom ones, each with its place in the array.
    func decodeFaults(_ elements: [JSONValue], at pointer: String)
        -> (rules: [FaultRule], positions: [Int], custom: [CustomOperationRule], customPositions: [Int])
    {
        var rules: [FaultRule] = []
        var positions: [Int] = []
        var custom: [CustomOperationRule] = []
        var customPositions: [Int] = []
        for (index, element) in elements.enumerated() {
            let elementPointer = JSONPointer.appending(index, to: pointer)
            guard let reader = collector.object(element, at: elementPointer, what: "a fault") else { continue }
            _ = reader.string("description")
            let name = reader.nonEmptyString("operation", required: true)
            if let name, let descriptor = customOperation(name) {
                if let rule = decodeCustomRule(reader, descriptor, at: elementPointer) {
                    custom.append(rule)
                    customPositions.append(index)
                }
                continue
            }
            let operation = name.flatMap { self.operation($0, at: reader.pointer("operation")) }
            let attempts = decodeAttempts(reader)
            let onlyElement = reader.nonEmptyString("element").flatMap { mapElement($0, at: reader.pointer("element")) }
            // An operation no catalog given defines may be a custom one, whose faults take other members ("result"):
            // they are not judged against the standard operations' (its unknownOperation says what to do).
            if name != nil, operation == nil { continue }
            let effects = ["fail", "hang", "delaySeconds", "failAfterActing"].filter { reader.has($0) }
            var fault: FaultRule.Fault?
            if effects.count != 1 {
                collector.error(
                    effects.isEmpty ? DiagnosticCode.missingKey : DiagnosticCode.invalidValue, at: elementPointer,
                    effects.isEmpty
                        ? "a fault needs one of \"fail\" (an error), \"hang\" (true), \"delaySeconds\" (a number) or \"failAfterActing\" (an error)"
                        : "a fault has one effect; found \(effects.map { "\"\($0)\"" }.joined(separator: " and ")) (write two faults to delay then fail)"
                )
            } else if let operation {
                fault = decodeEffect(effects[0], reader, operation: operation)
            }
            reader.finish()
            if let operation, let attempts, let fault {
                rules.append(FaultRule(operation, attempts: attempts, element: onlyElement, fault))
                positions.append(index)
            }
        }
        return (rules, positions, custom, customPositions)
    }

    /// An element of a map state that runs elements at once, as the hub sees it (`readDevices[1]`: the map state's
    /// qualified name, then an index per map level and, from a repeat state's second iteration, the iteration:
    /// `poll/readAll#2[0]`), ending with the element's index; nil (reported) when the text is not one, so that a
    /// fault meant for an element never silently applies to none.
    func mapElement(_ text: String, at pointer: String) -> String? {
        let open = text.firstIndex { $0 == "[" || $0 == "#" } ?? text.endIndex
        let name = String(text[..<open])
        var rest = text[open...]
        var tags: [ElementNameTag] = []
        // Numbers as the hub sees them: decimal digits, no sign, no leading zero; an iteration is 2 or more.
        func number(_ digits: Substring) -> Int? {
            guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), digits == "0" || digits.first != "0" else { return nil }
            return Int(digits)
        }
        while let first = rest.first {
            if first == "[", let close = rest.firstIndex(of: "]"), let index = number(rest[rest.index(after: rest.startIndex)..<close]) {
                tags.append(.index(index))
                rest = rest[rest.index(after: close)...]
            } else if first == "#", case let digits = rest.dropFirst().prefix(while: { $0.isASCII && $0.isNumber }),
                let iteration = number(digits), iteration >= 2
            {
                tags.append(.iteration(iteration))
                rest = rest[digits.endIndex...]
            } else {
                break
            }
        }
        guard !name.isEmpty, case .index? = tags.last, rest.isEmpty else {
            collector.error(
                DiagnosticCode.invalidValue, at: pointer,
                "\"\(text)\" names no element; write the map state's qualified name and the element's index, as the hub sees it (\"readDevices[1]\"; \"poll/readAll#2[0]\" in a repeat's second iteration)")
            return nil
        }
        guard let workflow else { return text }
        guard workflow.isConcurrentMapState(name) else {
            collector.error(
                FixtureDiagnosticCode.unknownState, at: pointer,
                workflow.hasQualifiedState(name)
                    ? "\"\(name)\" is not a map state that runs elements at once (concurrency above 1): only such a state's elements are named in calls"
                    : "workflow \(workflow.name) has no map state \"\(name)\"\(SpellingSuggestion.hint(for: name, among: workflow.qualifiedStateCandidates(for: name))); name it qualified by sub-workflow states, as in visitedStates")
            return nil
        }
        if let problem = workflow.elementTagProblem(name, tags: tags) {
            collector.error(
                DiagnosticCode.invalidValue, at: pointer,
                "no run names an element \"\(text)\", so the fault would hit nothing: \(problem)")
            return nil
        }
        return text
    }

    /// The descriptor of an operation the fixture's catalog declares beyond the standard one, if `name` is one.
    func customOperation(_ name: String) -> OperationDescriptor? {
        guard OperationCatalog.standard[name] == nil else { return nil }
        return catalog[name]
    }

    /// A rule for a custom operation: `fail`, `hang`, `delaySeconds`, or `result` (an object of the declared shape).
    private func decodeCustomRule(_ reader: ObjectReader, _ operation: OperationDescriptor, at pointer: String)
        -> CustomOperationRule?
    {
        let attempts = decodeAttempts(reader)
        let effects = ["result", "fail", "hang", "delaySeconds"].filter { reader.has($0) }
        guard effects.count == 1 else {
            collector.error(
                effects.isEmpty ? DiagnosticCode.missingKey : DiagnosticCode.invalidValue, at: pointer,
                effects.isEmpty
                    ? "a rule for custom operation \(operation.name) needs one of \"result\" (an object), \"fail\" (an error), \"hang\" (true) or \"delaySeconds\" (a number)"
                    : "a rule has one effect; found \(effects.map { "\"\($0)\"" }.joined(separator: " and ")) (write two rules to delay then answer)")
            reader.finish()
            return nil
        }
        var effect: CustomOperationRule.Effect?
        switch effects[0] {
        case "result":
            let value = reader.value("result") ?? .null
            if case .object = value, operation.result.admits(value) {
                effect = .result(value)
            } else {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("result"),
                    "\"result\" must be an object of the shape \(operation.name) declares (\(operation.result))")
            }
        case "fail":
            if let error = reader.object("fail").flatMap({ decodeError($0, operation: operation) }) {
                let message = reader.object["fail"]?["message"]?.stringValue
                    ?? "\(operation.name) failed: \(error.cause.rawValue) (injected by the fixture)"
                effect = .fail(FlowError(code: error.code, cause: error.cause, message: message))
            }
        case "hang":
            if reader.bool("hang") == true {
                effect = .hang
            } else {
                collector.error(DiagnosticCode.invalidValue, at: reader.pointer("hang"), "\"hang\" can only be true; remove the rule instead")
            }
        default:
            if let seconds = reader.number("delaySeconds", in: NumberLimits.duration) {
                effect = .delay(FixtureFormat.duration(seconds: seconds))
            }
        }
        reader.finish()
        guard let attempts, let effect else { return nil }
        return CustomOperationRule(operation.name, attempts: attempts, effect)
    }

    /// `"attempts"`: `2`, `"2"`, `"1-2"`, `"3-"` (3 and later); absent: every attempt.
    private func decodeAttempts(_ reader: ObjectReader) -> ClosedRange<Int>? {
        let pointer = reader.pointer("attempts")
        guard let value = reader.value("attempts") else { return 1...Int.max }
        func invalid() -> ClosedRange<Int>? {
            collector.error(
                DiagnosticCode.invalidValue, at: pointer,
                "\"attempts\" must be an attempt number from 1 (2 or \"2\"), a range (\"1-2\") or a range without end (\"3-\")"
            )
            return nil
        }
        if value.doubleValue != nil {
            guard let number = collector.integer(value, at: pointer, in: FixtureFormat.attemptRange, what: "\"attempts\"")
            else { return nil }
            return number...number
        }
        guard let text = value.stringValue else {
            collector.error(
                DiagnosticCode.wrongType, at: pointer,
                "\"attempts\" must be a number or a string like \"1-2\", found \(value.typeName)")
            return nil
        }
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false).map {
            $0.trimmingCharacters(in: .whitespaces)
        }
        guard let first = Int(parts[0]), first >= 1 else { return invalid() }
        let last = parts.count == 1 ? first : parts[1].isEmpty ? nil : Int(parts[1])
        if parts.count == 2, let last, last < first {
            collector.error(
                DiagnosticCode.invalidValue, at: pointer, "\"attempts\": \"\(text)\" runs backwards; write \"\(last)-\(first)\"")
            return nil
        }
        guard parts.count == 1 || parts[1].isEmpty || last != nil else { return invalid() }
        for bound in [first, last].compactMap({ $0 }) {
            if let problem = FixtureFormat.attemptRange.problem(with: bound) {
                collector.error(DiagnosticCode.numberOutOfRange, at: pointer, "attempt \(problem)")
                return nil
            }
        }
        return first...(last ?? Int.max)
    }

    private func decodeEffect(_ effect: String, _ reader: ObjectReader, operation: SimulatedOperation) -> FaultRule
        .Fault?
    {
        switch effect {
        case "hang":
            guard let hang = reader.bool("hang") else { return nil }
            guard hang else {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("hang"),
                    "\"hang\" can only be true; remove the fault instead")
                return nil
            }
            return .hang
        case "delaySeconds":
            guard let seconds = reader.number("delaySeconds", in: NumberLimits.duration) else { return nil }
            return .delay(FixtureFormat.duration(seconds: seconds))
        case "failAfterActing":
            guard let error = reader.object("failAfterActing").flatMap({ decodeError($0, operation: operation.descriptor) }) else {
                return nil
            }
            return .failAfterActing(error)
        default:
            guard let error = reader.object("fail").flatMap({ decodeError($0, operation: operation.descriptor) }) else {
                return nil
            }
            return .fail(error)
        }
    }

    /// `{"code", "cause", "message"}`: a known cause (built in, or declared by the catalog) gives its code; a code alone gets cause `injectedFault`. With
    /// an operation, a cause it does not declare draws a warning.
    func decodeError(_ reader: ObjectReader, operation: OperationDescriptor?) -> FlowError? {
        let codeName = reader.string("code")
        let causeName = reader.nonEmptyString("cause")
        let message = reader.string("message")
        reader.finish()
        var code: ErrorCode?
        if let codeName {
            code = canonicalCode(codeName, at: reader.pointer("code"))
            if code == nil { return nil }
        }
        let cause = causeName.map(ErrorCause.init(rawValue:))
        let causeCode = cause.flatMap { catalog.code(ofCause: $0.rawValue) }
        if let known = causeCode, let cause, let code, known != code {
            collector.warning(
                WorkflowDiagnosticCode.causeCodeMismatch, at: reader.pointer("cause"),
                "cause \"\(cause.rawValue)\" belongs to code \(known.rawValue), not \(code.rawValue); routes by code and by cause would disagree"
            )
        }
        if let cause, let descriptor = operation, cause != .injectedFault, !descriptor.possibleCauses.contains(cause) {
            collector.warning(
                FixtureDiagnosticCode.undeclaredCause, at: reader.pointer("cause"),
                "\(descriptor.name) does not declare cause \"\(cause.rawValue)\" (it may raise: \(descriptor.possibleCauses.map(\.rawValue).joined(separator: ", "))); a real hub would not raise it there"
            )
        }
        guard let resolvedCode = code ?? causeCode else {
            collector.error(
                DiagnosticCode.missingKey, at: reader.pointer,
                causeName == nil
                    ? "an injected error needs \"code\", \"cause\" or both"
                    : "cause \"\(causeName ?? "")\" is not a known cause\(SpellingSuggestion.hint(for: causeName ?? "", among: catalog.causeNames)); "
                        + "a cause of your own needs \"code\" too")
            return nil
        }
        let resolvedCause = cause ?? .injectedFault
        return FlowError(
            code: resolvedCode, cause: resolvedCause,
            message: message
                ?? "\(operation?.name ?? "the sub-workflow") failed: \(resolvedCause.rawValue) (injected by the fixture)"
        )
    }

    /// A canonical error code, or nil (reported).
    func canonicalCode(_ name: String, at pointer: String) -> ErrorCode? {
        if let code = ErrorCode(rawValue: name) { return code }
        let names = ErrorCode.all.map(\.rawValue)
        let hint = SpellingSuggestion.hint(for: name, among: names)
        collector.error(
            FixtureDiagnosticCode.invalidErrorCode, at: pointer,
            "\"\(name)\" is not a canonical error code\(hint)"
                + (hint.isEmpty ? "; use one of \(names.joined(separator: ", "))" : ""))
        return nil
    }

    // MARK: - Events

    func decodeEvents(_ elements: [JSONValue], at pointer: String) -> [FixtureEvent] {
        var events: [FixtureEvent] = []
        for (index, element) in elements.enumerated() {
            let elementPointer = JSONPointer.appending(index, to: pointer)
            guard let reader = collector.object(element, at: elementPointer, what: "an event") else { continue }
            _ = reader.string("description")
            let trigger = decodeTrigger(reader)
            let action = reader.nonEmptyString("action", required: true).flatMap {
                FixtureActionVocabulary.decode($0, reader, decoder: self)
            }
            reader.finish()
            if let trigger, let action {
                events.append(FixtureEvent(trigger: trigger, action: action, pointer: elementPointer))
            }
        }
        return events
    }

    private func decodeTrigger(_ reader: ObjectReader) -> FixtureEvent.Trigger? {
        let given = ["at", "after", "entering"].filter { reader.has($0) }
        let attempt: Int?
        if case .string(let text)? = reader.object["attempt"] {
            // Written as a fault's "attempts" may be: a call's number in a string is that number.
            _ = reader.value("attempt")
            if let number = Int(text.trimmingCharacters(in: .whitespaces)), FixtureFormat.attemptRange.contains(number) {
                attempt = number
            } else {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("attempt"),
                    "\"attempt\" must be one call's number from 1 (2 or \"2\"); an event happens once: a range of calls is for a fault's \"attempts\"")
                attempt = nil
            }
        } else {
            attempt = reader.int("attempt", in: FixtureFormat.attemptRange)
        }
        if attempt != nil, given != ["after"] {
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer("attempt"), "\"attempt\" only goes with \"after\"")
        }
        guard given.count == 1 else {
            collector.error(
                given.isEmpty ? DiagnosticCode.missingKey : DiagnosticCode.invalidValue, at: reader.pointer,
                given.isEmpty
                    ? "an event needs one trigger: \"at\" (seconds), \"after\" (an operation) or \"entering\" (a state)"
                    : "an event has one trigger; found \(given.map { "\"\($0)\"" }.joined(separator: " and "))")
            return nil
        }
        switch given[0] {
        case "at":
            guard let seconds = reader.number("at") else { return nil }
            guard seconds > 0 else {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("at"),
                    "\"at\" must be a positive number of seconds; to start in a condition, describe it in the home")
                return nil
            }
            if let problem = NumberLimits.duration.problem(with: seconds) {
                collector.error(DiagnosticCode.numberOutOfRange, at: reader.pointer("at"), problem)
                return nil
            }
            return .at(FixtureFormat.duration(seconds: seconds))
        case "after":
            guard let name = reader.nonEmptyString("after") else { return nil }
            if customOperation(name) != nil { return .afterCustom(name, attempt: attempt ?? 1) }
            guard let operation = operation(name, at: reader.pointer("after")) else { return nil }
            return .after(operation, attempt: attempt ?? 1)
        default:
            guard let name = reader.nonEmptyString("entering"), let state = state(name, at: reader.pointer("entering"))
            else {
                return nil
            }
            return .entering(state)
        }
    }
}
