/// Collects the findings about one document while it is decoded, so every problem is reported, not only the first.
public final class DiagnosticCollector {
    /// The document the findings are about: its file names them, and its source map gives their line and column.
    public let document: JSONDocument
    public private(set) var diagnostics: [Diagnostic] = []
    /// Where each part of the document stands, found by scanning its text when the first finding needs it.
    private lazy var locations = document.sourceMap.locations()

    /// The other names writers give this document's names, consulted before spelling distance by the hints of
    /// ``ObjectReader/finish()`` and of the decoder (``SpellingSuggestion/hint(for:among:synonyms:)``).
    public var synonyms = SpellingSynonyms.none

    /// Creates a collector for `document` that holds no findings yet.
    public init(document: JSONDocument) {
        self.document = document
    }

    /// Whether an error has been recorded.
    public var hasErrors: Bool { diagnostics.hasErrors }

    /// Records a finding at a pointer; `atKey` places it on the member's key rather than its value.
    public func report(
        _ severity: Diagnostic.Severity, _ code: String, at pointer: String, atKey: Bool = false, _ message: String
    ) {
        diagnostics.append(
            Diagnostic(
                severity: severity, code: code, message: message, file: document.file, pointer: pointer,
                location: locations.location(of: pointer, preferKey: atKey)))
    }

    /// Records an error.
    public func error(_ code: String, at pointer: String, atKey: Bool = false, _ message: String) {
        report(.error, code, at: pointer, atKey: atKey, message)
    }

    /// Records a warning.
    public func warning(_ code: String, at pointer: String, atKey: Bool = false, _ message: String) {
        report(.warning, code, at: pointer, atKey: atKey, message)
    }

    /// Adds findings made elsewhere.
    public func append(contentsOf other: [Diagnostic]) {
        diagnostics.append(contentsOf: other)
    }

    /// A number value that must lie in `range`, or nil after reporting why not (`wrongType`, `numberOutOfRange`).
    ///
    /// - Parameter what: The value's name for messages, such as `"timeoutSeconds"` in quotes.
    public func number(_ value: JSONValue, at pointer: String, in range: NumberRange, what: String) -> Double? {
        guard let number = value.doubleValue else {
            error(DiagnosticCode.wrongType, at: pointer, "\(what) must be a number, found \(value.typeName)")
            return nil
        }
        if case .int(let integer) = value, let problem = range.problem(with: integer) {
            error(DiagnosticCode.numberOutOfRange, at: pointer, problem)
            return nil
        }
        if let problem = range.problem(with: number) {
            error(DiagnosticCode.numberOutOfRange, at: pointer, problem)
            return nil
        }
        return number
    }

    /// A whole-number value that must lie in `range`, or nil after reporting why not (`wrongType`,
    /// `numberOutOfRange`).
    public func integer(_ value: JSONValue, at pointer: String, in range: NumberRange, what: String) -> Int? {
        switch value {
        case .int(let integer):
            if let problem = range.problem(with: integer) {
                error(DiagnosticCode.numberOutOfRange, at: pointer, problem)
                return nil
            }
            return integer
        case .double(let number):
            guard number.isFinite, number.rounded() == number else {
                error(
                    number.isFinite ? DiagnosticCode.wrongType : DiagnosticCode.numberOutOfRange, at: pointer,
                    "\(what) must be a whole number in \(range), found \(NumberRange.format(number))")
                return nil
            }
            if let problem = range.problem(with: number) {
                error(DiagnosticCode.numberOutOfRange, at: pointer, problem)
                return nil
            }
            // Within the range's bounds (±2^53) and whole, so the conversion is exact.
            return Int(number)
        case .null, .bool, .string, .array, .object:
            error(DiagnosticCode.wrongType, at: pointer, "\(what) must be an integer, found \(value.typeName)")
            return nil
        }
    }

    /// Reads an object at a pointer, or reports a type error and returns nil.
    public func object(_ value: JSONValue, at pointer: String, what: String) -> ObjectReader? {
        guard case .object(let object) = value else {
            error(DiagnosticCode.wrongType, at: pointer, "\(what) must be an object, found \(value.typeName)")
            return nil
        }
        return ObjectReader(object: object, pointer: pointer, collector: self)
    }
}

/// Suggests the closest of some candidates to a misspelled name.
public enum SpellingSuggestion {
    /// The nearest candidate within a small edit distance, if any; never one as many edits away as the longer of
    /// the two is long (`a` for `c`, `b` for `xy`), which is another word rather than a typo.
    /// A word cut short (`failedPrecon`) of one candidate alone is taken for it too, unless `strict`: then only a
    /// candidate one or two edits away (a typo, not another word).
    public static func closest(to word: String, among candidates: some Sequence<String>, strict: Bool = false) -> String? {
        closestAll(to: word, among: candidates, strict: strict).first
    }

