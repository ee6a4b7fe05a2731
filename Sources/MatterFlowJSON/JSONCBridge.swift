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
        /// What to do about it.
        var advice = "fix the syntax at this position"
    }

    /// How deep a value may sit in a text, the text's own object or array being level 1 and a value inside it level
    /// 2: json-c's default depth, which bounds its stack and ours.
    static let maximumDepth = Int(JSON_TOKENER_DEFAULT_DEPTH)

    /// Texts whose largest object has at least this many members are parsed a member at a time (see
    /// ``JSONMemberSplit``).
    static let splitMembers = 256

    /// Parses a complete JSON text in strict mode.
    static func parse(_ text: String) throws(SyntaxFailure) -> JSONValue {
        var unusualNumbers = false
        return try parse(text, unusualNumbers: &unusualNumbers)
    }

    /// Parses a complete JSON text in strict mode, setting `unusualNumbers` when some number may not be what the
    /// text says: json-c reads `NaN`, `Infinity` and numbers beyond ±1.8e308 as non-finite doubles, and clamps
    /// integers beyond 64 bits to `Int64.min` or `Int64.max` (see ``JSONDocument`` for how they are reported).
    /// With `refusingLoneSurrogates`, an escaped UTF-16 surrogate without its other half is refused, where json-c
    /// would read U+FFFD.
    static func parse(_ text: String, unusualNumbers: inout Bool, refusingLoneSurrogates: Bool = true) throws(SyntaxFailure) -> JSONValue {
        var text = text
        return try text.withUTF8 { bytes -> Result<JSONValue, SyntaxFailure> in
            let parsed = parseSplit(bytes, unusualNumbers: &unusualNumbers).map { .success($0) }
                ?? parseWhole(bytes: bytes, unusualNumbers: &unusualNumbers)
            return strictly(parsed, bytes, refusingLoneSurrogates: refusingLoneSurrogates)
        }.get()
    }

    /// `parsed`, or the refusal of what json-c accepted in `bytes` that is not JSON (see ``JSONStrictness``).
    private static func strictly(
        _ parsed: Result<JSONValue, SyntaxFailure>, _ bytes: UnsafeBufferPointer<UInt8>, refusingLoneSurrogates: Bool
    ) -> Result<JSONValue, SyntaxFailure> {
        guard case .success = parsed,
            let violation = JSONStrictness.firstViolation(in: bytes, refusingLoneSurrogates: refusingLoneSurrogates)
        else { return parsed }
        return .failure(violation)
    }

    /// Parses a large text a member of its largest object at a time, each piece by json-c (see
    /// ``JSONMemberSplit``); nil when the text is not split or some piece is rejected, so that parsing it whole
    /// finds and reports the error exactly as it always does.
    static func parseSplit(_ bytes: UnsafeBufferPointer<UInt8>) -> JSONValue? {
        var unusualNumbers = false
        return parseSplit(bytes, unusualNumbers: &unusualNumbers)
    }

    private static func parseSplit(_ bytes: UnsafeBufferPointer<UInt8>, unusualNumbers: inout Bool) -> JSONValue? {
        guard bytes.count > splitMembers * 16, let split = JSONMemberSplit.split(bytes, minimumMembers: splitMembers),
            let tokener = json_tokener_new_ex(JSON_TOKENER_DEFAULT_DEPTH - 1)
        else { return nil }
        defer { json_tokener_free(tokener) }
        json_tokener_set_flags(tokener, JSON_TOKENER_STRICT)
        // The text with the object emptied: everything outside the members.
        var skeleton = Array(bytes[...split.open])
        skeleton.append(UInt8(ascii: "}"))
        skeleton.append(contentsOf: bytes[(split.close + 1)...])
        guard case .success(.object(var root)) = skeleton.withUnsafeBufferPointer({ parseWhole(bytes: $0, unusualNumbers: &unusualNumbers) }),
            root.count == split.rootMemberCount, root.members[split.rootMember].value == .object(JSONObject())
        else { return nil }
        var members: [JSONObject.Member] = []
        members.reserveCapacity(split.members.count)
        var piece: [UInt8] = []
        for range in split.members {
            piece.removeAll(keepingCapacity: true)
            piece.append(UInt8(ascii: "{"))
            piece.append(contentsOf: bytes[range])
            piece.append(UInt8(ascii: "}"))
            json_tokener_reset(tokener)
            guard let pieceLength = Int32(exactly: piece.count) else { return nil }
            let object: OpaquePointer? = piece.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { json_tokener_parse_ex(tokener, $0.baseAddress, pieceLength) }
            }
            defer { json_object_put(object) }
            guard let object, json_tokener_get_error(tokener) == json_tokener_success,
                Int(json_tokener_get_parse_end(tokener)) == piece.count,
                case .object(let parsed) = convert(object, unusualNumbers: &unusualNumbers)
            else { return nil }
            members.append(contentsOf: parsed.members)
        }
        // json-c keeps one member per key, at the first one's position with the last one's value; so does the
        // merging initializer, needed only when some key repeats.
        let key = root.members[split.rootMember].key
        root[key] = .object(JSONObject(distinctMembersIfPossible: members) ?? JSONObject(members))
        return .object(root)
    }

    /// Parses a complete JSON text in strict mode, whole (never split).
    static func parseWhole(_ text: String) throws(SyntaxFailure) -> JSONValue {
        var text = text
        var unusualNumbers = false
        return try text.withUTF8 { strictly(parseWhole(bytes: $0, unusualNumbers: &unusualNumbers), $0, refusingLoneSurrogates: true) }.get()
    }

    /// Parses complete JSON text in strict mode, whole, as json-c reads it (without ``JSONStrictness``'s checks).
    private static func parseWhole(
        bytes buffer: UnsafeBufferPointer<UInt8>, unusualNumbers: inout Bool
    ) -> Result<JSONValue, SyntaxFailure> {
        guard let tokener = json_tokener_new() else {
            return .failure(SyntaxFailure(byteOffset: 0, reason: "the JSON parser could not be created (out of memory)"))
        }
        defer { json_tokener_free(tokener) }
        json_tokener_set_flags(tokener, JSON_TOKENER_STRICT)

        // The text's own UTF-8 bytes, in place: json-c takes a length, so no terminated copy is needed. The length
        // is a C int.
        let length = buffer.count
        guard let cLength = Int32(exactly: length) else {
            return .failure(
                SyntaxFailure(byteOffset: Int(Int32.max), reason: "a text of more than 2 GiB, more than the JSON parser takes"))
        }
        let (root, parseEnd, error) = buffer.withMemoryRebound(to: CChar.self) { characters -> (OpaquePointer?, Int, json_tokener_error) in
            var object = json_tokener_parse_ex(tokener, characters.baseAddress, cLength)
            var error = json_tokener_get_error(tokener)
            if error == json_tokener_continue {
                // json-c took every byte and wants more: a complete text that ends in a bare number needs an
                // explicit end of input, and a truncated one fails there. Either way the text was read to its end;
                // the end-of-input call counts its offset from its own one-byte input, not from the text, so a
                // truncated text is reported just after its last character that is not whitespace.
                json_object_put(object)
                object = json_tokener_parse_ex(tokener, "", 1)
                error = json_tokener_get_error(tokener)
                // json-c gives no object for the literal `null`, and none for a text of whitespace alone.
                if error == json_tokener_continue
                    || (error == json_tokener_success && object == nil && !buffer.contains { !isJSONWhitespace($0) })
                {
                    error = json_tokener_error_parse_eof
                }
                let end = error == json_tokener_success
                    ? length : (buffer.lastIndex { !isJSONWhitespace($0) }).map { $0 + 1 } ?? 0
                return (object, end, error)
            }
            return (object, Int(json_tokener_get_parse_end(tokener)), error)
        }
        defer { json_object_put(root) }

        guard error == json_tokener_success else {
            if error == json_tokener_error_depth {
                return .failure(
                    SyntaxFailure(
                        byteOffset: min(parseEnd, length), reason: "a value nested more than \(maximumDepth) levels deep",
                        advice: "MatterFlow reads values at most \(maximumDepth) levels deep (the file's own object is level 1): flatten the value"))
            }
            let reason = String(cString: json_tokener_error_desc(error))
            var failure = SyntaxFailure(byteOffset: min(parseEnd, length), reason: reason)
            if let advice = JSONSyntaxAdvice.advice(at: failure.byteOffset, in: buffer, reason: reason) { failure.advice = advice }
            return .failure(failure)
        }
        let end = min(parseEnd, length)
        if let extra = buffer[end..<length].firstIndex(where: { !isJSONWhitespace($0) }) {
            return .failure(SyntaxFailure(byteOffset: extra, reason: "unexpected content after the end of the JSON value"))
        }
        return .success(convert(root, unusualNumbers: &unusualNumbers))
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    private static func convert(_ object: OpaquePointer?, unusualNumbers: inout Bool) -> JSONValue {
        guard let object else { return .null }
        switch json_object_get_type(object) {
        case json_type_null:
            return .null
        case json_type_boolean:
            return .bool(json_object_get_boolean(object) != 0)
        case json_type_int:
            // json-c clamps an integer beyond 64 bits to the nearest end of the range.
            let integer = json_object_get_int64(object)
            if integer == .max || integer == .min { unusualNumbers = true }
            return .int(Int(integer))
        case json_type_double:
            // NaN, Infinity and numbers beyond ±1.8e308 (which json-c reads as infinite), and numbers too close to 0
            // for a double (which it reads as 0; a written 0.0 is looked at too, and passes).
            let number = json_object_get_double(object)
            if !number.isFinite || number == 0 { unusualNumbers = true }
            return .double(number)
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
                elements.append(convert(json_object_array_get_idx(object, position), unusualNumbers: &unusualNumbers))
            }
            return .array(elements)
        case json_type_object:
            var members: [JSONObject.Member] = []
            members.reserveCapacity(Int(json_object_object_length(object)))
            var iterator = json_object_iter_begin(object)
            var end = json_object_iter_end(object)
            var nonASCIIKeys = false
            while json_object_iter_equal(&iterator, &end) == 0 {
                let key = String(cString: json_object_iter_peek_name(&iterator))
                if !nonASCIIKeys, key.utf8.contains(where: { $0 >= 0x80 }) { nonASCIIKeys = true }
                let value = convert(json_object_iter_peek_value(&iterator), unusualNumbers: &unusualNumbers)
                members.append(JSONObject.Member(key: key, value: value))
                json_object_iter_next(&iterator)
            }
            // json-c keeps one member per key, byte for byte; keys outside ASCII may still be one key spelled with
            // other bytes (`é` composed and decomposed), which a Swift string compares equal: merged as a repeated
            // key is, and reported as one by the source map.
            guard nonASCIIKeys else { return .object(JSONObject(distinctMembers: members)) }
            return .object(JSONObject(distinctMembersIfPossible: members) ?? JSONObject(members))
        default:
            return .null
        }
    }
}
