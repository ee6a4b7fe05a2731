import MatterFlowJSON

/// Ask whoever drives the run a question and wait for a typed answer, or give up after a timeout.
///
/// The question is published as a ``RunEvent/Kind/questionAsked(state:question:prompt:schema:secret:timeoutSeconds:)``
/// event; the answer comes through ``RunHandle/answer(_:to:)`` or from ``RunOptions/answers`` given in advance.
public struct AskState: Sendable {
    /// The question's name, by which answers are given (`--answer NAME=VALUE`); the state's name when not declared.
    public var question: String
    /// The text shown to the person; may hold references (`"Which room for ${input.deviceName}?"`).
    public var prompt: Template
    /// What kind of answer is expected.
    public var answer: AnswerSchema
    /// The answer is redacted in events, journals and checkpoints, as secret inputs are.
    public var secret: Bool
    /// The variable the answer is bound to.
    public var result: String?
    /// How long to wait; required, so no path waits forever.
    public var timeoutSeconds: Double
    /// The state after an answer arrives.
    public var next: String
    /// Where the run goes when no answer arrives in time.
    public var onTimeout: String
}

/// The expected shape of an answer, as declared in a workflow (choices may still be a reference).
public enum AnswerSchema: Sendable {
    /// One of a list: the list itself (literal, or a reference such as `${vars.rooms.rooms}`), the field of each
    /// element shown to the person (`label`) and the field given as the answer (`value`); both nil for a list of
    /// strings.
    case choice(from: Template, label: String?, value: String?)
    /// Free text, between `minLength` and `maxLength` characters and at most `maxBytes` bytes of UTF-8 when given,
    /// matching `pattern` (which must match the whole answer; see ``AnswerPattern`` for the subset) when one is given.
    case text(minLength: Int, maxLength: Int, maxBytes: Int? = nil, pattern: AnswerPattern?)
    /// Yes or no (a boolean).
    case yesNo

    /// The template a choice's list comes from; nil for other answers.
    public var source: Template? {
        if case .choice(let from, _, _) = self { from } else { nil }
    }

    /// The shape of the value an answer binds. A choice without `value` binds the chosen element as it is: of the
    /// literal list's one scalar type when all its elements share it, else anything.
    var shape: ValueShape {
        switch self {
        case .choice(.literal(.array(let elements)), _, let value):
            let chosen = value.map { member in elements.map { $0[member] ?? .null } } ?? elements
            let shapes = Set(chosen.map(ValueShape.scalar(of:)))
            return shapes.count == 1 ? shapes.first ?? .any : .any
        case .choice: return .any
        case .text: return .string
        case .yesNo: return .boolean
        }
    }

    /// The schema's name in workflow files and events.
    public var kindName: String {
        switch self {
        case .choice: "choice"
        case .text: "text"
        case .yesNo: "yesNo"
        }
    }
}

extension Workflow {
    /// The questions the workflow and its sub-workflows may ask: each ask state's question name and state name,
    /// by which an answer may be given in advance (``RunOptions/answers``, `--answer NAME=VALUE`).
    public var questionNames: Set<String> {
        var names = Set<String>()
        forEachAsk { state, _, ask in
            names.insert(ask.question)
            names.insert(state)
        }
        return names
    }

    /// Whether the workflow or one of its sub-workflows has an ask state that `matches`: it stops at the first, so
    /// a run's start can ask it cheaply (whether to hear answers, whether to keep a secret answer's digest).
    public func hasAsk(where matches: (AskState) -> Bool) -> Bool {
        var seen = Set<String>()
        var pending = [self]
        while let workflow = pending.popLast() {
            guard seen.insert(workflow.file).inserted else { continue }
            for state in workflow.states.values {
                if case .ask(let ask) = state.kind, matches(ask) { return true }
            }
            pending.append(contentsOf: workflow.subworkflows.values)
        }
        return false
    }

    /// The names by which a secret question may be answered in advance: its question name and its ask state's.
    public var secretQuestionNames: Set<String> {
        var names = Set<String>()
        forEachAsk { state, _, ask in
            guard ask.secret else { return }
            names.insert(ask.question)
            names.insert(state)
        }
        return names
    }

    /// The ask states of the workflow and its sub-workflows that none of `answered` (question or ask state names)
    /// answers, a sub-workflow's qualified by its name (`rooms/pick`): this workflow's first, in the order its file
    /// declares them, then each sub-workflow's.
    public func askStates(unansweredBy answered: Set<String> = []) -> [String] {
        var states: [String] = []
        forEachAsk { state, qualified, ask in
            if !answered.contains(state) && !answered.contains(ask.question) { states.append(qualified) }
        }
        return states
    }

    /// Checks an answer given before its question is asked (a fleet run's, given with `matterflow submit --answer` or
    /// `matterflow answer`) as far as the workflow alone can: a text or yes/no answer fully, read as a run reads
    /// typed text (``Question/accept(_:)``); a choice not at all, as its choices are known only when it is asked.
    /// - Returns: why the answer fits no ask state called `name` (by question or state name); nil when it fits one,
    ///   when one is a choice, or when none is called so.
    public func answerMisfit(_ value: JSONValue, to name: String) -> AnswerError? {
        var questions: [Question] = []
        var choice = false
        forEachAsk { state, _, ask in
            guard ask.question == name || state == name else { return }
            let schema: QuestionSchema
            switch ask.answer {
            case .choice:
                choice = true
                return
            case .text(let minLength, let maxLength, let maxBytes, let pattern):
                schema = .text(minLength: minLength, maxLength: maxLength, maxBytes: maxBytes, pattern: pattern)
            case .yesNo: schema = .yesNo
            }
            questions.append(
                Question(name: ask.question, state: state, prompt: "", schema: schema, secret: ask.secret, timeoutSeconds: ask.timeoutSeconds))
        }
        return choice ? nil : Question.misfit(of: value, among: questions)
    }

    /// Calls `body` with each ask state's name, its name qualified by sub-workflow, and its ask: this workflow's
    /// first, then each sub-workflow's (each file once).
    private func forEachAsk(_ body: (_ state: String, _ qualified: String, AskState) -> Void) {
        var seen = Set<String>()
        var pending: [(workflow: Workflow, prefix: String)] = [(self, "")]
        while !pending.isEmpty {
            let (workflow, prefix) = pending.removeFirst()
            guard seen.insert(workflow.file).inserted else { continue }
            for state in workflow.statesInOrder {
                if case .ask(let ask) = state.kind { body(state.name, prefix + state.name, ask) }
            }
            for child in workflow.subworkflows.values.sorted(by: { $0.name < $1.name }) {
                pending.append((child, prefix + child.name + "/"))
            }
        }
    }
}