    /// The candidate `synonyms` give for `word`, if one of its targets is among the candidates; otherwise the one
    /// equal to it but for case, or the nearest by spelling (``closest(to:among:strict:)``).
    public static func closest(
        to word: String, among candidates: some Sequence<String>, synonyms: SpellingSynonyms
    ) -> String? {
        let candidates = Array(candidates)
        if let entry = synonyms.entry(for: word), let target = entry.targets.first(where: candidates.contains) {
            return target
        }
        return closest(to: word, among: candidates)
    }

    /// Every candidate as near as ``closest(to:among:strict:)``'s, in the order given: `runz` is as near `run` as
    /// `runs`.
    public static func closestAll(to word: String, among candidates: some Sequence<String>, strict: Bool = false) -> [String] {
        let limit = strict ? 2 : max(2, word.count / 3)
        var best: [String] = []
        var bestDistance = Int.max
        var extending: [String] = []
        let lowered = word.lowercased()
        for candidate in candidates {
            let other = candidate.lowercased()
            let distance = editDistance(lowered, other)
            // A candidate every character of which differs (`a` for `c`) is another word, not a typo of it.
            if distance <= limit, distance < max(lowered.count, other.count), distance <= bestDistance, !best.contains(candidate) {
                if distance < bestDistance { best = [] }
                best.append(candidate)
                bestDistance = distance
            }
            if lowered.count >= 4, other.count > lowered.count, other.hasPrefix(lowered), !extending.contains(candidate) {
                extending.append(candidate)
            }
        }
        if !best.isEmpty { return best }
        return extending.count == 1 && !strict ? extending : []
    }

    /// ` (did you mean "x"?)` or an empty string. The question is in parentheses, so that whatever a message goes on
    /// with (`; bind it ...`, ` (inputs: ...)`) never follows a question mark with a semicolon.
    public static func hint(for word: String, among candidates: some Sequence<String>) -> String {
        closest(to: word, among: candidates).map { question($0, then: unseenDifference(word, $0)) } ?? ""
    }

    /// What tells `word` from `candidate` when it is hard to see: the characters outside ASCII that one holds and the
    /// other does not (a Cyrillic `о` for a Latin `o`, a zero-width space, `é` composed for `e` and an accent), each
    /// named by code point and Unicode name; nil when they hold the same ones.
    static func unseenDifference(_ word: String, _ candidate: String) -> String? {
        func only(_ text: String, notIn other: String) -> [Unicode.Scalar] {
            var seen = Set<Unicode.Scalar>()
            let others = Set(other.unicodeScalars)
            return text.unicodeScalars.filter { !$0.isASCII && !others.contains($0) && seen.insert($0).inserted }
        }
        func held(_ scalars: [Unicode.Scalar]) -> String { scalars.map(\.codePointAndName).joined(separator: ", ") }
        let given = only(word, notIn: candidate)
        let suggested = only(candidate, notIn: word)
        switch (given.isEmpty, suggested.isEmpty) {
        case (true, true): return nil
        case (false, true): return "the name given holds \(held(given)), which \"\(candidate)\" does not"
        case (true, false): return "\"\(candidate)\" holds \(held(suggested)), which the name given does not"
        case (false, false): return "the name given holds \(held(given)), and \"\(candidate)\" holds \(held(suggested)) instead"
        }
    }

    /// ` (did you mean "x"?)` for the candidate ``closest(to:among:synonyms:)`` finds, the synonym's note inside the
    /// parentheses as a sentence of its own when it has one to add (` (did you mean "action"? An action state ...)`);
    /// `; ` and the note alone when no target of the word's is allowed here; or an empty string.
    public static func hint(for word: String, among candidates: some Sequence<String>, synonyms: SpellingSynonyms) -> String {
        let candidates = Array(candidates)
        let entry = synonyms.entry(for: word)
        if let entry, let target = entry.targets.first(where: candidates.contains) {
            return question(target, then: entry.noteWithTarget ? entry.note : nil)
        }
        if let note = entry?.note { return "; \(note)" }
        return hint(for: word, among: candidates)
    }

    /// ` (did you mean "x"?)`, with `then` after the question, as a sentence starting with a capital, when given.
    public static func question(_ candidate: String, then note: String? = nil) -> String {
        let sentence = note.map { " " + $0.prefix(1).uppercased() + $0.dropFirst() } ?? ""
        return " (did you mean \"\(candidate)\"?\(sentence))"
    }

    /// The fewest insertions, deletions, substitutions and swaps of two neighbours that turn one word into the other.
    static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let left = Array(lhs)
        let right = Array(rhs)
        if left.isEmpty { return right.count }
        if right.isEmpty { return left.count }
        // Rows i - 2, i - 1 and i of the table; two neighbours swapped (`rnu` for `run`) count as one edit.
        var beforePrevious = [Int](repeating: 0, count: right.count + 1)
        var previous = Array(0...right.count)
        var current = [Int](repeating: 0, count: right.count + 1)
        for i in 1...left.count {
            current[0] = i
            for j in 1...right.count {
                let substitution = previous[j - 1] + (left[i - 1] == right[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
                if i > 1, j > 1, left[i - 1] == right[j - 2], left[i - 2] == right[j - 1] {
                    current[j] = min(current[j], beforePrevious[j - 2] + 1)
                }
            }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[right.count]
    }
}
