import CJSONC

/// The only place MatterFlow calls json-c.
///
/// Text goes in, a Swift ``JSONValue`` comes out; every json-c object is released before the function returns.
enum JSONCBridge {
    /// Where and why json-c rejected a text.
    struct SyntaxFailure: Error {
        /// Byte offset into the UTF-8 text where parsing stopped.
        var byteOffset: Int
        /// json-c's description of what it expected.
        var reason: String
    }

    /// Parses a complete JSON text in strict mode.
    static func parse(_ text: String) throws(SyntaxFailure) -> JSONValue {
        guard let tokener = json_tokener_new() else {
            throw SyntaxFailure(byteOffset: 0, reason: "the JSON parser could not be created (out of memory)")
        }
        defer { json_tokener_free(tokener) }
        json_tokener_set_flags(tokener, JSON_TOKENER_STRICT)

        // The text's own UTF-8 bytes, in place: json-c takes a length, so no terminated copy is needed.
        var text = text
        return try text.withUTF8 { buffer -> Result<JSONValue, SyntaxFailure> in
            let length = buffer.count
            let (root, parseEnd, error) = buffer.withMemoryRebound(to: CChar.self) { characters -> (OpaquePointer?, Int, json_tokener_error) in
                var object = json_tokener_parse_ex(tokener, characters.baseAddress, Int32(length))
                var error = json_tokener_get_error(tokener)
                if error == json_tokener_continue {
                    // A complete text that ends in a bare number needs an explicit end of input.
                    json_object_put(object)
                    object = json_tokener_parse_ex(tokener, "", 1)
                    error = json_tokener_get_error(tokener)
                    if error == json_tokener_continue || (error == json_tokener_success && object == nil) {
                        error = json_tokener_error_parse_eof
                    }
                }
                return (object, Int(json_tokener_get_parse_end(tokener)), error)
            }
            defer { json_object_put(root) }

            guard error == json_tokener_success else {
                let reason = String(cString: json_tokener_error_desc(error))
                return .failure(SyntaxFailure(byteOffset: min(parseEnd, length), reason: reason))
            }
            let end = min(parseEnd, length)
            if let extra = buffer[end..<length].firstIndex(where: { !isJSONWhitespace($0) }) {
                return .failure(SyntaxFailure(byteOffset: extra, reason: "unexpected content after the end of the JSON value"))
            }
            return .success(convert(root))
        }.get()
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func convert(_ object: OpaquePointer?) -> JSONValue {
        guard let object else { return .null }
        switch json_object_get_type(object) {
        case json_type_null:
            return .null
        case json_type_boolean:
            return .bool(json_object_get_boolean(object) != 0)
        case json_type_int:
            return .int(Int(json_object_get_int64(object)))
        case json_type_double:
            return .double(json_object_get_double(object))
        case json_type_string:
            let length = Int(json_object_get_string_len(object))
            guard let bytes = json_object_get_string(object) else { return .string("") }
            let buffer = UnsafeRawBufferPointer(start: bytes, count: length)
            return .string(String(decoding: buffer, as: UTF8.self))
        case json_type_array:
            let count = json_object_array_length(object)
            var elements: [JSONValue] = []
            elements.reserveCapacity(count)
            for position in 0..<count {
                elements.append(convert(json_object_array_get_idx(object, position)))
            }
            return .array(elements)
        case json_type_object:
            var members: [JSONObject.Member] = []
            members.reserveCapacity(Int(json_object_object_length(object)))
            var iterator = json_object_iter_begin(object)
            var end = json_object_iter_end(object)
            while json_object_iter_equal(&iterator, &end) == 0 {
                let key = String(cString: json_object_iter_peek_name(&iterator))
                members.append(JSONObject.Member(key: key, value: convert(json_object_iter_peek_value(&iterator))))
                json_object_iter_next(&iterator)
            }
            // json-c keeps one member per key.
            return .object(JSONObject(distinctMembers: members))
        default:
            return .null
        }
    }
}
