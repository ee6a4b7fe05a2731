import MatterFlowJSON

/// A question a run asks, as published in its `questionAsked` event: the prompt rendered and the choices resolved.
public struct Question: Sendable {
    /// The question's name (the ask state's `question`, or its state name), by which it is answered.
    public var name: String
    /// The ask state asking it.
    public var state: String
    /// The prompt, with its references filled in.
    public var prompt: String
    /// The kind of answer expected, with a choice's list resolved.
    public var schema: QuestionSchema
    /// Whether the answer is a secret (redacted in events, journals and checkpoints).
    public var secret: Bool
    /// How long the run waits for an answer, in seconds.
    public var timeoutSeconds: Double

    /// A question named `name` that the ask state `state` asks, waiting at most `timeoutSeconds` for an answer.
    public init(name: String, state: String, prompt: String, schema: QuestionSchema, secret: Bool, timeoutSeconds: Double) {
        self.name = name
        self.state = state
        self.prompt = prompt
        self.schema = schema
        self.secret = secret
        self.timeoutSeconds = timeoutSeconds
    }

    /// Whether `name` names this question: its question name or its ask state's name.
    public func answers(to name: String) -> Bool {
        self.name == name || state == name
    }

    /// Why `value` fits none of `questions`, checked as ``accept(_:)`` checks it (the first question's reason); nil
    /// when it fits one, or when there is none.
    public static func misfit(of value: JSONValue, among questions: [Question]) -> AnswerError? {
        var first: AnswerError?
        for question in questions {
            do throws(AnswerError) {
                _ = try question.accept(value)
                return nil
            } catch {
                first = first ?? error
            }
        }
        return first
    }

    /// Takes the answer given in advance to this question (by its name, else by its ask state's) out of `given`,
    /// checked as ``accept(_:)`` checks one; nil when none was given. Each answer given in advance is used once.
    func takeGivenAnswer(from given: inout [String: JSONValue]) -> Result<JSONValue, AnswerError>? {
        guard let value = given.removeValue(forKey: name) ?? given.removeValue(forKey: state) else { return nil }
        do throws(AnswerError) {
            return .success(try accept(value))
        } catch {
            return .failure(error)
        }
    }

    /// Checks an answer against the schema; returns the value the ask state binds.
    public func check(_ answer: JSONValue) throws(AnswerError) -> JSONValue {
        do {
            return try schema.check(answer, question: name)
        } catch where secret {
            // The reason never repeats a secret answer, nor tells its length; it names the rule the answer must keep.
            throw AnswerError(error.code, question: name, "the answer (secret, not shown) does not fit the question: it must be \(schema.expectation)")
        }
    }

    /// The value an answer gives the ask state, as a run takes it: checked against the schema as it is, or, when a
    /// string does not fit as it is, read as typed text (``parse(_:)``: a choice's number or label, `yes`/`no`,
    /// whitespace trimmed). Recovery reads a secret answer given again the same way before comparing its digest.
    public func accept(_ answer: JSONValue) throws(AnswerError) -> JSONValue {
        do {
            return try check(answer)
        } catch {
            guard case .string(let text) = answer else { throw error }
            do throws(AnswerError) {
                return try parse(text)
            } catch let reading {
                // A number given for a choice is a position: the reading says which positions there are.
                if case .choice = schema, !secret, Int(text.trimmingWhitespace) != nil { throw reading }
                throw error
            }
        }
    }

