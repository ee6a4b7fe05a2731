import Foundation

/// A PostgreSQL connection string as messages and logs show it: the same text, every password (`password`, and
/// `sslpassword`, a client key's passphrase) replaced by `<redacted>`, and so the value of every setting that is
/// not one of libpq's known, non-secret ones (``shownKeys``): a misspelt `passwd=` holds a password all the same.
///
/// Both forms libpq takes are read as libpq reads them: a URI (`postgres://user:secret@host/db?password=secret`:
/// the password of the user part and a `password` parameter of the query), and `key=value` pairs separated by
/// spaces, where spaces may surround `=` and a value may be single-quoted with `\'` and `\\` inside.
enum ConninfoRedaction {
    static let placeholder = "<redacted>"

    /// The settings whose values are shown: libpq's connection settings but its secrets (`password`,
    /// `sslpassword`). A setting a newer libpq adds is hidden until it is listed here.
    static let shownKeys: Set<String> = [
        "host", "hostaddr", "port", "dbname", "user", "passfile", "channel_binding", "connect_timeout",
        "client_encoding", "options", "application_name", "fallback_application_name", "keepalives", "keepalives_idle",
        "keepalives_interval", "keepalives_count", "tcp_user_timeout", "replication", "gssencmode", "sslmode",
        "requiressl", "sslcompression", "sslcert", "sslkey", "sslrootcert", "sslcrl", "sslcrldir", "sslsni",
        "requirepeer", "ssl_min_protocol_version", "ssl_max_protocol_version", "krbsrvname", "gsslib", "gssdelegation",
        "service", "target_session_attrs", "load_balance_hosts", "sslcertmode", "sslnegotiation", "require_auth",
    ]

    static func redacting(_ conninfo: String) -> String {
        redaction(of: conninfo).text
    }

    /// A message about `conninfo` (libpq's, which may quote the string or a part of it) with the string shown
    /// redacted and each of its passwords, as written or decoded, replaced by `<redacted>`. A password of fewer
    /// than 3 characters is left: replacing it would garble the message, and no redaction can hide it.
    static func scrubbing(_ message: String, about conninfo: String) -> String {
        let redaction = redaction(of: conninfo)
        var scrubbed = conninfo.isEmpty ? message : message.replacingOccurrences(of: conninfo, with: redaction.text)
        let forms = Set(redaction.secrets.flatMap { [$0, percentDecoded(Substring($0)), unquoted($0)] })
        for secret in forms.sorted(by: { $0.count > $1.count }) where secret.count >= 3 {
            scrubbed = scrubbed.replacingOccurrences(of: secret, with: placeholder)
        }
        return scrubbed
    }

    /// A single-quoted pair value without its quotes and escapes; other text as it is.
    private static func unquoted(_ value: String) -> String {
        guard value.count >= 2, value.hasPrefix("'"), value.hasSuffix("'") else { return value }
        var result = ""
        var escaped = false
        for character in value.dropFirst().dropLast() {
            if !escaped, character == "\\" {
                escaped = true
                continue
            }
            escaped = false
            result.append(character)
        }
        return result
    }

    /// The redacted text, and the passwords it hid as written.
    private static func redaction(of conninfo: String) -> (text: String, secrets: [String]) {
        var secrets: [String] = []
        let text = looksLikeURI(conninfo) ? redactingURI(conninfo, hiding: &secrets) : redactingPairs(conninfo, hiding: &secrets)
        return (text, secrets)
    }

    /// Whether the text is written as a URI of any scheme, after any leading spaces: `postgres://`, and the mistyped
    /// ones a person may give (`postgress://`, `POSTGRES://`, ` postgres://`, `pgsql://`), whose password must be
    /// hidden from the message that refuses them all the same.
    static func looksLikeURI(_ text: String) -> Bool {
        let trimmed = text.drop { $0 == " " || $0 == "\t" }
        guard let first = trimmed.first, first.isASCII, first.isLetter, let scheme = trimmed.firstRange(of: "://") else { return false }
        return trimmed[..<scheme.lowerBound].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+.-".contains($0)) }
    }

