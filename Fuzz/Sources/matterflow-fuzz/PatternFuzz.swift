import MatterFlow

/// Answer patterns: the input's first line compiled as a text answer's `pattern`, then matched against the rest
/// of the input and against pieces of it (up to an answer's longest, 4096 characters), so that arbitrary patterns
/// meet arbitrary answers. A refused pattern must come with a position inside it.
enum PatternFuzz {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
        let source = String(parts.first ?? "")
        let answer = String((parts.count > 1 ? parts[1] : "").prefix(4096))
        let pattern: AnswerPattern
        do {
            pattern = try AnswerPattern(source)
        } catch {
            let length = source.unicodeScalars.count
            if error.position < 1 || error.position > max(length, AnswerPattern.maxLength + 1) {
                fatalError("position \(error.position) is outside the pattern (\(length) characters): \(error)")
            }
            return
        }
        _ = pattern.matches(answer)
        _ = pattern.matches(source)
        _ = pattern.matches(String(answer.reversed()))
        _ = pattern.matches(String(repeating: String(answer.prefix(8)), count: 64).prefix(4096).description)
    }
}
