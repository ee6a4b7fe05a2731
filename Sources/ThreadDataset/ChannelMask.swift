/// The Channel Mask TLV: which channels of which pages the network may use.
///
/// The value is one or more entries `page:u8, maskLength:u8, mask`. A page-0 entry has a 4-byte mask, stored
/// the way OpenThread stores it: the 32-bit channel mask (bit *n* = channel *n*) is bit-reversed and written
/// big-endian, so the first byte's top bit is channel 0. OpenThread's usual mask `0x07fff800` (channels 11 to
/// 26) is therefore encoded `00 1f ff e0`. Entries for other pages are kept as they are.
public struct ChannelMask: Hashable, Sendable, CustomStringConvertible {
    /// One `page, maskLength, mask` entry.
    public struct Entry: Hashable, Sendable {
        /// The largest mask that fits in a dataset: the largest TLV value minus the entry's two header bytes.
        public static let maxMaskLength = DatasetTLV.maxValueLength - 2

        /// The channel page.
        public let page: UInt8
        /// The mask bytes as stored (bit-reversed, big-endian for page 0).
        public let maskBytes: [UInt8]

        /// Creates an entry from stored mask bytes.
        ///
        /// - Parameters:
        ///   - page: The channel page.
        ///   - maskBytes: The mask as stored; exactly 4 bytes for page 0.
        /// - Throws: ``ThreadDatasetError`` `invalidChannelMaskEntryLength` for a page-0 mask that is not
        ///   4 bytes, or `invalidLength` for a mask too long to fit in a dataset.
        public init(page: UInt8, maskBytes: [UInt8]) throws(ThreadDatasetError) {
            if page == ThreadChannel.supportedPage, maskBytes.count != 4 {
                throw ThreadDatasetError(
                    code: .invalidChannelMaskEntryLength,
                    tlvType: .channelMask,
                    message: "\(DatasetTLVType.channelMask): expected a 4-byte mask in a page-0 entry, found "
                        + byteCount(maskBytes.count)
                )
            }
            guard maskBytes.count <= Self.maxMaskLength else {
                throw ThreadDatasetError.invalidLength(
                    .channelMask,
                    at: nil,
                    expected: "a mask of at most \(Self.maxMaskLength) bytes",
                    found: maskBytes.count
                )
            }
            self.page = page
            self.maskBytes = maskBytes
        }

        /// Creates a page-0 entry from an OpenThread channel mask (bit *n* set = channel *n* allowed).
        ///
        /// - Parameter channelBits: The mask, for example `0x07fff800` for channels 11 to 26.
        public init(page0ChannelBits channelBits: UInt32) {
            let stored = reverseBits(channelBits)
            page = ThreadChannel.supportedPage
            maskBytes = bigEndianBytes(stored)
        }

        /// The OpenThread channel mask (bit *n* = channel *n*) of a 4-byte entry, or `nil` for other lengths.
        public var channelBits: UInt32? {
            guard maskBytes.count == 4 else { return nil }
            return reverseBits(bigEndianInteger(maskBytes))
        }

        /// The channel numbers the mask selects, ascending.
        public var channels: [Int] {
            var result: [Int] = []
            for (index, byte) in maskBytes.enumerated() {
                for bit in 0..<8 where byte & (0x80 >> UInt8(bit)) != 0 {
                    result.append(index * 8 + bit)
                }
            }
            return result
        }

        /// The encoded entry: page, mask length, mask.
        var encoded: [UInt8] {
            [page, UInt8(truncatingIfNeeded: maskBytes.count)] + maskBytes
        }
    }

    /// The entries in their stored order; never empty.
    public let entries: [Entry]

    /// Creates a mask from entries.
    ///
    /// - Parameter entries: One or more entries.
    /// - Throws: ``ThreadDatasetError`` `emptyChannelMask` without entries, or `invalidLength` when the entries
    ///   do not fit in one TLV.
    public init(entries: [Entry]) throws(ThreadDatasetError) {
        guard !entries.isEmpty else {
            throw ThreadDatasetError(
                code: .emptyChannelMask,
                tlvType: .channelMask,
                message: "\(DatasetTLVType.channelMask): expected at least one page entry, found none"
            )
        }
        let length = entries.reduce(0) { $0 + 2 + $1.maskBytes.count }
        guard length <= DatasetTLV.maxValueLength else {
            throw ThreadDatasetError.invalidLength(
                .channelMask,
                at: nil,
                expected: "at most \(DatasetTLV.maxValueLength) bytes of entries",
                found: length
            )
        }
        self.entries = entries
    }

    /// Creates a page-0 mask from an OpenThread channel mask, for example `0x07fff800`.
    ///
    /// - Parameter channelBits: Bit *n* set allows channel *n*.
    public init(page0ChannelBits channelBits: UInt32) {
        entries = [Entry(page0ChannelBits: channelBits)]
    }

