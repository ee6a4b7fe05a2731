import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import Testing

/// A record's payload written straight as bytes is the text the journal always wrote: the compact JSON of the
/// payload object `{"seq", "type", "wallTime", ...fields}`, so files and store rows written before read the same as
/// those written now, and readers see no difference.
@Suite("journal record payloads")
struct JournalPayloadTests {
    /// The payload object as records are read back (``JournalRecord/payload``): the leading members, then each
    /// field not named like one of them.
    private static func payloadObject(sequence: Int, type: String, wallTime: Double, fields: JSONObject) -> JSONObject {
        var payload: JSONObject = ["seq": .int(sequence), "type": .string(type), "wallTime": .double(wallTime)]
        for member in fields.members where payload[member.key] == nil { payload[member.key] = member.value }
        return payload
    }

    private static func written(sequence: Int, type: String, wallTime: Double, fields: JSONObject) -> [UInt8] {
        var bytes: [UInt8] = []
        JournalPayload.append(sequence: sequence, type: type, wallTime: wallTime, fields: fields, to: &bytes)
        return bytes
    }

    private static func compact(_ object: JSONObject) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONWriter.appendCompact(.object(object), to: &bytes)
        return bytes
    }

    @Test("every kind of entry is written byte for byte as its payload object's compact JSON")
    func everyKindMatchesThePayloadObject() {
        for (index, entry) in JournalEntryCodecTests.everyKind.enumerated() {
            let fields = JournalEntryCodec.fields(of: entry)
            for wallTime in [1_764_680_000.123456, 1_764_680_000, 0.5] {
                let bytes = Self.written(sequence: index + 1, type: entry.type, wallTime: wallTime, fields: fields)
                let expected = Self.compact(Self.payloadObject(sequence: index + 1, type: entry.type, wallTime: wallTime, fields: fields))
                #expect(bytes == expected, "\(entry.type): \(String(decoding: bytes, as: UTF8.self))")
                // And it reads back as the record the entry codec decodes.
                let parsed = try? JSONDocument.parse(String(decoding: bytes, as: UTF8.self), file: "<record>").value.objectValue
                #expect(parsed.map { JournalRecord(payload: $0, offset: 0).sequence } == index + 1)
            }
        }
    }

    @Test("no fields, escapes and fields named like a leading member are written as the payload object has them")
    func edgeCases() {
        let cases: [(String, JSONObject)] = [
            ("recoveryDeferred", [:]),
            ("stateEntered", ["state": "quote \" back\\slash\nline \u{1} é", "nested": ["a": [1, 2.5, nil, true]]]),
            ("checkpoint", ["type": "task", "seq": 99, "wallTime": "never", "state": "s"]),
            ("odd \"type\"", ["only": []]),
        ]
        for (type, fields) in cases {
            let bytes = Self.written(sequence: 7, type: type, wallTime: 12.75, fields: fields)
            #expect(bytes == Self.compact(Self.payloadObject(sequence: 7, type: type, wallTime: 12.75, fields: fields)))
        }
        #expect(String(decoding: Self.written(sequence: 1, type: "t", wallTime: 2, fields: [:]), as: UTF8.self) == #"{"seq":1,"type":"t","wallTime":2}"#)
    }
}
