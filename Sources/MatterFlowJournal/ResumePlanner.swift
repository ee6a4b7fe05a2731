import MatterFlow
import MatterFlowJSON

/// How recovery continues an interrupted run through its own workflow: where it stood (rebuilt from the journal's
/// checkpoints), and whether continuing it, rather than taking its cancel path, is safe.
struct ResumePlan {
    let workflow: Workflow
    /// The point to continue from; recovery sets ``ResumePoint/cancel``.
    var point: ResumePoint
    /// Why continuing the run would not be safe; nil when it would be.
    var unsafeBecause: String?
    /// What the plan noticed that a person should know.
    var notes: [String] = []
    /// An in-doubt call the resumed run makes again, relying on its idempotency key: the repeat must carry the
    /// key's value the hub saw (``JournalRecorder`` refuses it otherwise).
    var repeatedCall: IntentEntry?
    /// The question and ask-state names of secret answers put back into the levels' variables.
    var restoredAnswers: Set<String> = []
}

/// Why a run's workflow cannot be run from its journal; recovery then releases what the run holds by itself.
struct UnrunnableWorkflow: Error {
    var reason: String
}

/// Rebuilds a ``ResumePlan`` from a run's journal records and recovery's verdicts on its in-doubt calls.
struct ResumePlanner {
    let entries: JournalEntries
    let started: RunStartedEntry
    let resolutions: [Resolution]
    let options: RecoveryOptions
    /// The run's secret answers, each with the value given again that matched its digest, if one was.
    var answers: [SecretAnswers.Resumed] = []

    /// How long the state `level` stands at had been waiting, by wall time, when the journal ends: from the first
    /// of the records that started its wait at the journal's end (`questionAsked`, `waitStarted`, `delayStarted`, or a
    /// step's `retryScheduled`, whose delay a resumed run reports as `delayStarted`: a run handed from worker to worker
    /// starts it again each time, with recovery's records between) to `now`. Nil
    /// when the journal does not end waiting in that state (an answer, an event, a transition or any other record
    /// came after it).
    static func waited(in records: [JournalEntryRecord], at level: RunCheckpoint, now: Double) -> Duration? {
        let workflow = level.workflowPath.joined(separator: "/")
        var first: Double?
        scan: for record in records.reversed() {
            switch record.entry {
            case .event(let event):
                switch event.name {
                case .retryScheduled:
                    // A retry's delay begins here; an earlier retry's is another wait (an attempt that failed
                    // before reaching the hub leaves no record between the two).
                    guard event.workflow == workflow, event.state == level.state else { break scan }
                    first = record.wallTime
                    break scan
                case .questionAsked, .waitStarted, .delayStarted:
                    guard event.workflow == workflow, event.state == level.state else { break scan }
                    first = record.wallTime
                case .stateEntered, .answerRejected:
                    // The state entered again on resume; an answer that did not fit leaves the question waiting.
                    continue
                case .guardChecked, .transitionTaken, .warning, .eventReceived, .answered, .cancelRequested:
                    break scan
                }
            case .checkpoint, .recoveryStarted, .recoveryFinished, .recoveryDeferred, .tornTailDiscarded, .resolution:
                continue
            case .runStarted, .intent, .outcome, .lateResult, .runFinished:
                break scan
            }
        }
        return first.map { .milliseconds(Int64((max(0, now - $0) * 1000).rounded())) }
    }

