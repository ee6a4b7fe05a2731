/// Collects the findings about one document while it is decoded, so every problem is reported, not only the first.
public final class DiagnosticCollector {
    public let document: JSONDocument
    public private(set) var diagnostics: [Diagnostic] = []
    /// Where each part of the document stands, found by scanning its text when the first finding needs it.
    private lazy var locations = document.sourceMap.locations()

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
    /// The nearest candidate within a small edit distance, if any.
    public static func closest(to word: String, among candidates: some Sequence<String>) -> String? {
        let limit = max(2, word.count / 3)
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(word.lowercased(), candidate.lowercased())
            if distance <= limit, distance < (best?.1 ?? .max) { best = (candidate, distance) }
        }
        return best?.0
    }

    /// `; did you mean "x"?` or an empty string.
    public static func hint(for word: String, among candidates: some Sequence<String>) -> String {
        closest(to: word, among: candidates).map { "; did you mean \"\($0)\"?" } ?? ""
    }

    static func editDistance(_ lhs: String, _ rhs: String) -> Int {
        let left = Array(lhs)
        let right = Array(rhs)
        if left.isEmpty { return right.count }
        if right.isEmpty { return left.count }
        var previous = Array(0...right.count)
        var current = [Int](repeating: 0, count: right.count + 1)
        for i in 1...left.count {
            current[0] = i
            for j in 1...right.count {
                let substitution = previous[j - 1] + (left[i - 1] == right[j - 1] ? 0 : 1)
                current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
            }
            swap(&previous, &current)
        }
        return previous[right.count]
    }
}
