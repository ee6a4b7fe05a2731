/// Words a writer uses for one of a file format's names without misspelling it: the name another workflow language
/// gives the same thing (Step Functions' `Task` for an action state, `Catch` for `onError`) or a common short form
/// (`int` for `integer`). ``SpellingSuggestion`` consults them before spelling distance, which would otherwise
/// offer whatever name happens to look alike (`ask` for `Task`, `retry` for XState's `entry`).
///
/// Words match whatever their case. An entry suggests the first of its targets that is allowed where the word was
/// written; its note, if any, says how the format does that thing, and is shown when no target is allowed there (or
/// beside the suggestion, when it adds what a bare name would not tell).
public struct SpellingSynonyms: Sendable {
    /// What one word stands for.
    public struct Entry: Sendable {
        /// The names the word stands for, the likeliest first.
        public let targets: [String]
        /// How the format does what the word means elsewhere, for a word with no one name of its own here.
        public let note: String?
        /// Whether the note is shown beside a suggested target too.
        public let noteWithTarget: Bool

        /// An entry for `targets`, with an optional `note`.
        public init(_ targets: [String], note: String? = nil, noteWithTarget: Bool = false) {
            self.targets = targets
            self.note = note
            self.noteWithTarget = noteWithTarget
        }
    }

    /// Entries by lowercased word.
    private let entries: [String: Entry]

    /// A table of `entries` by word; a word listed twice keeps its first entry.
    public init(_ entries: [(words: [String], entry: Entry)]) {
        var table: [String: Entry] = [:]
        for (words, entry) in entries {
            for word in words where table[word.lowercased()] == nil { table[word.lowercased()] = entry }
        }
        self.entries = table
    }

    /// No synonyms: suggestions by spelling alone.
    public static let none = SpellingSynonyms([])

    /// The entry for `word`, whatever its case.
    public func entry(for word: String) -> Entry? { entries[word.lowercased()] }

    /// Both tables' entries; for a word in both, this table's targets come first and its note wins.
    public func merging(_ other: SpellingSynonyms) -> SpellingSynonyms {
        SpellingSynonyms(
            table: entries.merging(other.entries) { mine, theirs in
                Entry(mine.targets + theirs.targets, note: mine.note ?? theirs.note, noteWithTarget: mine.noteWithTarget)
            })
    }

    private init(table: [String: Entry]) {
        entries = table
    }

    /// The type names JSON-minded writers use for `string`, `integer`, `number`, `boolean`, `array` and `object`.
    public static let valueTypes = SpellingSynonyms([
        (["int", "int32", "int64", "long", "uint"], Entry(["integer"])),
        (["float", "double", "decimal", "real"], Entry(["number"])),
        (["bool"], Entry(["boolean"])),
        (["str", "text"], Entry(["string"])),
        (["list", "sequence"], Entry(["array"])),
        (["dict", "map", "record", "struct"], Entry(["object"])),
    ])
}
