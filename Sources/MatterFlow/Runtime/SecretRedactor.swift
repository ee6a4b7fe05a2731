import MatterFlowJSON

/// Secret values known together, outside a run (a run's secret inputs and answers, as `submit` and `answer` are
/// given them), and their removal in every spelling a run's own redaction knows: an onboarding payload's other codes
/// and its passcode, a dataset's Network Key and PSKc, an ePSKc's printed groups, JSON- and percent-encoded forms.
///
/// For what a command keeps or prints about a run it does not run: a value that holds a secret (a device name holding
/// the passcode) is kept as a secret is, and a message quoting what was given is shown without it.
public struct SecretRedactor: Sendable {
    private let secrets = SecretValues()

    /// The redactor of these values: each string and number in them is a secret (short ones only as a whole string).
    public init(_ values: [JSONValue]) {
        for value in values { secrets.add(value) }
    }

    /// `text` with every secret replaced by `"<redacted>"`.
    public func redacting(_ text: String) -> String { secrets.redacting(text) }

    /// `value` with every secret replaced by `"<redacted>"`, inside strings too.
    public func redacting(_ value: JSONValue) -> JSONValue { secrets.redacting(value) }

    /// Whether `value` holds one of the secrets, in any spelling.
    public func holdsSecret(_ value: JSONValue) -> Bool { secrets.redacting(value) != value }

    /// The names among `names` to keep as secrets: those `declared` secret, and those whose value holds one of these
    /// secrets; in the given order.
    public func keptNames(_ names: [String], of values: (String) -> JSONValue?, declared: Set<String>) -> [String] {
        names.filter { declared.contains($0) || values($0).map(holdsSecret) == true }
    }
}

extension Workflow {
    /// The redactor of the values of the inputs declared secret and of the answers to secret questions among these.
    public func secretRedactor(inputs: JSONObject, answers: [String: JSONValue] = [:]) -> SecretRedactor {
        let secretQuestions = secretQuestionNames
        return SecretRedactor(
            self.inputs.filter(\.secret).compactMap { inputs[$0.name] }
                + answers.keys.sorted().filter(secretQuestions.contains).compactMap { answers[$0] })
    }

    /// The inputs and answers to keep as secrets beyond a run (in a store, a file a worker reads): those declared
    /// secret (a secret input; an answer to a secret question), and every other one whose value holds a value of
    /// those, in any spelling (``SecretRedactor``): a device name holding the passcode is kept as the code is, since
    /// the run needs it whole and nothing else may show it. Inputs in the order the workflow declares them, answers by
    /// name.
    public func secretNames(inputs: JSONObject, answers: [String: JSONValue]) -> (inputs: [String], answers: [String]) {
        let declaredInputs = Set(self.inputs.filter(\.secret).map(\.name)).filter { inputs[$0] != nil }
        let secretQuestions = secretQuestionNames
        let declaredAnswers = Set(answers.keys.filter(secretQuestions.contains))
        let values = declaredInputs.compactMap { inputs[$0] } + declaredAnswers.compactMap { answers[$0] }
        guard !values.isEmpty else { return ([], []) }
        let redactor = SecretRedactor(values)
        return (
            redactor.keptNames(self.inputs.map(\.name), of: { inputs[$0] }, declared: declaredInputs),
            redactor.keptNames(answers.keys.sorted(), of: { answers[$0] }, declared: declaredAnswers)
        )
    }
}