    /// libpq ends a URI's user part at its first `@` or `/` and reads the password after its first `:`; `#` is no
    /// delimiter to it. A password holding an unescaped `/` is not one libpq takes, yet it is what the person meant
    /// to be secret: so the user part shown runs to the last `@`, and the password hidden is everything between
    /// the first `:` and that `@`. A query starts at the first `?` after the user part.
    private static func redactingURI(_ uri: String, hiding secrets: inout [String]) -> String {
        guard let scheme = uri.firstRange(of: "://") else { return uri }
        var result = String(uri[..<scheme.upperBound])
        var rest = uri[scheme.upperBound...]
        if let at = rest.lastIndex(of: "@") {
            let user = rest[..<at]
            if let colon = user.firstIndex(of: ":") {
                let password = String(user[user.index(after: colon)...])
                secrets.append(password)
                // Each piece around a character libpq would stop at, as libpq's message may quote one.
                secrets += password.split(whereSeparator: { "/?#:@&=".contains($0) }).map(String.init)
                result += user[...colon] + placeholder
            } else {
                result += user
            }
            result += "@"
            rest = rest[rest.index(after: at)...]
        }
        guard let mark = rest.firstIndex(of: "?") else { return result + rest }
        result += rest[...mark]
        var parameters: [String] = []
        for parameter in rest[rest.index(after: mark)...].split(separator: "&", omittingEmptySubsequences: false) {
            guard let equals = parameter.firstIndex(of: "="), isSecretKey(percentDecoded(parameter[..<equals])) else {
                parameters.append(String(parameter))
                continue
            }
            let key = percentDecoded(parameter[..<equals])
            if scrubsEverywhere(key) { secrets.append(String(parameter[parameter.index(after: equals)...])) }
            parameters.append(String(parameter[..<equals]) + "=" + placeholder)
        }
        return result + parameters.joined(separator: "&")
    }

    /// Whether a key's value is hidden: a password's, or any setting's that is not a known, non-secret one (libpq
    /// refuses `PASSWORD=` or `passwd=`, but the value was meant as a password).
    private static func isSecretKey(_ key: String) -> Bool {
        !shownKeys.contains(key)
    }

    /// Whether a hidden value is also taken out of every message about the string (libpq's may quote it): a
    /// password's, and one of a key that looks meant as one (`passwd`, `PASSWORD`, `pwd`). Other unknown settings'
    /// values (`ssl=true`) are only hidden where the string is shown, as taking "true" out of every message would
    /// garble them.
    private static func scrubsEverywhere(_ key: String) -> Bool {
        let lowered = key.lowercased()
        return ["pass", "pwd", "secret", "key"].contains { lowered.contains($0) } && !shownKeys.contains(key)
    }

    /// A URI part with its `%XX` escapes decoded (as libpq decodes a query's keys); bad escapes stay as written.
    private static func percentDecoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%"), index + 2 < utf8.count,
                let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
            {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func redactingPairs(_ conninfo: String, hiding secrets: inout [String]) -> String {
        let characters = Array(conninfo)
        var result = ""
        var index = 0
        while index < characters.count {
            // Spaces between pairs, as written.
            while index < characters.count, characters[index].isWhitespace {
                result.append(characters[index])
                index += 1
            }
            let keyStart = index
            while index < characters.count, characters[index] != "=", !characters[index].isWhitespace { index += 1 }
            let key = String(characters[keyStart..<index])
            result += key
            while index < characters.count, characters[index] != "=" {
                guard characters[index].isWhitespace else { break }
                result.append(characters[index])
                index += 1
            }
            guard index < characters.count, characters[index] == "=" else { continue }
            result.append("=")
            index += 1
            while index < characters.count, characters[index].isWhitespace {
                result.append(characters[index])
                index += 1
            }
            let valueStart = index
            var unterminated = false
            if index < characters.count, characters[index] == "'" {
                index += 1
                while index < characters.count, characters[index] != "'" {
                    index += characters[index] == "\\" ? 2 : 1
                }
                // A quote never closed swallows the rest of the string, other pairs' text included.
                unterminated = index >= characters.count
                index = min(index + 1, characters.count)
            } else {
                while index < characters.count, !characters[index].isWhitespace {
                    index += characters[index] == "\\" ? 2 : 1
                }
                index = min(index, characters.count)
            }
            // A value without a key is not one libpq takes: what it holds cannot be told, so it is not shown.
            let value = String(characters[valueStart..<index])
            if isSecretKey(key) || key.isEmpty || unterminated {
                if scrubsEverywhere(key) || key.isEmpty || unterminated { secrets.append(value) }
                result += placeholder
            } else {
                result += value
            }
        }
        return result
    }
}
