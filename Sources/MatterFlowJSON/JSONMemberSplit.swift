/// The members of the largest object value of a JSON text's root object, as byte ranges, so that a large text
/// can be parsed a member at a time (see ``JSONCBridge``).
///
/// json-c builds the whole tree of a text before any of it can be converted, and then frees it; for a workflow
/// of thousands of states that tree is far larger than the caches, so converting and freeing it missed the cache
/// at almost every node, and cost more per state the larger the file. Parsed member by member, each piece's tree
/// is converted and freed while it is still in cache, and its memory is reused by the next piece.
///
/// This scan only finds where things are; it never decides that a text is valid. json-c parses every piece
/// (the text with the object emptied, and each member wrapped in braces), and the bytes between members are
/// checked to be exactly white space and commas: the text is valid exactly when all of that is. Anything the
/// scan does not understand yields nil, and the text is parsed whole.
struct JSONMemberSplit {
    /// The position of the object's `{` and of its matching `}`.
    var open: Int
    var close: Int
    /// Each member, from its key's opening quote to the end of its value.
    var members: [Range<Int>]
    /// Which member of the root object holds the object (0 for the first).
    var rootMember: Int
    /// How many root members there are.
    var rootMemberCount: Int

    /// Splits the largest object member of the root object into its members; nil when there is none with at
    /// least `minimumMembers`, or the text is not laid out as expected.
    static func split(_ bytes: UnsafeBufferPointer<UInt8>, minimumMembers: Int) -> JSONMemberSplit? {
        // Every member has a colon, so a text with fewer colons has no such object: counting them is a much
        // cheaper pass than the scan, and most texts large enough to be considered stop here.
        var colons = 0
        for byte in bytes where byte == UInt8(ascii: ":") { colons &+= 1 }
        guard colons >= minimumMembers else { return nil }
        var scanner = Scanner(bytes: bytes)
        scanner.skipWhitespace()
        guard scanner.take(UInt8(ascii: "{")) else { return nil }
        var best: (open: Int, close: Int, member: Int)?
        var count = 0
        scanner.skipWhitespace()
        if !scanner.take(UInt8(ascii: "}")) {
            while true {
                guard scanner.skipString() else { return nil }
                scanner.skipWhitespace()
                guard scanner.take(UInt8(ascii: ":")) else { return nil }
                scanner.skipWhitespace()
                let start = scanner.offset
                guard scanner.skipValue() else { return nil }
                if bytes[start] == UInt8(ascii: "{"), scanner.offset - start > (best.map { $0.close - $0.open } ?? 0) {
                    best = (start, scanner.offset - 1, count)
                }
                count += 1
                scanner.skipWhitespace()
                if scanner.take(UInt8(ascii: ",")) {
                    scanner.skipWhitespace()
                    continue
                }
                guard scanner.take(UInt8(ascii: "}")) else { return nil }
                break
            }
        }
        guard let best else { return nil }
        // The members of the chosen object, with nothing but white space and commas between them.
        scanner.offset = best.open + 1
        var members: [Range<Int>] = []
        scanner.skipWhitespace()
        guard scanner.offset < best.close else { return nil }
        while true {
            let start = scanner.offset
            guard scanner.skipString() else { return nil }
            scanner.skipWhitespace()
            guard scanner.take(UInt8(ascii: ":")) else { return nil }
            scanner.skipWhitespace()
            guard scanner.skipValue() else { return nil }
            members.append(start..<scanner.offset)
            scanner.skipWhitespace()
            if scanner.offset == best.close { break }
            guard scanner.take(UInt8(ascii: ",")) else { return nil }
            scanner.skipWhitespace()
        }
        guard members.count >= minimumMembers else { return nil }
        return JSONMemberSplit(open: best.open, close: best.close, members: members, rootMember: best.member, rootMemberCount: count)
    }

    private struct Scanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        func peek() -> UInt8? { offset < bytes.count ? bytes[offset] : nil }

        mutating func take(_ byte: UInt8) -> Bool {
            guard peek() == byte else { return false }
            offset += 1
            return true
        }

        mutating func skipWhitespace() {
            while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { offset += 1 }
        }

        /// Skips a string token, escapes included.
        mutating func skipString() -> Bool {
            guard take(UInt8(ascii: "\"")) else { return false }
            while let byte = peek() {
                offset += byte == UInt8(ascii: "\\") ? 2 : 1
                if byte == UInt8(ascii: "\"") { return true }
            }
            return false
        }

        /// Skips one value: a string, an object or array up to its matching bracket, or a bare token.
        mutating func skipValue() -> Bool {
            guard let first = peek() else { return false }
            switch first {
            case UInt8(ascii: "\""):
                return skipString()
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                var depth = 0
                while let byte = peek() {
                    switch byte {
                    case UInt8(ascii: "\""):
                        guard skipString() else { return false }
                        continue
                    case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                    case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                    default: break
                    }
                    offset += 1
                    if depth == 0 { return true }
                }
                return false
            default:
                let start = offset
                while let byte = peek(), !(byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
                    || byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09)
                {
                    offset += 1
                }
                return offset > start
            }
        }
    }
}
