import MatterFlowJSON

/// How records are laid out in a journal file (documented in `docs/journal.md`).
///
/// A file starts with the line `MATTERFLOW-JOURNAL 1`. Each record follows as
/// `<length> <crc32> <json>\n`: the payload's byte length and its CRC-32, each as 8 lowercase hex digits, a space,
/// the payload (one compact JSON object), and a newline. A record is valid only when every part is present, the
/// length matches, the newline follows, the checksum matches and the payload is a JSON object; so a record torn
/// by a crash mid-write is always detected, never misread.
public enum JournalFrame {
    /// The first line of every journal file (with its newline).
    public static let header = "MATTERFLOW-JOURNAL 1\n"
    /// The format version the header names. It goes up with any change an older MatterFlow could not read right;
    /// a reader refuses a journal of a newer format (``JournalError/Code/newerFormat``) rather than misread it.
    public static let formatVersion = 1

    /// The error for a journal of a format newer than this MatterFlow reads.
    static func newer(_ format: Int, path: String) -> JournalError {
        JournalError(
            .newerFormat,
            "\(path) is a journal of format \(format), newer than this MatterFlow reads (\(formatVersion)): a newer MatterFlow "
                + "wrote it; list, read and recover it with that version, which settles what the run holds")
    }

    /// The format a header of a newer MatterFlow names (`MATTERFLOW-JOURNAL 2`), when `bytes` start with one.
    static func newerHeaderFormat(_ bytes: [UInt8]) -> Int? {
        let prefix = Array("MATTERFLOW-JOURNAL ".utf8)
        guard bytes.starts(with: prefix) else { return nil }
        let digits = bytes.dropFirst(prefix.count).prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        guard !digits.isEmpty, digits.count <= 6, bytes.count > prefix.count + digits.count,
            bytes[prefix.count + digits.count] == UInt8(ascii: "\n"),
            let format = Int(String(decoding: digits, as: UTF8.self)), format > formatVersion
        else { return nil }
        return format
    }
    /// Bytes before the payload: 8 hex digits, space, 8 hex digits, space.
    static let prefixLength = 18

    /// One record's bytes: prefix, payload and newline.
    public static func encode(_ payload: JSONObject) -> [UInt8] {
        var bytes = [UInt8](repeating: 0x20, count: prefixLength)
        JSONWriter.appendCompact(.object(payload), to: &bytes)
        frame(&bytes)
        return bytes
    }

    /// Makes one record's bytes of a payload written after ``prefixLength`` placeholder bytes, in place: fills in the
    /// prefix and appends the newline.
    static func frame(_ bytes: inout [UInt8]) {
        let length = UInt32(bytes.count - prefixLength)
        let checksum = CRC32.checksum(bytes[prefixLength...])
        bytes.replaceSubrange(0..<8, with: hex(length).utf8)
        bytes.replaceSubrange(9..<17, with: hex(checksum).utf8)
        bytes.append(0x0A)
    }

    /// What is at an offset of a journal's bytes.
    enum Decoded {
        /// A valid record and the offset just after it.
        case record(JSONObject, end: Int)
        /// Nothing: the bytes end here.
        case end
        /// An invalid or incomplete record; the reason says what is wrong.
        case invalid(String)
        /// A whole record (its length, newline and checksum right) whose payload is not a JSON object MatterFlow
        /// reads: written so, not torn by a crash. The reason says what is wrong; `end` is just after it.
        case damaged(String, end: Int)
    }

    /// Decodes the record starting at `offset`.
    static func decode(_ bytes: [UInt8], at offset: Int) -> Decoded {
        guard offset < bytes.count else { return .end }
        guard bytes.count - offset >= prefixLength else {
            return .invalid("only \(bytes.count - offset) bytes of a record's \(prefixLength)-byte prefix")
        }
        guard let length = parseHex(bytes[offset..<offset + 8]), bytes[offset + 8] == 0x20,
            let checksum = parseHex(bytes[offset + 9..<offset + 17]), bytes[offset + 17] == 0x20
        else { return .invalid("the record prefix is not `<length> <crc32> `") }
        let start = offset + prefixLength
        let end = start + Int(length)
        guard end < bytes.count else {
            return .invalid("the record needs \(length) payload bytes and a newline; only \(bytes.count - start) bytes follow")
        }
        guard bytes[end] == 0x0A else { return .invalid("the record's payload is not followed by a newline") }
        let body = bytes[start..<end]
        guard CRC32.checksum(body) == checksum else { return .invalid("the record's checksum does not match its payload") }
        let document: JSONDocument
        do {
            document = try JSONDocument.parse(String(decoding: body, as: UTF8.self), file: "<record>")
        } catch {
            // What the parser found, by its code and place: its advice is for people writing files.
            let finding = error.diagnostics.first.map { ": \($0.code)\($0.pointer.isEmpty ? "" : " at " + $0.pointer)" } ?? ""
            return .damaged("its checksum matches but its payload is not JSON MatterFlow reads\(finding)", end: end + 1)
        }
        guard let object = document.value.objectValue else {
            return .damaged("its checksum matches but its payload is not a JSON object", end: end + 1)
        }
        if let repeated = document.sourceMap.duplicateKeys.first {
            // MatterFlow writes each key once: a record that repeats one was not written by it as it stands.
            return .damaged("its checksum matches but its payload gives key \"\(repeated.key)\" twice, at \(repeated.pointer)", end: end + 1)
        }
        return .record(object, end: end + 1)
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    private static func parseHex(_ bytes: ArraySlice<UInt8>) -> UInt32? {
        guard bytes.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else { return nil }
        return UInt32(String(decoding: bytes, as: UTF8.self), radix: 16)
    }
}
