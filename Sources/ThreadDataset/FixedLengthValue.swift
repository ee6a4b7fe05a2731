/// A dataset value that is exactly a fixed number of bytes: ``ExtendedPANID``, ``MeshLocalPrefix``,
/// ``NetworkKey`` and ``PSKc``.
///
/// The four types share their length and hex checks, so they accept and reject input in the same way.
public protocol FixedLengthValue: Hashable, Sendable {
    /// The exact length in bytes.
    static var byteLength: Int { get }

    /// Creates a value from its bytes.
    ///
    /// - Parameter bytes: Exactly ``byteLength`` bytes.
    /// - Throws: ``ThreadDatasetError`` `invalidLength`.
    init(bytes: [UInt8]) throws(ThreadDatasetError)

    /// Creates a value from hex text, two digits per byte, for example `"39758ec8144b07fb"` for an
    /// ``ExtendedPANID``.
    ///
    /// Upper- and lower-case digits are accepted, and white space before and after the digits is ignored.
    ///
    /// - Parameter hex: Twice ``byteLength`` hex digits.
    /// - Throws: ``ThreadDatasetError`` for bad hex or a wrong length.
    init(hex: String) throws(ThreadDatasetError)
}

/// How this module builds its ``FixedLengthValue`` types: each names its TLV and wraps bytes whose length was
/// checked, and gets the checking initializers from here.
protocol FixedLengthStorage: FixedLengthValue {
    /// The TLV that carries the value, for messages.
    static var tlvType: DatasetTLVType { get }
    /// Wraps bytes whose length was checked.
    init(checkedBytes: [UInt8])
}

extension FixedLengthStorage {
    /// Creates a value from exactly ``FixedLengthValue/byteLength`` bytes.
    public init(bytes: [UInt8]) throws(ThreadDatasetError) {
        self = try Self.make(bytes, offset: nil)
    }

    /// Decodes hex text (for example `"39758ec8144b07fb"`) and checks the length.
    public init(hex: String) throws(ThreadDatasetError) {
        let bytes: [UInt8]
        do throws(ThreadDatasetError) {
            bytes = try Hex.decode(hex)
        } catch {
            throw ThreadDatasetError(
                code: error.code,
                tlvType: Self.tlvType,
                offset: error.offset,
                message: "\(Self.tlvType): \(error.message)"
            )
        }
        self = try Self.make(bytes, offset: nil)
    }

    /// Checks the length of `bytes` and wraps them.
    ///
    /// - Parameters:
    ///   - bytes: The value bytes.
    ///   - offset: The TLV's offset when parsing, for messages.
    static func make(_ bytes: some Collection<UInt8>, offset: Int?) throws(ThreadDatasetError) -> Self {
        try ThreadDatasetError.requireLength(byteLength, of: bytes, tlvType, at: offset)
        return Self(checkedBytes: Array(bytes))
    }
}
