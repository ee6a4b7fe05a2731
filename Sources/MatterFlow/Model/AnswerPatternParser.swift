/// A parsed answer pattern, before it is compiled.
indirect enum AnswerPatternNode: Sendable {
    /// Matches the empty text (an empty pattern, group or alternative).
    case empty
    /// One scalar of the set.
    case one(AnswerPatternSet)
    /// Each in turn.
    case sequence([AnswerPatternNode])
    /// Any one of them.
    case alternation([AnswerPatternNode])
    /// The node `min` to `max` times (`max` nil: no upper bound).
    case repetition(AnswerPatternNode, min: Int, max: Int?)
}

/// Reads an answer pattern into an ``AnswerPatternNode``, refusing what the subset leaves out (see
/// ``AnswerPattern``) with the position and a way to write it instead.
///
/// Recursive descent over the pattern's scalars; recursion happens only at a group, and groups may nest at most
/// ``AnswerPattern/maxNesting`` deep, so no pattern can exhaust the stack.
struct AnswerPatternParser {
    private let scalars: [Unicode.Scalar]
    /// The next scalar to read.
    private var index: Int
    /// Where the pattern's body ends (before a trailing `$`).
    private let end: Int
    /// How many groups enclose the current position.
    private var depth = 0

    private init(scalars: [Unicode.Scalar], start: Int, end: Int) {
        self.scalars = scalars
        self.index = start
        self.end = end
    }

    /// Parses a whole pattern; a leading `^` and a trailing unescaped `$` are accepted and dropped.
    static func parse(_ source: String) throws(AnswerPatternError) -> AnswerPatternNode {
        let scalars = Array(source.unicodeScalars)
        guard scalars.count <= AnswerPattern.maxLength else {
            throw AnswerPatternError(
                position: AnswerPattern.maxLength + 1,
                "the pattern is longer than \(AnswerPattern.maxLength) characters; write a shorter one")
        }
        let start = scalars.first == "^" ? 1 : 0
        var end = scalars.count
        if end > start, scalars[end - 1] == "$", !isEscaped(scalars, at: end - 1, from: start) { end -= 1 }
        var parser = AnswerPatternParser(scalars: scalars, start: start, end: end)
        let node = try parser.parseAlternation()
        if parser.index < end {
            // Only a `)` stops the top level early.
            throw parser.error(at: parser.index, "this ) closes no group; write \\) for a literal parenthesis")
        }
        return node
    }

    /// Whether the scalar at `position` follows an odd number of backslashes.
    private static func isEscaped(_ scalars: [Unicode.Scalar], at position: Int, from start: Int) -> Bool {
        var count = 0
        var cursor = position - 1
        while cursor >= start, scalars[cursor] == "\\" {
            count += 1
            cursor -= 1
        }
        return count % 2 == 1
    }

    private var peek: Unicode.Scalar? { index < end ? scalars[index] : nil }

    private func peek(_ offset: Int) -> Unicode.Scalar? { index + offset < end ? scalars[index + offset] : nil }

    private func error(at position: Int, _ message: String) -> AnswerPatternError {
        AnswerPatternError(position: position + 1, message)
    }

    // MARK: - Alternation, sequence, atoms

    private mutating func parseAlternation() throws(AnswerPatternError) -> AnswerPatternNode {
        var branches = [try parseSequence()]
        while peek == "|" {
            index += 1
            branches.append(try parseSequence())
        }
        return branches.count == 1 ? branches[0] : .alternation(branches)
    }

    private mutating func parseSequence() throws(AnswerPatternError) -> AnswerPatternNode {
        var items: [AnswerPatternNode] = []
        while let scalar = peek, scalar != "|", scalar != ")" {
            let atom = try parseAtom()
            items.append(try parseQuantifier(applyingTo: atom))
        }
        switch items.count {
        case 0: return .empty
        case 1: return items[0]
        default: return .sequence(items)
        }
    }

    private mutating func parseAtom() throws(AnswerPatternError) -> AnswerPatternNode {
        let start = index
        guard let scalar = peek else { return .empty }
        index += 1
        switch scalar {
        case "(":
            return try parseGroup(openedAt: start)
        case "[":
            return .one(try parseClass(openedAt: start))
        case ".":
            return .one(.anyButLineFeed)
        case "\\":
            switch try parseEscape(at: start, inClass: false) {
            case .scalar(let scalar): return .one(AnswerPatternSet(scalar))
            case .set(let set): return .one(set)
            }
        case "*", "+", "?":
            throw error(at: start, "\(scalar) repeats nothing here; put it after what it repeats, or write \\\(scalar) for the character")
        case "{":
            throw error(at: start, "{ repeats nothing here; put a count such as {2,5} after what it repeats, or write \\{ for the character")
        case "^":
            throw error(at: start, "^ is accepted only at the start of the pattern (the whole answer must match anyway); write \\^ for the character")
        case "$":
            throw error(at: start, "$ is accepted only at the end of the pattern (the whole answer must match anyway); write \\$ for the character")
        default:
            return .one(AnswerPatternSet(scalar))
        }
    }