    /// The plan, or why the workflow cannot be run from its journal.
    func plan() -> Result<ResumePlan, UnrunnableWorkflow> {
        let file = started.file
        let workflow: Workflow
        do {
            workflow = try options.engine.load(path: file)
        } catch {
            return .failure(UnrunnableWorkflow(reason: "the workflow file \(file) could not be loaded (\(error.diagnostics.first?.description ?? "invalid"))"))
        }
        if started.contentHash != workflow.contentHash {
            return .failure(UnrunnableWorkflow(reason: "the workflow file \(file) (or one of its sub-workflows) changed since the run started, so its states may not match the journal"))
        }
        let callers = JournalCallers(entries, runID: started.runID)
        var levels = callers.run.checkpoints
        let lastSequence = callers.run.lastCheckpoint
        if levels.isEmpty {
            // The run stopped before entering its first state: it continues from its start.
            levels = [RunCheckpoint(workflowPath: [workflow.name], state: workflow.start, inputs: started.inputs, variables: [:])]
        }
        if let reason = Self.unfoldedMap(levels, callers: callers) { return .failure(UnrunnableWorkflow(reason: reason)) }
        let answers = restoreSecretAnswers(&levels, in: workflow)
        var missing: [String] = []
        var unusable: [String] = []
        var notes: [String] = []
        var supplied = options.inputs
        for index in levels.indices {
            let prefix = index == 0 ? "" : levels[index].workflowPath.dropFirst().joined(separator: "/") + ": "
            var inputs = JSONObject()
            // Inputs of inner levels the journal did not keep are evaluated again from their parent: not missing.
            var rederived: [String] = []
            for member in levels[index].inputs.members {
                if index == 0, Self.isRedacted(member.value), let value = supplied[member.key] {
                    supplied[member.key] = nil
                    // A value given as text (`--input NAME=VALUE`) is read as the input's declared type.
                    switch value.stringValue.flatMap({ workflow.input(named: member.key)?.value(fromText: $0) }) ?? .success(value) {
                    case .success(let typed): inputs[member.key] = typed
                    case .failure(let error): unusable.append(error.message)
                    }
                } else if index == 0, let kept = Self.stripping(member.value, at: "input.\(member.key)", missing: &missing) {
                    inputs[member.key] = kept
                } else if index > 0, let kept = Self.stripping(member.value, at: "input.\(member.key)", missing: &rederived) {
                    inputs[member.key] = kept
                }
            }
            levels[index].inputs = inputs
            var variables = JSONObject()
            for member in levels[index].variables.members {
                var lost: [String] = []
                if let kept = Self.stripping(member.value, at: "vars.\(member.key)", missing: &lost) { variables[member.key] = kept }
                missing += lost.map { prefix + $0 }
            }
            levels[index].variables = variables
        }
        for name in supplied.keys.sorted() {
            notes.append("--input \(name) was not needed (the run's journal keeps that input, or the workflow has none of that name) and was ignored")
        }
        // The workflow's questions are walked for only when answers were given (a recovery of many runs gives none).
        let questions = options.answers.isEmpty ? [] : workflow.questionNames
        for name in options.answers.keys.sorted() where !questions.contains(name) {
            notes.append(
                "--answer \(name) names no question of \(workflow.name) and was ignored"
                    + SpellingSuggestion.hint(for: name, among: questions))
        }

        var plan = ResumePlan(workflow: workflow, point: ResumePoint(levels: levels, cancel: true), notes: notes + answers.notes)
        // The run's keys continue after its own calls', not after its elements'.
        plan.point.callsBefore = callers.run.callsBefore
        for (element, caller) in callers.elements {
            let map = JournalCallers.map(ofElement: element)
            plan.point.elementCalls[map] = max(plan.point.elementCalls[map] ?? 0, caller.callsBefore)
        }
        plan.point.waited = Self.waited(in: entries.records, at: levels[levels.count - 1], now: options.wallClock())
        plan.point.secretValues = answers.values
        plan.restoredAnswers = answers.names
        var reasons: [String] = unusable
        if !missing.isEmpty {
            let questions = Set(missing.compactMap { answers.needed[$0] }).sorted()
            reasons.append(
                "the journal never keeps secret values, and the run still needs \(missing.joined(separator: ", "))"
                    + (missing.contains { $0.hasPrefix("input.") } ? " (pass secret inputs again with --input)" : "")
                    + (questions.isEmpty ? "" : " (pass secret answers again: \(questions.map { "--answer \($0)=..." }.joined(separator: ", ")))"))
        }
        reasons += planElements(&plan, levels: levels, callers: callers)
        switch lastCall(after: lastSequence, in: levels[levels.count - 1], of: callers.run, callers: callers) {
        case .none, .failed, .notApplied:
            break
        case .finished(let result, let operation):
            var lost: [String] = []
            plan.point.completedStep = Self.stripping(result, at: "the result of \(operation)", missing: &lost) ?? .null
            if !lost.isEmpty { reasons.append("the journal never keeps secret values, and the run still needs \(lost.joined(separator: ", "))") }
        case .appliedWithoutResult(let operation):
            // Calling it again to learn the result is no answer: the hub may refuse the repeat (the session moved on).
            reasons.append("\(operation) took effect but its result could not be read back from the hub")
        case .unknown(let intent):
            if Self.repeatable(intent, state: Self.innermostState(of: levels, in: workflow)) {
                plan.repeatedCall = intent
                plan.notes.append(
                    "whether \(intent.operation) took effect cannot be told from the hub; its state declares repeatSafety, so a resumed run "
                        + "calls it again with the same \(intent.idempotencyKey?.argument ?? "key"), which the hub recognises as a repeat")
            } else {
                reasons.append("whether \(intent.operation) took effect cannot be told from the hub")
            }
        }
        plan.unsafeBecause = reasons.isEmpty ? nil : reasons.joined(separator: "; ")
        return .success(plan)
    }

