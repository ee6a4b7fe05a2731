/// The values of a repeatable `--OPTION NAME=VALUE` option (`--input`, `--answer`), split once at their first `=`.
struct NameValuePair: Sendable, Hashable {
    var name: String
    var value: String

    /// Splits each value; one without a name or `=` is a usage error, and so is a name given twice: which of its
    /// values was meant cannot be known, so none is picked.
    static func split(_ values: [String], option: String, command: String) throws(UsageError) -> [NameValuePair] {
        var pairs: [NameValuePair] = []
        var seen = Set<String>()
        for text in values {
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
                throw UsageError(message: missingName(text, option: option), command: command)
            }
            let name = String(text[..<equals])
            guard seen.insert(name).inserted else {
                throw UsageError(message: "--\(option) \(name) is given more than once; give each \(option) once", command: command)
            }
            pairs.append(NameValuePair(name: name, value: String(text[text.index(after: equals)...])))
        }
        return pairs
    }

    /// Why a value without `NAME=` is refused, without quoting it: it may be the value alone, and a value may be a
    /// secret (an onboarding payload, a passcode, a password).
    private static func missingName(_ text: String, option: String) -> String {
        "--\(option) must be NAME=VALUE; one of them has no NAME= (it is not shown: it may be a secret)"
    }

    /// The `--input` pairs of a command.
    static func inputs(_ arguments: ParsedArguments, command: String) throws(UsageError) -> [NameValuePair] {
        try split(arguments.all("input"), option: "input", command: command)
    }

    /// The `--answer` pairs of a command.
    static func answers(_ arguments: ParsedArguments, command: String) throws(UsageError) -> [NameValuePair] {
        try split(arguments.all("answer"), option: "answer", command: command)
    }
}