    /// Reads an answer typed as text (`--answer NAME=VALUE`, a terminal line): a choice by its value or its label,
    /// or by its number (1-based) when no choice's label is a number (``QuestionSchema/takesPositions``: with rooms
    /// named `101` and `1205`, `115` is no room, not the 115th); `yes`/`no` (also `y`, `n`, `true`, `false`); text
    /// as it is. Whitespace around it (a CR left by a CRLF file) is trimmed. The result is checked.
    public func parse(_ text: String) throws(AnswerError) -> JSONValue {
        let trimmed = text.trimmingWhitespace
        switch schema {
        case .choice(let choices):
            if let match = choices.first(where: { $0.value.stringValue == trimmed }) ?? choices.first(where: { $0.label == trimmed }) {
                return match.value
            }
            if let number = Int(trimmed) {
                guard schema.takesPositions else {
                    throw AnswerError(
                        .invalidAnswer, question: name,
                        "\(secret ? "the answer" : "\"\(trimmed)\"") is none of the choices, and as they are numbers themselves, a number "
                            + "is read as one of them, never as a position; give one of them as it is written")
                }
                if choices.indices.contains(number - 1) { return choices[number - 1].value }
                throw AnswerError(
                    .invalidAnswer, question: name,
                    "there is no choice \(number): the choices are numbered 1 to \(choices.count)"
                        + (choices.isEmpty ? "" : " (\(choices.prefix(10).enumerated().map { "\($0.offset + 1). \($0.element.label)" }.joined(separator: ", "))\(choices.count > 10 ? ", ..." : ""))"))
            }
            return try check(.string(trimmed))
        case .text:
            return try check(.string(text))
        case .yesNo:
            switch trimmed.lowercased() {
            case "y", "yes", "true": return .bool(true)
            case "n", "no", "false": return .bool(false)
            default: throw AnswerError(.invalidAnswer, question: name, secret ? "answer yes or no" : "answer yes or no, not \"\(trimmed)\"")
            }
        }
    }

    /// The question as JSON (the `question` of a `questionAsked` trace line).
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["name"] = .string(name)
        object["prompt"] = .string(prompt)
        object["answer"] = schema.jsonValue
        object["secret"] = .bool(secret)
        object["timeoutSeconds"] = .double(timeoutSeconds)
        return .object(object)
    }
}

/// The expected answer of a question, with a choice's list resolved.
public enum QuestionSchema: Sendable {
    /// One choice: what is shown, and the value an answer gives.
    public struct Choice: Sendable {
        /// What the person is shown for this choice.
        public var label: String
        /// The value choosing it gives as the answer.
        public var value: JSONValue

        /// A choice shown as `label` that answers `value`.
        public init(label: String, value: JSONValue) {
            self.label = label
            self.value = value
        }
    }

    case choice([Choice])
    /// Free text of `minLength` to `maxLength` characters, and at most `maxBytes` bytes of UTF-8 when given, that
    /// `pattern`, when given, matches whole.
    case text(minLength: Int, maxLength: Int, maxBytes: Int? = nil, pattern: AnswerPattern?)
    case yesNo

    /// Checks an answer; returns the value bound: the choice's own value for a choice (an answer spelt with other
    /// Unicode code points for the same text, as `u` and a combining diaeresis for `ü`, binds the choice's), else the
    /// answer itself.
    func check(_ answer: JSONValue, question: String) throws(AnswerError) -> JSONValue {
        switch self {
        case .choice(let choices):
            guard let chosen = choices.first(where: { Scope.equal($0.value, answer) }) else {
                let listed = choices.prefix(10).map { JSONWriter.compact($0.value) }.joined(separator: ", ")
                throw AnswerError(
                    .invalidAnswer, question: question,
                    choices.isEmpty
                        ? "there is nothing to choose from"
                        : "\(JSONWriter.compact(answer)) is not one of the choices (\(listed)\(choices.count > 10 ? ", ..." : ""))")
            }
            return chosen.value
        case .text(let minLength, let maxLength, let maxBytes, let pattern):
            guard case .string(let text) = answer else {
                throw AnswerError(.invalidAnswer, question: question, "the answer must be text, not \(answer.typeName)")
            }
            let length = text.count
            if length < minLength {
                throw AnswerError(.invalidAnswer, question: question, "the answer must have at least \(Self.characters(minLength)), it has \(length)")
            }
            if length > maxLength {
                throw AnswerError(.invalidAnswer, question: question, "the answer must have at most \(Self.characters(maxLength)), it has \(length)")
            }
            if let maxBytes, text.utf8.count > maxBytes {
                throw AnswerError(
                    .invalidAnswer, question: question,
                    "the answer must take at most \(maxBytes) bytes of UTF-8, it takes \(text.utf8.count) (letters beyond ASCII take 2 to 4 bytes each)")
            }
            // Bounded in bytes, it is text a device keeps: on one line.
            if maxBytes != nil, let control = ControlCharacter.first(in: text) {
                throw AnswerError(
                    .invalidAnswer, question: question,
                    "the answer must hold no control character, as a device keeps it; character \(control.position) is \(control.code): \(ControlCharacter.remedy)")
            }
            if let pattern, !pattern.matches(text) {
                throw AnswerError(.invalidAnswer, question: question, "the answer must match the pattern \(pattern)")
            }
            return answer
        case .yesNo:
            guard case .bool = answer else {
                throw AnswerError(.invalidAnswer, question: question, "the answer must be yes or no (true or false), not \(answer.typeName)")
            }
            return answer
        }
    }