    /// What became of the last hub call the innermost state made before the run stopped.
    private enum LastCall {
        case none
        case finished(JSONValue, operation: String)
        case failed
        case notApplied
        case appliedWithoutResult(String)
        case unknown(IntentEntry)
    }

    private func lastCall(after sequence: Int, in level: RunCheckpoint, of caller: JournalCallers.Caller, callers: JournalCallers) -> LastCall {
        let path = level.workflowPath.joined(separator: "/")
        // A guard's read is no result of the state's work: the resumed state checks its guards again.
        guard
            let intent = caller.intents.last(where: {
                $0.sequence > sequence && $0.intent.workflow == path && $0.intent.state == level.state && $0.intent.guardName == nil
            })?.intent
        else { return .none }
        let key = intent.key
        let operation = intent.operation
        if let outcome = callers.outcomes[key] {
            guard let result = outcome.value else { return .failed }
            return .finished(result, operation: operation)
        }
        guard let resolution = resolutions.last(where: { $0.key == key }) else { return .unknown(intent) }
        switch resolution.verdict {
        case .applied:
            guard let result = resolution.result else { return .appliedWithoutResult(operation) }
            return .finished(result, operation: operation)
        case .notApplied, .noEffect: return .notApplied
        case .unknown: return .unknown(intent)
        }
    }

    /// The state the innermost level was in, found through the sub-workflow states of the levels around it.
    static func innermostState(of levels: [RunCheckpoint], in workflow: Workflow) -> WorkflowState? {
        guard let innermost = levels.last else { return nil }
        return Self.workflow(ofLevel: levels.count - 1, levels, in: workflow)?.states[innermost.state]
    }

    /// The workflow of the level at `target`, found through the sub-workflow states of the levels around it.
    static func workflow(ofLevel target: Int, _ levels: [RunCheckpoint], in root: Workflow) -> Workflow? {
        var current = root
        for index in 0..<target {
            guard case .workflow(let subworkflow)? = current.states[levels[index].state]?.kind,
                let child = current.subworkflows[subworkflow.path]
            else { return nil }
            current = child
        }
        return current
    }

    /// Whether an in-doubt call can be made again safely: its state declares `repeatSafety` with the operation's
    /// idempotency key, and the intent recorded the key's value as the hub saw it (not redacted), so the repeat
    /// can be checked to carry it.
    static func repeatable(_ intent: IntentEntry, state: WorkflowState?) -> Bool {
        guard let key = intent.idempotencyKey, !key.value.isNull else { return false }
        var redacted: [String] = []
        _ = stripping(key.value, at: key.argument, missing: &redacted)
        guard redacted.isEmpty, case .action(let action)? = state?.kind, action.operation == intent.operation else { return false }
        return action.repeatSafety?.idempotencyKey == key.argument
    }

    /// Whether a value is a redacted secret, whole.
    static func isRedacted(_ value: JSONValue) -> Bool { value.stringValue == RunOptions.redacted }

    /// The value without the parts the journal redacted; nil when nothing is left.
    static func stripping(_ value: JSONValue) -> JSONValue? {
        var redacted: [String] = []
        return stripping(value, at: "", missing: &redacted)
    }

    /// The value without the parts the journal redacted (their names added to `missing`); nil when nothing is left.
    static func stripping(_ value: JSONValue, at name: String, missing: inout [String]) -> JSONValue? {
        switch value {
        case .string(let text) where text.contains(RunOptions.redacted):
            missing.append(name)
            return nil
        case .array(let elements):
            var kept: [JSONValue] = []
            for (index, element) in elements.enumerated() {
                guard let element = stripping(element, at: "\(name)[\(index)]", missing: &missing) else { return nil }
                kept.append(element)
            }
            return .array(kept)
        case .object(let object):
            var kept = JSONObject()
            for member in object.members {
                if let element = stripping(member.value, at: "\(name).\(member.key)", missing: &missing) { kept[member.key] = element }
            }
            return .object(kept)
        case .null, .bool, .int, .double, .string:
            return value
        }
    }

