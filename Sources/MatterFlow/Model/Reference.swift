/// A `${root.path}` reference to run data.
///
/// Roots: `input` (the run's inputs), `vars` (variables bound by `result` and `assign`), `error` (the error
/// that led to the current state: `code`, `cause`, `message`, `state`), and `run` (`id`, `workflow`,
/// `structureID`). Paths continue with `.member` or `[index]`; arrays also have `.count`.
public struct Reference: Sendable, Hashable, CustomStringConvertible {
    /// What a reference starts from.
    public enum Root: String, Sendable, Hashable, CaseIterable {
        /// `input`: the run's inputs; `vars`: the variables; `error`: the error that led to the current state; `run`:
        /// the run's `id`, `workflow` and `structureID`.
        case input, vars, error, run
    }

    /// One step of a path after the root.
    public enum Segment: Sendable, Hashable {
        /// `.name`: a member of an object, or `count` of an array.
        case member(String)
        /// `[i]`: an element of an array.
        case index(Int)
    }

    /// What the reference starts from.
    public var root: Root
    /// The steps after the root, in order.
    public var path: [Segment]

    /// A reference from its parts.
    public init(root: Root, path: [Segment]) {
        self.root = root
        self.path = path
    }

    /// The reference as written, without `${` and `}`.
    public var description: String {
        var text = root.rawValue
        for segment in path {
            switch segment {
            case .member(let name): text += "." + name
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }

    /// The first member after the root (the input or variable name), if any.
    public var head: String? {
        if case .member(let name)? = path.first { return name }
        return nil
    }

    /// Why a reference could not be parsed.
    public struct ParseError: Error, Sendable {
        /// What is wrong with the text, for a diagnostic.
        public var message: String
    }

    /// Parses the text between `${` and `}`.
    public static func parse(_ text: String) throws(ParseError) -> Reference {
        if let plain = parsePlain(text) { return plain }
        var characters = Substring(text.trimmingSpaces())
        func identifier() -> String {
            // Names are almost always ASCII: take those bytes directly, unless a non-ASCII character follows
            // (it may be a letter, or combine with the last byte), which the character test below decides.
            let asciiLength = characters.utf8.prefix(while: Self.isASCIINameByte).count
            if characters.utf8.dropFirst(asciiLength).first.map({ $0 < 0x80 }) ?? true {
                let end = characters.utf8.index(characters.startIndex, offsetBy: asciiLength)
                defer { characters = characters[end...] }
                return String(characters[..<end])
            }
            let name = characters.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
            characters = characters.dropFirst(name.count)
            return String(name)
        }
        let rootName = identifier()
        guard let root = Root(rawValue: rootName) else {
            throw ParseError(
                message: "\"\(rootName)\" is not a reference root; use input, vars, error or run (as in ${input.name})")
        }
        var path: [Segment] = []
        while let first = characters.first {
            if first == "." {
                characters = characters.dropFirst()
                let name = identifier()
                guard !name.isEmpty else { throw ParseError(message: "expected a name after \".\" in ${\(text)}") }
                path.append(.member(name))
            } else if first == "[" {
                characters = characters.dropFirst()
                let digits = characters.prefix { $0.isNumber }
                characters = characters.dropFirst(digits.count)
                guard let index = Int(digits), characters.first == "]" else {
                    throw ParseError(message: "expected an index like [0] in ${\(text)}")
                }
                characters = characters.dropFirst()
                path.append(.index(index))
            } else {
                throw ParseError(message: "unexpected \"\(first)\" in ${\(text)}; paths use .name and [index]")
            }
        }
        if root != .error, root != .run, path.isEmpty {
            throw ParseError(message: "${\(text)} names no \(root == .input ? "input" : "variable"); write ${\(rootName).name}")
        }
        return Reference(root: root, path: path)
    }
}

extension Reference {
    /// Whether `name` can be read as an input or variable name in `${...}`: not empty, and only letters, digits, `_`
    /// and `-` (`a.b` or `r[0]` would be read as a path).
    public static func isName(_ name: String) -> Bool {
        !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
    }

    /// The common case, read straight from the bytes: ASCII names joined by single dots (`vars.device.id`), a
    /// root and, unless it is `error` or `run`, at least one member. Anything else (spaces, indexes, other
    /// characters, empty names, an unknown root) is nil, for ``parse(_:)`` to read or reject as it always has.
    fileprivate static func parsePlain(_ text: String) -> Reference? {
        // The root once the first dot is passed, and the members read since; nothing is collected twice.
        var root: Root?
        var path: [Segment] = []
        var start = text.utf8.startIndex
        for index in text.utf8.indices {
            let byte = text.utf8[index]
            if byte == UInt8(ascii: ".") {
                guard index > start else { return nil }
                if root == nil {
                    guard let named = Root(rawValue: String(text[start..<index])) else { return nil }
                    root = named
                } else {
                    path.append(.member(String(text[start..<index])))
                }
                start = text.utf8.index(after: index)
            } else if !isASCIINameByte(byte) {
                return nil
            }
        }
        guard start < text.utf8.endIndex else { return nil }
        guard let root else {
            // A root alone: only those that are values themselves.
            guard let named = Root(rawValue: String(text[start...])), named == .error || named == .run else { return nil }
            return Reference(root: named, path: [])
        }
        path.append(.member(String(text[start...])))
        return Reference(root: root, path: path)
    }

    /// Whether an ASCII byte may be part of a name: a letter, a digit, `_` or `-`.
    fileprivate static func isASCIINameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }
}

extension String {
    fileprivate func trimmingSpaces() -> Substring {
        let trimmed = drop { $0 == " " }
        return trimmed.dropLast(trimmed.reversed().prefix { $0 == " " }.count)
    }
}
