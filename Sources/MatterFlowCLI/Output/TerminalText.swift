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