    /// The element of a concurrent map state whose call a key numbers (`<runID>/<element>/<n>`); nil for the run's
    /// own calls (`<runID>/<n>`) and recovery's.
    static func element(ofKey key: String, runID: String) -> String? {
        guard key.hasPrefix(runID + "/") else { return nil }
        let rest = key.dropFirst(runID.count + 1)
        guard let slash = rest.lastIndex(of: "/") else { return nil }
        return String(rest[..<slash])
    }

    /// When the innermost level is in a concurrent map state, where each running element stood: its own checkpoints
    /// (secret values the journal never kept stripped, to be taken again from the map's level), the result of its
    /// last call when that had finished, and its call count. Returns why continuing an element would not be safe.
    /// Why the run's checkpoints cannot be resumed from, nor its workflow's cancel path run from them: a map state's
    /// checkpoint among the levels it would restore (the run's, or a running element's) lists only the results of the
    /// elements that ended since its previous one, and the journal lacks that one (records lost, or not the same
    /// map's). Nil when every level is whole.
    static func unfoldedMap(_ levels: [RunCheckpoint], callers: JournalCallers) -> String? {
        let running = levels.last?.map?.running ?? []
        let elementLevels = running.flatMap { callers.elements[runningElement($0, levels: levels)]?.checkpoints ?? [] }
        guard let broken = (levels + elementLevels).first(where: { ($0.map?.earlier ?? 0) > 0 }) else { return nil }
        let earlier = broken.map?.earlier ?? 0
        return "the checkpoint of map state \(broken.workflowPath.joined(separator: "/"))/\(broken.state) lists only the results of "
            + "elements that ended since its previous checkpoint, and the journal does not hold that one with the \(earlier) results before "
            + "them (records were lost), so which elements had ended cannot be told"
    }

    /// The name the run gave element `index` of the map state its innermost level stands in (`readDevices[2]`): the
    /// map state's qualified name, the indices of the one-at-a-time maps around it and the iterations (from the
    /// second, `#2`) of the repeat states around it, outermost first, and the index.
    static func runningElement(_ index: Int, levels: [RunCheckpoint]) -> String {
        JournalCallers.map(at: levels) + "[\(index)]"
    }

    private func planElements(_ plan: inout ResumePlan, levels: [RunCheckpoint], callers: JournalCallers) -> [String] {
        guard let innermost = levels.last, let running = innermost.map?.running, !running.isEmpty else { return [] }
        var reasons: [String] = []
        for index in running {
            let element = Self.runningElement(index, levels: levels)
            // An element that entered no state starts its body afresh.
            guard let caller = callers.elements[element], !caller.checkpoints.isEmpty else { continue }
            var elementLevels = caller.checkpoints
            var missing: [String] = []
            for position in elementLevels.indices {
                // Inputs the journal did not keep are evaluated again from the map's level: not missing.
                var inputs = JSONObject()
                for member in elementLevels[position].inputs.members {
                    if let kept = Self.stripping(member.value) { inputs[member.key] = kept }
                }
                elementLevels[position].inputs = inputs
                var variables = JSONObject()
                for member in elementLevels[position].variables.members {
                    if let kept = Self.stripping(member.value, at: "vars.\(member.key)", missing: &missing) { variables[member.key] = kept }
                }
                elementLevels[position].variables = variables
            }
            if !missing.isEmpty {
                reasons.append("the journal never keeps secret values, and element \(element) still needs \(missing.joined(separator: ", "))")
            }
            var point = ElementPoint(index: index, levels: elementLevels)
            point.callsBefore = caller.callsBefore
            switch lastCall(after: caller.lastCheckpoint, in: elementLevels[elementLevels.count - 1], of: caller, callers: callers) {
            case .none, .failed, .notApplied:
                break
            case .finished(let result, let operation):
                var lost: [String] = []
                point.completedStep = Self.stripping(result, at: "the result of \(operation)", missing: &lost) ?? .null
                if !lost.isEmpty { reasons.append("the journal never keeps secret values, and element \(element) still needs \(lost.joined(separator: ", "))") }
            case .appliedWithoutResult(let operation):
                reasons.append("\(operation) of element \(element) took effect but its result could not be read back from the hub")
            case .unknown(let intent):
                reasons.append("whether \(intent.operation) of element \(element) took effect cannot be told from the hub")
            }
            plan.point.elements.append(point)
        }
        return reasons
    }
}