    /// After `(`: a group, `(?:...)`, or a refused kind of group.
    private mutating func parseGroup(openedAt start: Int) throws(AnswerPatternError) -> AnswerPatternNode {
        if peek == "?" {
            let kind = peek(1)
            switch kind {
            case ":":
                index += 2
            case "=", "!":
                throw error(at: start, "lookahead (?\(kind.map(String.init) ?? "")...) is not supported; describe the whole answer instead, with alternatives (a|b) and classes")
            case "<" where peek(2) == "=" || peek(2) == "!":
                throw error(at: start, "lookbehind (?<\(peek(2).map(String.init) ?? "")...) is not supported; describe the whole answer instead, with alternatives (a|b) and classes")
            case "<", "P", "'":
                throw error(at: start, "named groups are not supported (there are no captures); write (...) or (?:...)")
            case ">":
                throw error(at: start, "atomic groups (?>...) are not supported (matching never backtracks); write (?:...)")
            case "#":
                throw error(at: start, "comments (?#...) are not supported; leave the comment out")
            default:
                throw error(at: start, "inline options such as (?i) are not supported; write each case in a class, such as [Aa], and (?:...) for a group")
            }
        }
        depth += 1
        guard depth <= AnswerPattern.maxNesting else {
            throw error(at: start, "groups are nested more than \(AnswerPattern.maxNesting) deep; write a flatter pattern")
        }
        let node = try parseAlternation()
        guard peek == ")" else {
            throw error(at: start, "this ( is never closed; add a ) or write \\( for the character")
        }
        index += 1
        depth -= 1
        return node
    }

    /// Reads quantifiers after an atom: one at most, then refuses a lazy or possessive mark or a second one.
    private mutating func parseQuantifier(applyingTo atom: AnswerPatternNode) throws(AnswerPatternError) -> AnswerPatternNode {
        let start = index
        let bounds: (min: Int, max: Int?)
        switch peek {
        case "*":
            index += 1
            bounds = (0, nil)
        case "+":
            index += 1
            bounds = (1, nil)
        case "?":
            index += 1
            bounds = (0, 1)
        case "{":
            bounds = try parseCount()
        default:
            return atom
        }
        let written = String(String.UnicodeScalarView(scalars[start..<index]))
        switch peek {
        case "?":
            throw error(at: index, "lazy quantifiers (\(written)?) are not supported and change nothing when the whole answer must match; write \(written)")
        case "+":
            throw error(at: index, "possessive quantifiers (\(written)+) are not supported; write \(written)")
        case "*", "{":
            throw error(at: index, "a quantifier cannot follow \(written) directly; put the repeated part in a group, such as (?:a\(written))*")
        default:
            break
        }
        return .repetition(atom, min: bounds.min, max: bounds.max)
    }

    /// After an atom, at `{`: `{m}`, `{m,}` or `{m,n}`.
    private mutating func parseCount() throws(AnswerPatternError) -> (min: Int, max: Int?) {
        let start = index
        index += 1
        guard let low = parseNumber() else {
            if peek == "," {
                throw error(at: start, "a count needs its lower bound; write {0,n}")
            }
            throw error(at: start, "{ starts a count such as {2} or {2,5}; write \\{ for the character")
        }
        var high: Int? = low
        if peek == "," {
            index += 1
            high = parseNumber()
        }
        guard peek == "}" else {
            throw error(at: start, "a count is {m}, {m,} or {m,n} with whole numbers; write \\{ for the character")
        }
        index += 1
        for bound in [low, high ?? low] where bound > AnswerPattern.maxRepeat {
            throw error(at: start, "a count is at most \(AnswerPattern.maxRepeat), not \(bound); use + or * for no upper bound")
        }
        if let high, high < low {
            throw error(at: start, "the count {\(low),\(high)} is out of order; write {\(high),\(low)}")
        }
        return (low, high)
    }

    /// Decimal digits, saturating above ``AnswerPattern/maxRepeat`` (the caller refuses those); nil when none.
    private mutating func parseNumber() -> Int? {
        var value: Int?
        while let scalar = peek, ("0"..."9").contains(scalar) {
            value = min((value ?? 0) * 10 + Int(scalar.value - 0x30), AnswerPattern.maxRepeat + 1)
            index += 1
        }
        return value
    }

