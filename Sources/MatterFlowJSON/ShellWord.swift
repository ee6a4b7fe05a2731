/// A word as a POSIX shell reads it back, for commands that messages suggest (`matterflow validate PATH`): a path
/// with a space or a quote in it, pasted as printed, must still be one argument.
public enum ShellWord {
    /// `word` as it is when the shell would read it so (letters, digits and `_@%+=:,./-` only), else in single quotes
    /// (a quote inside written `'\''`); an empty word is `''`.
    public static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isASCIIHexDigit || ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
                || "_@%+=:,./-".unicodeScalars.contains(scalar)
        }
        if plain { return word }
        var quoted = "'"
        for character in word {
            if character == "'" { quoted += #"'\''"# } else { quoted.append(character) }
        }
        return quoted + "'"
    }
}
