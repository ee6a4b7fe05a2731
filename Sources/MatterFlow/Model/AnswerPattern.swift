/// The `pattern` of a text answer: a regular expression in a small subset, matched in linear time.
///
/// The whole answer must match (as if the pattern were written `^(?:...)$`; a leading `^` and a trailing `$` are
/// accepted and change nothing). The subset:
///
/// - literal characters, and `\` before any ASCII punctuation for that character itself (`\.`, `\(`, `\\`);
///   `\n`, `\r`, `\t` for a line feed, carriage return and tab;
/// - `.`: any one character except a line feed;
/// - classes `[a-z0-9_]`, negated `[^...]` (a `-` first or last is itself; `\]`, `\-`, `\\`, `\^` inside);
/// - `\d` (ASCII digits), `\w` (ASCII letters, digits, `_`), `\s` (space, tab, line feed, carriage return, vertical
///   tab, form feed), and their negations `\D`, `\W`, `\S`, also inside classes;
/// - groups `( )` and `(?: )` (there are no captures: both only group), alternation `|`;
/// - quantifiers `*`, `+`, `?`, `{m}`, `{m,}`, `{m,n}` with `n` at most ``maxRepeat``.
///
/// "One character" is one Unicode scalar. Anything else (backreferences, lookaround, lazy or possessive
/// quantifiers, Unicode properties, inline flags, named groups, POSIX classes) is refused with an
/// ``AnswerPatternError`` that names the construct and what to write instead.
///
/// Matching simulates every alternative at once over the compiled program (a Thompson NFA), so its cost is at most
/// the program's size times the answer's length, whatever the pattern: there is no backtracking to blow up. The
/// program is bounded (``maxInstructions``) and groups may nest at most ``maxNesting`` deep, so compiling is bounded
/// too.
public struct AnswerPattern: Sendable, Hashable, CustomStringConvertible {
    /// The pattern as written.
    public let source: String
    /// The compiled program.
    let program: AnswerPatternProgram

    /// The longest pattern accepted, in Unicode scalars.
    public static let maxLength = 1024
    /// The largest count a `{m,n}` quantifier may give.
    public static let maxRepeat = 1000
    /// The largest program a pattern may compile to (each character, class or `.` is one instruction, counted once
    /// per repetition; each `|`, `*`, `+`, `?` and optional repetition adds one or two).
    public static let maxInstructions = 10_000
    /// How deep groups may nest.
    public static let maxNesting = 32

    /// Compiles a pattern.
    ///
    /// - Throws: ``AnswerPatternError`` for syntax outside the subset, a malformed pattern, or one beyond the
    ///   limits.
    public init(_ source: String) throws(AnswerPatternError) {
        self.source = source
        let node = try AnswerPatternParser.parse(source)
        self.program = try AnswerPatternProgram(compiling: node)
    }

    /// Whether the whole of `text` matches.
    public func matches(_ text: String) -> Bool {
        program.matches(text.unicodeScalars)
    }

    /// The pattern as written (``source``).
    public var description: String { source }

    /// Patterns are equal when written the same (their ``source``), not when they match the same answers.
    public static func == (lhs: AnswerPattern, rhs: AnswerPattern) -> Bool { lhs.source == rhs.source }

    /// Hashes the pattern as written (``source``).
    public func hash(into hasher: inout Hasher) { hasher.combine(source) }
}
