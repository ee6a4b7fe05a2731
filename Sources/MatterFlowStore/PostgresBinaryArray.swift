/// One-dimensional PostgreSQL arrays in the server's binary format, for statements that take a batch of values as
/// array parameters (`unnest($1::text[], $2::int4[])`): the server copies each element as it is, where the text
/// form (`{"a","b"}`) would have every quote and backslash escaped by the worker and parsed again by the server.
///
/// The format (PostgreSQL's `array_recv`): the number of dimensions (1), a flags word (0: no NULL element), the
/// element type's OID, the length and lower bound (1) of the dimension, then each element as its byte length and its
/// bytes; every integer 4 bytes, big-endian.
public struct PostgresBinaryArray: Sendable {
    /// The OID of PostgreSQL's `text` type.
    public static let textOID: UInt32 = 25
    /// The OID of PostgreSQL's `int4` (`integer`) type.
    public static let int4OID: UInt32 = 23

    private let elementType: UInt32
    private var count: Int32 = 0
    private var elements: [UInt8] = []

    /// An empty array of elements of type `elementType` (``textOID``, ``int4OID``).
    public init(elementType: UInt32, reservingBytes: Int = 0) {
        self.elementType = elementType
        elements.reserveCapacity(reservingBytes)
    }

    /// Appends a `text` element: its UTF-8 bytes.
    public mutating func append(text value: String) {
        var value = value
        value.withUTF8 { bytes in
            appendWord(UInt32(truncatingIfNeeded: bytes.count))
            elements.append(contentsOf: bytes)
        }
        count += 1
    }

    /// Appends a `text` element whose UTF-8 bytes `write` appends to the buffer it is given, in place: no string
    /// is made for it.
    public mutating func appendText(writing write: (inout [UInt8]) -> Void) {
        let lengthAt = elements.count
        appendWord(0)
        write(&elements)
        let length = UInt32(truncatingIfNeeded: elements.count - lengthAt - 4)
        for index in 0..<4 { elements[lengthAt + index] = UInt8(truncatingIfNeeded: length >> (24 - 8 * index)) }
        count += 1
    }

    /// Appends an `int4` element.
    public mutating func append(int4 value: Int32) {
        appendWord(4)
        appendWord(UInt32(bitPattern: value))
        count += 1
    }

    /// The array in the binary format, to be sent as a binary parameter.
    public var bytes: [UInt8] {
        var header: [UInt8] = []
        header.reserveCapacity(20 + elements.count)
        for word in [1, 0, elementType, UInt32(bitPattern: count), 1] as [UInt32] {
            Self.append(word, to: &header)
        }
        header.append(contentsOf: elements)
        return header
    }

    private mutating func appendWord(_ word: UInt32) {
        Self.append(word, to: &elements)
    }

    private static func append(_ word: UInt32, to bytes: inout [UInt8]) {
        bytes.append(UInt8(truncatingIfNeeded: word >> 24))
        bytes.append(UInt8(truncatingIfNeeded: word >> 16))
        bytes.append(UInt8(truncatingIfNeeded: word >> 8))
        bytes.append(UInt8(truncatingIfNeeded: word))
    }
}
