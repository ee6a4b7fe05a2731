/// The symbols of the text trace (▶ ● ✓ ✗ → …) for a terminal that takes no UTF-8: under `LC_ALL=C` (or a
/// Latin-1 locale) each would print as bytes the terminal shows as two or three wrong characters, or as `?`.
public enum TerminalGlyphs {
    /// Whether the locale the environment names takes no UTF-8: the first of `LC_ALL`, `LC_CTYPE` and `LANG` that is
    /// set and not empty decides, as the C library reads them; `C`, `POSIX` and any name without `UTF-8` (`utf8`) do
    /// not. None set is taken as UTF-8: containers and CI runners often set none and show UTF-8 all the same.
    public static func asciiOnly(environment: [String: String]) -> Bool {
        guard let name = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else {
            return false
        }
        let lowered = name.lowercased()
        return !(lowered.contains("utf-8") || lowered.contains("utf8"))
    }

    /// `text` with each trace symbol written in ASCII, the rest unchanged.
    public static func ascii(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { !$0.isASCII }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text {
            out += replacements[character] ?? String(character)
        }
        return out
    }

    private static let replacements: [Character: String] = [
        "▶": ">", "●": "*", "✓": "ok", "✗": "x", "…": "...", "↻": "retry", "→": "->", "↘": "->", "⇢": "->",
        "⚠": "!", "⌛": "timeout", "✋": "cancel:", "■": "#", "»": ">>", "≤": "<=", "−": "-",
    ]
}