    /// `1 character`, `2 characters`.
    private static func characters(_ count: Int) -> String {
        count == 1 ? "1 character" : "\(count) characters"
    }

    /// Whether a typed number picks a choice by its position: only when no choice's label (what a person is shown)
    /// is itself a number, which the number could mean instead. (A value typed as it is was looked for first.)
    public var takesPositions: Bool {
        guard case .choice(let choices) = self else { return false }
        return !choices.contains { Int($0.label.trimmingWhitespace) != nil }
    }

    /// What an answer must be, in a few words (a text's pattern included: it is part of the workflow, never secret).
    public var expectation: String {
        switch self {
        case .choice(let choices): "one of \(choices.count) choices"
        case .text(let minLength, let maxLength, let maxBytes, let pattern):
            "text of \(minLength) to \(maxLength) characters" + (maxBytes.map { " and at most \($0) bytes" } ?? "")
                + (pattern.map { " matching the pattern \($0)" } ?? "")
        case .yesNo: "yes or no"
        }
    }

    /// The schema as JSON, choices resolved: `{"choice": [{"label", "value"}]}`, `{"text": {...}}`, `{"yesNo": {}}`.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        switch self {
        case .choice(let choices):
            object["choice"] = .array(choices.map { choice in
                var entry = JSONObject()
                entry["label"] = .string(choice.label)
                entry["value"] = choice.value
                return .object(entry)
            })
        case .text(let minLength, let maxLength, let maxBytes, let pattern):
            var text = JSONObject()
            text["minLength"] = .int(minLength)
            text["maxLength"] = .int(maxLength)
            if let maxBytes { text["maxBytes"] = .int(maxBytes) }
            if let pattern { text["pattern"] = .string(pattern.source) }
            object["text"] = .object(text)
        case .yesNo:
            object["yesNo"] = .object(JSONObject())
        }
        return .object(object)
    }
}

/// A typed answer, for ``RunHandle/answer(_:to:)``.
public enum AnswerValue: Sendable, Hashable {
    /// A choice's value (a string; give another JSON value through the JSONValue form).
    case choice(String)
    case text(String)
    case yesNo(Bool)

    /// The answer as the value an ask state binds.
    public var jsonValue: JSONValue {
        switch self {
        case .choice(let value), .text(let value): .string(value)
        case .yesNo(let value): .bool(value)
        }
    }
}

/// An answer refused: the run keeps waiting for a good one.
public struct AnswerError: Error, Sendable, CustomStringConvertible {
    /// Stable codes.
    public enum Code: String, Sendable {
        /// The answer does not fit the question's schema.
        case invalidAnswer
        /// No question of that name is waiting for an answer.
        case noPendingQuestion
    }

    /// Whether the answer does not fit or no question of that name waits.
    public var code: Code
    /// The question's name.
    public var question: String
    /// Why the answer was refused, for people; a secret answer is never repeated in it.
    public var message: String

    /// A refusal of an answer to the question named `question`.
    public init(_ code: Code, question: String, _ message: String) {
        self.code = code
        self.question = question
        self.message = message
    }

    /// `CODE: question "NAME": MESSAGE`.
    public var description: String { "\(code.rawValue): question \"\(question)\": \(message)" }

    /// No question called `name` waits; `waiting` is the one that does, if any.
    static func notAsked(_ name: String, waiting: Question?) -> AnswerError {
        let now = waiting.map { "; the run waits for an answer to \"\($0.name)\"" } ?? "; the run asks nothing now"
        return AnswerError(.noPendingQuestion, question: name, "no question \"\(name)\" is waiting for an answer\(now)")
    }

    /// The run has ended: it takes no answers.
    static func runEnded(_ name: String) -> AnswerError {
        AnswerError(.noPendingQuestion, question: name, "the run has ended; it takes no answers")
    }

    /// The question ended its wait (timed out or cancelled) while the answer to it was being checked.
    static func stoppedWaiting(_ name: String) -> AnswerError {
        AnswerError(.noPendingQuestion, question: name, "the question stopped waiting (timed out or cancelled) before the answer came")
    }
}

extension String {
    fileprivate var trimmingWhitespace: String {
        var text = Substring(self)
        while let first = text.first, first.isWhitespace { text.removeFirst() }
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }
}
