import MatterFlowJSON

/// Why a command-line text is not a value of an input's declared type.
public struct InputTextError: Error, Sendable, Hashable {
    /// What was expected, naming the input and the text.
    public var message: String
    /// Whether the text is a number of the right kind, out of the range the type holds.
    public var outOfRange = false
}

extension InputDeclaration {
    /// A value given as text (`--input NAME=VALUE`) read as this input's declared type: strings as they are,
    /// numbers and booleans parsed, arrays and objects as JSON (an `any` input falls back to the text).
    public func value(fromText text: String) -> Result<JSONValue, InputTextError> {
        switch type {
        case .string, .onboardingPayload, .operationalDataset:
            return .success(.string(text))
        case .integer:
            if let problem = notJSONNumber(text, kind: "an integer") { return .failure(problem) }
            // As in JSON, a whole number written with a fraction or an exponent (`30.0`, `3e1`) is an integer.
            switch JSONNumberText.wholeNumber(text) {
            case .integer(let whole):
                return .success(.int(whole))
            case .fraction:
                return .failure(InputTextError(message: "input \"\(name)\" must be an integer, got \(shown(text))"))
            case .outOfRange:
                // The range the workflow declares is what the person must keep to; the type's own only without one.
                // The declared bounds, each missing one the type's own: a huge number within `0...` is still refused.
                let lowest = minimum.map(NumberRange.format) ?? String(Int.min)
                let highest = maximum.map(NumberRange.format) ?? String(Int.max)
                let range = declaredRange == nil ? "from \(Int.min) to \(Int.max)" : "in \(lowest)...\(highest)"
                let remedy = declaredRange == nil ? "" : "; give a value in \(lowest)...\(highest)"
                return .failure(
                    InputTextError(message: "input \"\(name)\" must be an integer \(range), got \(shown(text))\(remedy)", outOfRange: true))
            }
        case .number:
            if let problem = notJSONNumber(text, kind: "a number") { return .failure(problem) }
            // A JSON number always reads as a Double: infinite when it is too large for one.
            guard let number = Double(text) else {
                return .failure(InputTextError(message: "input \"\(name)\" must be a number, got \(shown(text))"))
            }
            // Too close to 0 for one, it reads as 0: not what was written unless that was 0.
            guard number.isFinite, !NumberRange.underflows(text, readAs: number) else {
                return .failure(
                    InputTextError(message: "input \"\(name)\" must be a number a 64-bit float holds, got \(shown(text))", outOfRange: true))
            }
            return .success(.double(number))
        case .boolean:
            switch text {
            case "true": return .success(.bool(true))
            case "false": return .success(.bool(false))
            default: return .failure(InputTextError(message: "input \"\(name)\" must be true or false, got \(shown(text))"))
            }
        case .array, .object, .any:
            let document: JSONDocument
            do {
                document = try JSONDocument.parse(text, file: "--input \(name)")
            } catch {
                if type == .any { return .success(.string(text)) }
                // The parser's reason may quote the text: not for a secret.
                let reason = secret ? "" : error.diagnostics.first.map { finding in
                    // "this position" of the parser's advice is the value's: say where in it.
                    let place = finding.location.map { $0.line > 1 ? " (line \($0.line), column \($0.column) of the value)" : " (character \($0.column) of the value)" } ?? ""
                    return ": \(finding.message)\(place)"
                } ?? ""
                let example = type == .array ? #"["a"]"# : #"{"key": "value"}"#
                return .failure(
                    InputTextError(message: "input \"\(name)\" must be a JSON \(type.rawValue)\(reason), e.g. --input '\(name)=\(example)'"))
            }
            // As in a file: json-c keeps the last of two equal keys, which would silently drop the first.
            if let duplicate = document.sourceMap.duplicateKeys.first {
                let which = secret ? "a key" : "key \"\(duplicate.key)\" (at \(duplicate.repeated), first at \(duplicate.first))"
                return .failure(InputTextError(message: "input \"\(name)\" repeats \(which) within one object; give each key once"))
            }
            return .success(document.value)
        }
    }

    /// Why `text` is not a number as JSON writes one (an optional `-`, digits without a leading zero, an optional
    /// fraction and exponent: `0`, `-1`, `1.5`, `1e3`), or nil when it is one. `Double(_:)` reads more (`+1`, `.5`,
    /// `1.`, `01`, `inf`, hexadecimal); a number in such a spelling is answered with its JSON spelling.
    private func notJSONNumber(_ text: String, kind: String) -> InputTextError? {
        guard !JSONNumberText.isNumber(text) else { return nil }
        guard let spelling = JSONNumberText.spelling(of: text) else {
            return InputTextError(message: "input \"\(name)\" must be \(kind), got \(shown(text))")
        }
        guard !secret else {
            return InputTextError(
                message: "input \"\(name)\" must be \(kind) written as JSON writes one (no sign but a leading -, no leading zeros, digits on both sides of a point), got \(shown(text))")
        }
        return InputTextError(
            message: "input \"\(name)\" must be \(kind) written as JSON writes one, got \"\(text)\"; write \"\(spelling)\"")
    }

    /// The text as a message quotes it; a secret input's is never shown.
    private func shown(_ text: String) -> String {
        secret ? "a value not shown here (the input is secret)" : "\"\(text)\""
    }
}
