/// A Thread radio channel, as carried by the Channel and Wake-up Channel TLVs.
///
/// The value is 3 bytes: `page:u8` then `channel:u16` big-endian. Only channel page 0 (IEEE 802.15.4,
/// 2.4 GHz O-QPSK) is supported, with channels 11 to 26; that is what Matter requires and what a
/// 2.4 GHz OpenThread build accepts.
public struct ThreadChannel: Hashable, Sendable, CustomStringConvertible {
    /// The only supported channel page.
    public static let supportedPage: UInt8 = 0
    /// The channels of page 0.
    public static let supportedChannels: ClosedRange<UInt16> = 11...26
    /// The size of the encoded value.
    public static let encodedLength = 3

    /// The channel page; always ``supportedPage``.
    public let page: UInt8
    /// The channel number, within ``supportedChannels``.
    public let number: UInt16

    /// Creates a page-0 channel.
    ///
    /// - Parameter number: The channel number, 11 to 26.
    /// - Throws: ``ThreadDatasetError`` `channelOutOfRange` for any other number.
    public init(_ number: UInt16) throws(ThreadDatasetError) {
        try self.init(page: Self.supportedPage, number: number)
    }

    /// Creates a channel on a page.
    ///
    /// - Parameters:
    ///   - page: The channel page; must be 0.
    ///   - number: The channel number, 11 to 26.
    /// - Throws: ``ThreadDatasetError`` `unsupportedChannelPage` or `channelOutOfRange`.
    public init(page: UInt8, number: UInt16) throws(ThreadDatasetError) {
        try self.init(page: page, number: number, type: nil, offset: nil)
    }

    private init(page: UInt8, number: UInt16, type: DatasetTLVType?, offset: Int?) throws(ThreadDatasetError) {
        // Formatted only for a message.
        var subject: String { type.map { ThreadDatasetError.subject($0, at: offset) + ": " } ?? "" }
        guard page == Self.supportedPage else {
            throw ThreadDatasetError(
                code: .unsupportedChannelPage,
                tlvType: type,
                offset: offset,
                message: subject + "expected channel page 0 (2.4 GHz), found page \(page)"
            )
        }
        guard Self.supportedChannels.contains(number) else {
            throw ThreadDatasetError(
                code: .channelOutOfRange,
                tlvType: type,
                offset: offset,
                message: subject + "expected a channel from 11 to 26 on page 0, found \(number)"
            )
        }
        self.page = page
        self.number = number
    }

    /// The 3 encoded bytes.
    public var encoded: [UInt8] {
        [page] + bigEndianBytes(number)
    }

    /// Decodes the value of a Channel or Wake-up Channel TLV.
    ///
    /// - Parameters:
    ///   - value: The value bytes.
    ///   - type: The TLV type, for messages.
    ///   - offset: The TLV's offset, for messages.
    static func decode(
        _ value: ArraySlice<UInt8>,
        type: DatasetTLVType,
        offset: Int
    ) throws(ThreadDatasetError) -> ThreadChannel {
        try ThreadDatasetError.requireLength(
            encodedLength,
            of: value,
            type,
            at: offset,
            expected: "3 bytes (page, then a 16-bit channel)"
        )
        let start = value.startIndex
        let number: UInt16 = bigEndianInteger(value.dropFirst())
        return try ThreadChannel(page: value[start], number: number, type: type, offset: offset)
    }

    /// The channel number, for example `"15"`.
    public var description: String {
        "\(number)"
    }
}
