/// A dataset value that is exactly a fixed number of bytes: Extended PAN ID, Mesh-Local Prefix, Network Key
/// and PSKc share their checks through this protocol.
protocol FixedLengthValue {
    /// The TLV that carries the value, for messages.
    static var tlvType: DatasetTLVType { get }
    /// The exact length in bytes.
    static var byteLength: Int { get }
    /// Wraps bytes whose length was checked.
    init(checkedBytes: [UInt8])
}

extension FixedLengthValue {
    /// Checks the length of `bytes` and wraps them.
    ///
    /// - Parameters:
    ///   - bytes: The value bytes.
    ///   - offset: The TLV's offset when parsing, for messages.
    static func make(_ bytes: some Collection<UInt8>, offset: Int?) throws(ThreadDatasetError) -> Self {
        guard bytes.count == byteLength else {
            throw ThreadDatasetError.invalidLength(
                tlvType,
                at: offset,
                expected: byteCount(byteLength),
                found: bytes.count
            )
        }
        return Self(checkedBytes: Array(bytes))
    }

    /// Decodes hex text (for example `"39758ec8144b07fb"`) and checks the length.
    ///
    /// - Parameter hex: The value as hex; case does not matter.
    static func make(hex: String) throws(ThreadDatasetError) -> Self {
        let bytes: [UInt8]
        do throws(ThreadDatasetError) {
            bytes = try Hex.decode(hex)
        } catch {
            throw ThreadDatasetError(
                code: error.code,
                tlvType: tlvType,
                offset: error.offset,
                message: "\(tlvType): \(error.message)"
            )
        }
        return try make(bytes, offset: nil)
    }
}
