import MatterFlowJSON

/// Why a command-line text is not a value of an input's declared type.
public struct InputTextError: Error, Sendable, Hashable {
    /// What was expected, naming the input and the text.
    public var message: String
}

extension InputDeclaration {
    /// A value given as text (`--input NAME=VALUE`) read as this input's declared type: strings as they are,
    /// numbers and booleans parsed, arrays and objects as JSON (an `any` input falls back to the text).
    public func value(fromText text: String) -> Result<JSONValue, InputTextError> {
        switch type {
        case .string, .onboardingPayload:
            return .success(.string(text))
        case .integer:
            guard let number = Int(text) else { return .failure(InputTextError(message: "input \"\(name)\" must be an integer, got \"\(text)\"")) }
            return .success(.int(number))
        case .number:
            guard let number = Double(text), number.isFinite else {
                return .failure(InputTextError(message: "input \"\(name)\" must be a number, got \"\(text)\""))
            }
            return .success(.double(number))
        case .boolean:
            switch text {
            case "true": return .success(.bool(true))
            case "false": return .success(.bool(false))
            default: return .failure(InputTextError(message: "input \"\(name)\" must be true or false, got \"\(text)\""))
            }
        case .array, .object, .any:
            do {
                return .success(try JSONDocument.parse(text, file: "--input \(name)").value)
            } catch {
                if type == .any { return .success(.string(text)) }
                return .failure(
                    InputTextError(message: "input \"\(name)\" must be a JSON \(type.rawValue), e.g. --input '\(name)=[\"a\"]'"))
            }
        }
    }
}
