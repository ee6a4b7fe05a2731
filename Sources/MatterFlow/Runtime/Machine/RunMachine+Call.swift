import MatterFlowJSON
import MatterPayload

extension RunMachine {
    /// A sub-workflow state's child place, with its inputs evaluated in the parent level's scope and checked
    /// against the child's declarations. The values of the child's secret inputs join the run's secrets: the parent
    /// may pass a value it does not hold secret (a literal, a result field), which the child's declaration makes one.
    mutating func childInputs(_ state: PlannedState, of level: Level) -> Result<(LevelPlace, JSONObject), FlowError> {
        guard let workflow = state.child, let child = level.place.child(of: state) else {
            return .failure(FlowError(.engineMisconfigured, "sub-workflow \(state.childPath) was not loaded"))
        }
        let scope = level.scope
        var given = JSONObject()
        given.reserveCapacity(state.childInputs.count)
        do throws(FlowError) {
            for (name, template) in state.childInputs { given[name] = try scope.evaluate(template) }
        } catch {
            return .failure(error)
        }
        do {
            let inputs = try workflow.resolveInputs(given, source: state.childPath, payloads: &payloads, parentState: state.name)
            for name in child.model.secretInputs { inputs[name].map(secrets.add) }
            return .success((child, inputs))
        } catch {
            let message = error.diagnostics.map(\.message).joined(separator: "; ")
            return .failure(FlowError(.invalidArgumentValue, "inputs of \(state.childPath): \(message)"))
        }
    }

    /// The sub-workflow inputs that still evaluate in the parent's scope (for a level being restored).
    static func availableInputs(_ state: PlannedState, scope: Scope) -> JSONObject {
        var given = JSONObject()
        for (name, template) in state.childInputs {
            if let value = try? scope.evaluate(template) { given[name] = value }
        }
        return given
    }

    /// Arguments as reports and the recording show them, unless the run shows secrets: secret arguments redacted
    /// whole, and every secret value the run holds wherever another argument carries it.
    private func shown(_ arguments: JSONObject, of call: PlannedCall) -> JSONObject {
        guard !configuration.showSecrets else { return arguments }
        var shown = arguments
        for name in call.secretArguments where shown[name] != nil {
            shown[name] = .string(RunOptions.redacted)
        }
        return secrets.redacting(.object(shown)).objectValue ?? shown
    }

    /// The idempotency key a call gets when its state passes none: the run's ID (drawn from the run's random source
    /// unless given) and the state's qualified name. Two runs never share one; the same state of the same run
    /// always gets the same one (inside a map state, one per element: the level's ``Level/elementTag`` ends it), so a run that recovery resumes repeats an interrupted attempt under its own key
    /// (the key is in the call's journaled arguments too).
    ///
    /// The key names an element by its map indices alone, not by the repeat iterations in its tag (`#2`): every
    /// iteration of a repeat state's body makes its call under the same key, so a hub recognises a call an earlier
    /// iteration made (whose answer was lost) instead of doing the work twice.
    func generatedKey(for planned: PlannedState) -> String {
        var tag = ""
        var inIteration = false
        for character in top.elementTag {
            if character == "#" {
                inIteration = true
            } else if inIteration, character.isASCII, character.isNumber {
                continue
            } else {
                inIteration = false
                tag.append(character)
            }
        }
        return configuration.runID + "/" + top.place.qualifiedNames[planned.number] + tag
    }

    /// An action's call with its arguments evaluated and its context set, reported as started.
    mutating func prepareCall(_ planned: PlannedState, attempt: Int) -> Result<RunCall, FlowError> {
        guard let call = planned.call else {
            let operation: String
            if case .action(let action) = planned.state.kind { operation = action.operation } else { operation = planned.name }
            return .failure(FlowError(.engineMisconfigured, "operation \(operation) is not in the catalog"))
        }
        return prepare(call, for: planned, attempt: attempt)
    }

    /// A call with its arguments evaluated in the level's scope and its context set, reported as started: the
    /// state's own, or (with `guardName`) a custom guard's read.
    mutating func prepare(
        _ call: PlannedCall, for planned: PlannedState, attempt: Int, guardName: String? = nil
    ) -> Result<RunCall, FlowError> {
        var arguments = JSONObject()
        arguments.reserveCapacity(call.arguments.count)
        do throws(FlowError) {
            for (name, template) in call.arguments {
                let value = try top.scope.evaluate(template)
                if !value.isNull { arguments[name] = value }
            }
        } catch {
            return .failure(error)
        }
        // A code typed in full-width forms goes to the hub as the ASCII code it stands for (a hub parsing codes
        // itself may not read full-width digits); both forms are secret.
        for name in call.payloadArguments {
            if let text = arguments[name]?.stringValue, case let ascii = OnboardingPayload.halfWidthText(text), ascii != text {
                secrets.add(.string(text))
                arguments[name] = .string(ascii)
            }
        }
        for name in call.secretArguments {
            arguments[name].map(secrets.add)
        }
        if let key = call.operation.idempotencyKey, arguments[key] == nil {
            arguments[key] = .string(generatedKey(for: planned))
        }
        // A state's warnings are its own call's, on its first attempt (a custom guard's read warns of nothing).
        let warns = attempt == 1 && guardName == nil
        var refusal: FlowError?
        var warnings: [String] = []
        for name in call.payloadArguments {
            guard let text = arguments[name]?.stringValue else { continue }
            switch payloads.check(text) {
            case .valid(let found): if warns { warnings += found }
            case .invalid(let problem): refusal = refusal ?? OperationDescriptor.invalidPayload(problem)
            }
        }
        if warns, let warn = call.argumentWarnings { warnings += warn(arguments) }
        // Reports and the recording show the arguments; a run with neither (reportsEvents covers both) shows none.
        let shownArguments = configuration.reportsEvents ? shown(arguments, of: call) : JSONObject()
        if configuration.reportsEvents {
            reportShown(top.path, .hubCallStarted(state: planned.name, operation: call.name, attempt: attempt, arguments: shownArguments))
        }
        callCount += 1
        let key = element.map { "\(configuration.runID)/\($0)/\(callCount)" } ?? "\(configuration.runID)/\(callCount)"
        let context = HubCallContext(
            runID: configuration.runID, idempotencyKey: key, expectedSessionID: call.usesSession ? sessionID : nil, element: element,
            timeout: call.timeout)
        return .success(
            RunCall(
                operation: call, arguments: arguments, timeout: call.timeout, context: context,
                state: planned.name, path: top.path, attempt: attempt, shownArguments: shownArguments,
                cancellable: !top.onCancelPath, guardName: guardName, redaction: configuration.showSecrets ? nil : secrets,
                refusal: refusal, warnings: warnings))
    }
}
