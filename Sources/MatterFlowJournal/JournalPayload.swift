import MatterFlowJSON

/// A record's payload written as bytes straight from its parts: `{"seq", "type", "wallTime", ...fields}` in compact
/// JSON, byte for byte the text ``JSONWriter/appendCompact(_:to:)`` writes for the payload object
/// (``JournalRecord/payload``), without building that object member by member first.
enum JournalPayload {
    /// Appends the payload of the record `sequence` of `type` written at `wallTime` with `fields` to `bytes`.
    static func append(sequence: Int, type: String, wallTime: Double, fields: JSONObject, to bytes: inout [UInt8]) {
        appendASCII(#"{"seq":"#, to: &bytes)
        JSONWriter.appendCompact(.int(sequence), to: &bytes)
        appendASCII(#","type":"#, to: &bytes)
        JSONWriter.appendCompact(.string(type), to: &bytes)
        appendASCII(#","wallTime":"#, to: &bytes)
        JSONWriter.appendCompact(.double(wallTime), to: &bytes)
        // The entry codec never names a field after a leading member; were one to, the leading member would win,
        // as it does in the payload object.
        let kept = fields.members.contains { isLeading($0.key) } ? JSONObject(fields.members.filter { !isLeading($0.key) }) : fields
        guard !kept.isEmpty else { return bytes.append(UInt8(ascii: "}")) }
        // The fields as an object, whose opening brace becomes the comma after the leading members.
        let start = bytes.count
        JSONWriter.appendCompact(.object(kept), to: &bytes)
        bytes[start] = UInt8(ascii: ",")
    }

    /// Whether `key` names one of the members every record has, written before its fields (a field of the same
    /// name is not written again). Every member of every record is looked at, so the key is compared with the three
    /// names directly rather than hashed.
    private static func isLeading(_ key: String) -> Bool {
        switch key {
        case "seq", "type", "wallTime": true
        default: false
        }
    }

    private static func appendASCII(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}
