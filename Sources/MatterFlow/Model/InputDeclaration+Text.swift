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
        case .string, .onboardingPayload:
            return .success(.string(text))
        case .integer:
            if let number = Int(text) { return .success(.int(number)) }
            // As in JSON, a whole number written with a fraction or an exponent (`30.0`, `3e1`) is an integer.
            guard let number = Self.decimal(text), number.isInfinite || number.rounded(.towardZero) == number else {
                return .failure(InputTextError(message: "input \"\(name)\" must be an integer, got \"\(text)\""))
            }
            guard let whole = Int(exactly: number) else {
                return .failure(
                    InputTextError(
                        message: "input \"\(name)\" must be an integer from \(Int.min) to \(Int.max), got \"\(text)\"", outOfRange: true))
            }
            return .success(.int(whole))
        case .number:
            guard let number = Self.decimal(text) else {
                return .failure(InputTextError(message: "input \"\(name)\" must be a number, got \"\(text)\""))
            }
            guard number.isFinite else {
                return .failure(
                    InputTextError(message: "input \"\(name)\" must be a number a 64-bit float holds, got \"\(text)\"", outOfRange: true))
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

    /// A number written as JSON writes one (digits, a sign, a fraction, an exponent), as a float: not `inf`, `nan`
    /// or hexadecimal, which `Double(_:)` takes too. Infinite when it is too large for one.
    private static func decimal(_ text: String) -> Double? {
        guard !text.isEmpty, text.unicodeScalars.allSatisfy({ "+-0123456789.eE".unicodeScalars.contains($0) }) else { return nil }
        return Double(text)
    }
}
