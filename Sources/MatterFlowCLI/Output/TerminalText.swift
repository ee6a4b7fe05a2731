import MatterFlowJSON

/// Text from files, hubs and datasets (network names, device names, messages) made safe for a terminal.
///
/// Such text may hold control characters: an ESC sequence recolours or rewrites the terminal, BEL rings, CR moves
/// back over what was printed, C1 controls (U+0080-U+009F) act as ESC sequences on some terminals, and bidirectional
/// overrides reorder what is shown. Each of these is printed as a `\u` escape (`\u001b`), the same escape JSON
/// uses, so JSON output that passes through stays valid JSON with the same meaning.
public enum TerminalText {
    /// `text` with every control character escaped as `\uXXXX`.
    ///
    /// - Parameter keepingLineBreaks: Keep LF (and tab) as they are, for text that is several lines on purpose
    ///   (help, listings, pretty JSON). Untrusted single-line values pass `false`, so that a value cannot start a
    ///   line that looks like the tool's own.
    public static func escaping(_ text: String, keepingLineBreaks: Bool = false) -> String {
        UnicodeEscaping.escaping(text) { needsEscape($0, keepingLineBreaks: keepingLineBreaks) }
    }

    /// How many columns a terminal gives `text` (already escaped): two for each wide East Asian character and
    /// each emoji shown as a picture, none for a zero-width space or joiner, one for every other character.
    public static func columns(_ text: String) -> Int {
        // Printable ASCII, what run IDs, statuses and times are: one column per byte.
        if text.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) { return text.utf8.count }
        var count = 0
        for character in text {
            guard let first = character.unicodeScalars.first else { continue }
            if isWide(first) || character.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation || $0.value == 0xFE0F }) {
                count += 2
            } else if first.value == 0x200B || first.value == 0x200D || first.value == 0xFEFF {
                continue
            } else {
                count += 1
            }
        }
        return count
    }

    /// Whether a terminal shows `scalar` two columns wide: the East Asian Wide and Fullwidth blocks.
    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x20000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// Whether the terminal would act on `scalar` rather than show it.
    static func needsEscape(_ scalar: Unicode.Scalar, keepingLineBreaks: Bool) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: return !keepingLineBreaks
        case 0x00...0x1F, 0x7F...0x9F: return true
        // Line and paragraph separators, bidirectional embeddings, overrides and isolates.
        case 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069, 0x200E, 0x200F, 0x061C: return true
        default: return false
        }
    }
}

/// A sink that escapes control characters (``TerminalText``) in everything written to it, keeping line breaks:
/// the CLI's own output is lines of text, and any text it prints that came from a file, a hub or a dataset is
/// shown, not obeyed, by the terminal.
struct TerminalSafeSink: TextSink {
    let base: any TextSink

    func write(_ text: String) {
        base.write(TerminalText.escaping(text, keepingLineBreaks: true))
    }
}