    /// Creates a page-0 mask from channel numbers.
    ///
    /// - Parameter channels: Channel numbers from 0 to 31 (Thread uses 11 to 26).
    /// - Throws: ``ThreadDatasetError`` `valueOutOfRange` for a number a 32-bit mask cannot hold.
    public init(page0Channels channels: some Sequence<Int>) throws(ThreadDatasetError) {
        var bits: UInt32 = 0
        for channel in channels {
            guard (0...31).contains(channel) else {
                throw ThreadDatasetError.outOfRange(
                    .channelMask,
                    "a page-0 mask holds channels 0 to 31, found \(channel)"
                )
            }
            bits |= 1 << UInt32(channel)
        }
        self.init(page0ChannelBits: bits)
    }

    /// The first page-0 entry, if any.
    public var page0Entry: Entry? {
        entries.first { $0.page == ThreadChannel.supportedPage }
    }

    /// The page-0 OpenThread channel mask (bit *n* = channel *n*), if there is a page-0 entry.
    public var page0ChannelBits: UInt32? {
        page0Entry?.channelBits
    }

    /// The page-0 channel numbers, ascending; empty when there is no page-0 entry.
    public var page0Channels: [Int] {
        page0Entry?.channels ?? []
    }

    /// The encoded TLV value.
    public var encoded: [UInt8] {
        entries.flatMap(\.encoded)
    }

    /// The number of bytes of ``encoded``: each entry's page and length bytes, then its mask.
    var encodedLength: Int {
        entries.reduce(0) { $0 + 2 + $1.maskBytes.count }
    }

    /// Page 0 as OpenThread prints it (`0x07fff800`); other pages as `page N: <hex>`.
    public var description: String {
        entries.map { entry in
            if entry.page == ThreadChannel.supportedPage, let bits = entry.channelBits {
                return "0x" + Hex.padded(bits, width: 8)
            }
            return "page \(entry.page): \(Hex.encode(entry.maskBytes))"
        }.joined(separator: ", ")
    }

    /// Decodes the value of a Channel Mask TLV.
    ///
    /// - Parameters:
    ///   - value: The value bytes.
    ///   - offset: The TLV's offset; entry offsets in messages are absolute too.
    static func decode(_ value: ArraySlice<UInt8>, offset: Int) throws(ThreadDatasetError) -> ChannelMask {
        // Formatted only for a message.
        var subject: String { ThreadDatasetError.subject(.channelMask, at: offset) }
        guard !value.isEmpty else {
            throw ThreadDatasetError(
                code: .emptyChannelMask,
                tlvType: .channelMask,
                offset: offset,
                message: "\(subject): expected at least one page entry, found an empty value"
            )
        }
        var entries: [Entry] = []
        var index = value.startIndex
        while index < value.endIndex {
            let entryOffset = offset + 2 + (index - value.startIndex)
            let remaining = value.endIndex - index
            guard remaining >= 2 else {
                throw truncatedEntry(subject, entryOffset, "needs 2 header bytes (page, mask length)", remaining)
            }
            let page = value[index]
            let maskLength = Int(value[index + 1])
            guard remaining - 2 >= maskLength else {
                throw truncatedEntry(subject, entryOffset, "declares a \(maskLength)-byte mask", remaining - 2)
            }
            if page == ThreadChannel.supportedPage, maskLength != 4 {
                throw ThreadDatasetError(
                    code: .invalidChannelMaskEntryLength,
                    tlvType: .channelMask,
                    offset: entryOffset,
                    message: "\(subject): expected a 4-byte mask in the page-0 entry at offset \(entryOffset), "
                        + "found a mask length of \(maskLength)"
                )
            }
            let mask = Array(value[(index + 2)..<(index + 2 + maskLength)])
            entries.append(try Entry(page: page, maskBytes: mask))
            index += 2 + maskLength
        }
        return try ChannelMask(entries: entries)
    }

    private static func truncatedEntry(
        _ subject: String,
        _ entryOffset: Int,
        _ expectation: String,
        _ available: Int
    ) -> ThreadDatasetError {
        ThreadDatasetError(
            code: .truncatedChannelMaskEntry,
            tlvType: .channelMask,
            offset: entryOffset,
            message: "\(subject): the entry at offset \(entryOffset) \(expectation), so expected that many "
                + "bytes, found \(byteCount(available)) left in the TLV"
        )
    }
}

/// Reverses the bit order of a 32-bit word (bit 0 becomes bit 31).
private func reverseBits(_ word: UInt32) -> UInt32 {
    var input = word
    var output: UInt32 = 0
    for _ in 0..<32 {
        output = output << 1 | (input & 1)
        input >>= 1
    }
    return output
}
