import MatterFlowJSON
import Testing

/// The run store sends records as the bytes of ``JSONWriter/appendCompact(_:to:)``; a journal file frames the
/// string of ``JSONWriter/compact(_:)``. Both must be the same text, so a record reads back the same from either.
@Suite struct CompactBytesTests {
    private func bytes(_ value: JSONValue) -> [UInt8] {
        var bytes: [UInt8] = [0x7E]
        JSONWriter.appendCompact(value, to: &bytes)
        return Array(bytes.dropFirst())
    }

    @Test(arguments: [
        JSONValue.null, .bool(true), .bool(false), .int(0), .int(7), .int(-42), .int(Int.max), .int(Int.min),
        .double(0.5), .double(-3), .double(1e15), .double(1e300), .double(-2.5e-8), .double(.nan), .double(.infinity),
        .string(""), .string("plain"), .string("quote \" backslash \\ slash /"),
        .string("\n\r\t\u{08}\u{0C}\u{0}\u{1}\u{1F}\u{7F}"), .string("ünïcode 日本 🙂 é\u{301}"), .array([]), .object([:]),
        [
            "seq": 3, "type": "checkpoint", "vars": ["note": "a\"b", "list": [1, 2.25, nil, true, ["x": []]]],
            "key \"q\"\n": "v",
        ],
    ])
    func sameTextAsTheString(_ value: JSONValue) {
        #expect(bytes(value) == Array(JSONWriter.compact(value).utf8), "\(JSONWriter.compact(value))")
    }

    @Test("appends after what the buffer holds, keeping it")
    func appends() {
        var buffer = Array("[".utf8)
        JSONWriter.appendCompact(["a": 1], to: &buffer)
        buffer.append(UInt8(ascii: ","))
        JSONWriter.appendCompact("b", to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"[{"a":1},"b""#)
    }
}