    // MARK: - Classes and escapes

    /// What an escape stands for: one scalar (usable as a range's end) or a set (`\d`).
    private enum Escaped {
        case scalar(Unicode.Scalar)
        case set(AnswerPatternSet)
    }

    /// After `[`: the class up to its `]`.
    private mutating func parseClass(openedAt start: Int) throws(AnswerPatternError) -> AnswerPatternSet {
        var negated = false
        if peek == "^" {
            negated = true
            index += 1
        }
        if peek == "]" {
            throw error(at: index, "a class cannot be empty; write \\] for the character ]")
        }
        var set = AnswerPatternSet([])
        while true {
            guard let scalar = peek else {
                throw error(at: start, "this [ is never closed; add a ] or write \\[ for the character")
            }
            let itemStart = index
            index += 1
            let item: Escaped
            switch scalar {
            case "]":
                return negated ? set.inverted : set
            case "[":
                throw error(at: itemStart, "[ inside a class (a POSIX class such as [:alpha:], or a nested set) is not supported; list the ranges, such as [A-Za-z], and write \\[ for the character")
            case "&" where peek == "&":
                throw error(at: itemStart, "class intersection && is not supported; list the ranges you mean, and write \\& for the character")
            case "\\":
                item = try parseEscape(at: itemStart, inClass: true)
            default:
                item = .scalar(scalar)
            }
            guard peek == "-", let after = peek(1), after != "]" else {
                switch item {
                case .scalar(let scalar): set = set.union(AnswerPatternSet(scalar))
                case .set(let members): set = set.union(members)
                }
                continue
            }
            guard case .scalar(let low) = item else {
                throw error(at: itemStart, "a range cannot start at a class such as \\d; write \\- for the character -")
            }
            index += 1
            let highStart = index
            index += 1
            var high = after
            if after == "\\" {
                guard case .scalar(let escaped) = try parseEscape(at: highStart, inClass: true) else {
                    throw error(at: highStart, "a range cannot end at a class such as \\d; write \\- for the character -")
                }
                high = escaped
            } else if after == "[" {
                throw error(at: highStart, "[ inside a class is not supported; write \\[ for the character")
            }
            guard low.value <= high.value else {
                throw error(at: itemStart, "the range \(low)-\(high) is out of order; write \(high)-\(low)")
            }
            set = set.union(AnswerPatternSet([low.value...high.value]))
        }
    }

    /// After `\` (at `start`): the escaped character or class.
    private mutating func parseEscape(at start: Int, inClass: Bool) throws(AnswerPatternError) -> Escaped {
        guard let scalar = peek else {
            throw error(at: start, "the pattern cannot end with a lone \\; write \\\\ for a backslash")
        }
        index += 1
        switch scalar {
        case "d": return .set(.digits)
        case "D": return .set(AnswerPatternSet.digits.inverted)
        case "w": return .set(.wordCharacters)
        case "W": return .set(AnswerPatternSet.wordCharacters.inverted)
        case "s": return .set(.whitespace)
        case "S": return .set(AnswerPatternSet.whitespace.inverted)
        case "n": return .scalar("\n")
        case "r": return .scalar("\r")
        case "t": return .scalar("\t")
        case "1"..."9":
            throw error(at: start, "backreferences such as \\\(scalar) are not supported; write the group's pattern again")
        case "k":
            throw error(at: start, "named backreferences (\\k) are not supported; write the group's pattern again")
        case "b", "B":
            if inClass {
                throw error(at: start, "\\\(scalar) is not supported in a class; write the character itself")
            }
            throw error(at: start, "word boundaries (\\\(scalar)) are not supported; describe the whole answer with classes such as \\w and \\s")
        case "A", "z", "Z", "G":
            throw error(at: start, "the anchor \\\(scalar) is not supported; leave it out (the whole answer must match anyway)")
        case "p", "P":
            throw error(at: start, "Unicode properties (\\\(scalar){...}) are not supported; list the characters in a class, such as [A-Za-z]")
        case "x", "u", "U", "0", "o", "N":
            throw error(at: start, "character codes (\\\(scalar)...) are not supported; write the character itself")
        case "Q", "E":
            throw error(at: start, "quoting (\\Q...\\E) is not supported; write \\ before each special character")
        default:
            if scalar.isASCII, !scalar.properties.isAlphabetic, !("0"..."9").contains(scalar), scalar.value >= 0x20,
                scalar.value < 0x7F
            {
                return .scalar(scalar)
            }
            throw error(at: start, "the escape \\\(scalar) is not supported; write the character itself, or \\ before punctuation only")
        }
    }
}
