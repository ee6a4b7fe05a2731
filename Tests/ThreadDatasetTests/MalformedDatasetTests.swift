import Testing

@testable import ThreadDataset

/// One input that must be rejected, and how.
struct RejectedInput: Sendable, CustomTestStringConvertible {
    let name: String
    let hexText: String
    let code: ThreadDatasetError.Code
    let tlvType: DatasetTLVType?
    let offset: Int?

    var testDescription: String { name }
}

/// A complete dataset (Home Assistant DATASET_1, lower case) to break in targeted ways.
private let base = PublishedVectors.homeAssistant1.lowercased()

@Suite("Malformed datasets")
struct MalformedDatasetTests {
    static let rejected: [RejectedInput] = [
        // Hex text.
        RejectedInput(name: "not hex", hexText: "killevippen", code: .invalidHexCharacter, tlvType: nil, offset: 0),
        RejectedInput(name: "space inside", hexText: "0e08 00", code: .invalidHexCharacter, tlvType: nil, offset: 4),
        RejectedInput(name: "odd digit count", hexText: "0e0", code: .oddHexLength, tlvType: nil, offset: 3),
        RejectedInput(
            name: "255 bytes", hexText: String(repeating: "00", count: 255), code: .datasetTooLong,
            tlvType: nil, offset: 254),
        // Framing.
        RejectedInput(name: "lone type byte", hexText: "ff", code: .truncatedHeader, tlvType: DatasetTLVType(255),
                      offset: 0),
        RejectedInput(name: "type byte after a complete dataset", hexText: base + "03", code: .truncatedHeader,
                      tlvType: .networkName, offset: 105),
        RejectedInput(name: "extended length", hexText: "bd00" + "03ff0010", code: .extendedLength,
                      tlvType: .networkName, offset: 2),
        RejectedInput(name: "value missing", hexText: "ff01", code: .truncatedValue, tlvType: DatasetTLVType(255),
                      offset: 0),
        RejectedInput(name: "name cut short", hexText: "030e4f70656e54687265616444656d", code: .truncatedValue,
                      tlvType: .networkName, offset: 0),
        RejectedInput(name: "duplicate channel", hexText: base + "000300000f", code: .duplicateTLV,
                      tlvType: .channel, offset: 105),
        RejectedInput(name: "duplicate unknown type", hexText: "bd0100bd0101", code: .duplicateTLV,
                      tlvType: DatasetTLVType(189), offset: 3),
        // Per-type lengths.
        RejectedInput(name: "channel of length 0", hexText: "0000", code: .invalidLength, tlvType: .channel,
                      offset: 0),
        RejectedInput(name: "PAN ID of 3 bytes", hexText: "0103123456", code: .invalidLength, tlvType: .panID,
                      offset: 0),
        RejectedInput(name: "Extended PAN ID of 7 bytes", hexText: "020711111111222222", code: .invalidLength,
                      tlvType: .extendedPANID, offset: 0),
        RejectedInput(name: "empty network name", hexText: "0300", code: .invalidLength, tlvType: .networkName,
                      offset: 0),
        RejectedInput(name: "17-byte network name", hexText: "0311" + String(repeating: "41", count: 17),
                      code: .invalidLength, tlvType: .networkName, offset: 0),
        RejectedInput(name: "PSKc of 17 bytes", hexText: "0411" + String(repeating: "ab", count: 17),
                      code: .invalidLength, tlvType: .pskc, offset: 0),
        RejectedInput(name: "network key of 15 bytes", hexText: "050f" + String(repeating: "cd", count: 15),
                      code: .invalidLength, tlvType: .networkKey, offset: 0),
        RejectedInput(name: "mesh-local prefix of 9 bytes", hexText: "0709fd00000000000000ff", code: .invalidLength,
                      tlvType: .meshLocalPrefix, offset: 0),
        RejectedInput(name: "security policy of 2 bytes", hexText: "0c0202a0", code: .invalidLength,
                      tlvType: .securityPolicy, offset: 0),
        RejectedInput(name: "security policy of 5 bytes", hexText: "0c0502a0f7f800", code: .invalidLength,
                      tlvType: .securityPolicy, offset: 0),
        RejectedInput(name: "active timestamp of 7 bytes", hexText: "0e0700000000000100", code: .invalidLength,
                      tlvType: .activeTimestamp, offset: 0),
        RejectedInput(name: "pending timestamp of 9 bytes", hexText: "33090000000000000100ff", code: .invalidLength,
                      tlvType: .pendingTimestamp, offset: 0),
        RejectedInput(name: "delay timer of 3 bytes", hexText: "3403000001", code: .invalidLength,
                      tlvType: .delayTimer, offset: 0),
        RejectedInput(name: "wake-up channel of 2 bytes", hexText: "4a02000f", code: .invalidLength,
                      tlvType: .wakeupChannel, offset: 0),
        // Channels.
        RejectedInput(name: "channel page 2", hexText: "0003020001", code: .unsupportedChannelPage,
                      tlvType: .channel, offset: 0),
        RejectedInput(name: "wake-up channel page 1", hexText: "4a0301000f", code: .unsupportedChannelPage,
                      tlvType: .wakeupChannel, offset: 0),
        RejectedInput(name: "channel 27", hexText: "000300001b", code: .channelOutOfRange, tlvType: .channel,
                      offset: 0),
        RejectedInput(name: "channel 10", hexText: "000300000a", code: .channelOutOfRange, tlvType: .channel,
                      offset: 0),
        RejectedInput(name: "channel 0x010f", hexText: "000300010f", code: .channelOutOfRange, tlvType: .channel,
                      offset: 0),
        RejectedInput(name: "wake-up channel 27", hexText: "4a0300001b", code: .channelOutOfRange,
                      tlvType: .wakeupChannel, offset: 0),
        // Network names.
        RejectedInput(name: "name ending in 0xff", hexText: "030e4f70656e54687265616444656dff",
                      code: .invalidNetworkName, tlvType: .networkName, offset: 15),
        RejectedInput(name: "name with NUL", hexText: "bd00" + "0303410042", code: .invalidNetworkName,
                      tlvType: .networkName, offset: 5),
        RejectedInput(name: "overlong UTF-8", hexText: "0302c0af", code: .invalidNetworkName, tlvType: .networkName,
                      offset: 2),
        RejectedInput(name: "UTF-16 surrogate", hexText: "0303eda080", code: .invalidNetworkName,
                      tlvType: .networkName, offset: 2),
        RejectedInput(name: "truncated UTF-8", hexText: "030341e282", code: .invalidNetworkName,
                      tlvType: .networkName, offset: 3),
        RejectedInput(name: "above U+10FFFF", hexText: "0304f4908080", code: .invalidNetworkName,
                      tlvType: .networkName, offset: 2),
        // Channel masks.
        RejectedInput(name: "empty channel mask", hexText: "3500", code: .emptyChannelMask, tlvType: .channelMask,
                      offset: 0),
        RejectedInput(name: "Matter's mask without an entry header", hexText: "350407fff800",
                      code: .truncatedChannelMaskEntry, tlvType: .channelMask, offset: 2),
        RejectedInput(name: "mask entry header cut", hexText: "35070004001fffe002", code: .truncatedChannelMaskEntry,
                      tlvType: .channelMask, offset: 8),
        RejectedInput(name: "page-0 mask of 2 bytes", hexText: "350400021fff", code: .invalidChannelMaskEntryLength,
                      tlvType: .channelMask, offset: 2),
        RejectedInput(name: "second page-0 entry of 3 bytes", hexText: "350b0004001fffe00003001fff",
                      code: .invalidChannelMaskEntryLength, tlvType: .channelMask, offset: 8),
    ]

    @Test("Malformed input is rejected with the right code, TLV and offset", arguments: rejected)
    func rejects(input: RejectedInput) throws {
        let error = datasetError { _ = try OperationalDataset(hex: input.hexText) }
        #expect(error?.code == input.code)
        #expect(error?.tlvType == input.tlvType)
        #expect(error?.offset == input.offset)
        // The collecting diagnosis reports the same error first.
        let diagnosis = OperationalDataset.diagnose(hex: input.hexText)
        #expect(!diagnosis.isWellFormed)
        #expect(diagnosis.dataset == nil)
        #expect(diagnosis.parseErrors.first == error)
    }

    @Test("Messages name the TLV, the offset, and what was expected versus found", arguments: rejected)
    func messagesAreActionable(input: RejectedInput) throws {
        let error = try #require(datasetError { _ = try OperationalDataset(hex: input.hexText) })
        if let type = input.tlvType {
            #expect(error.message.contains(type.description))
        }
        if let offset = input.offset, input.tlvType != nil {
            #expect(error.message.contains("offset \(offset)"))
        }
        #expect(error.message.contains("expected") || error.message.contains("not a hex digit"))
        #expect(error.description.hasPrefix(error.code.rawValue + ": "))
    }

    @Test("Bytes longer than 254 are rejected before anything else")
    func tooLongBytes() throws {
        let error = datasetError { _ = try OperationalDataset(tlvs: [UInt8](repeating: 0, count: 255)) }
        #expect(error?.code == .datasetTooLong)
        #expect(error?.message.contains("255 bytes") == true)
        // 254 bytes of well-formed TLVs are fine: one unknown TLV with a 252-byte value.
        let longest = [0xBD, 252] + [UInt8](repeating: 7, count: 252)
        #expect(try OperationalDataset(tlvs: longest).encode() == longest)
    }

    @Test("White space around hex is ignored, and case does not matter")
    func hexLeniency() throws {
        let padded = "  \n" + PublishedVectors.homeAssistant1 + "\r\n\t"
        #expect(try OperationalDataset(hex: padded) == OperationalDataset(hex: PublishedVectors.homeAssistant1))
        #expect(try OperationalDataset(hex: "").isEmpty)
        #expect(try OperationalDataset(hex: " ").isEmpty)
    }

    @Test("A non-ASCII character in hex is reported by code point")
    func nonASCIIHex() {
        let error = datasetError { _ = try OperationalDataset(hex: "0e0é") }
        #expect(error?.code == .invalidHexCharacter)
        #expect(error?.offset == 3)
        #expect(error?.message.contains("U+00E9") == true)
    }

    @Test("A diagnosis lists every problem inside TLVs, not only the first")
    func diagnosisCollectsAll() {
        // Channel 27, then a name with invalid UTF-8, then a duplicate channel, then a valid PAN ID.
        let hexText = "000300001b" + "0302c0af" + "000300000f" + "01021234"
        let diagnosis = OperationalDataset.diagnose(hex: hexText)
        #expect(diagnosis.parseErrors.map(\.code) == [.channelOutOfRange, .invalidNetworkName, .duplicateTLV])
        #expect(diagnosis.parseErrors.map(\.offset) == [0, 7, 9])
        #expect(diagnosis.validation == nil)
        #expect(!diagnosis.isComplete)
        #expect(diagnosis.messages.count == 3)
    }

    @Test("A framing error ends the diagnosis, since nothing after it can be located")
    func diagnosisStopsAtFraming() {
        let diagnosis = OperationalDataset.diagnose(hex: "000300001b" + "03ff" + "000300001b")
        #expect(diagnosis.parseErrors.map(\.code) == [.channelOutOfRange, .extendedLength])
    }

    @Test("A diagnosis of an over-long dataset still walks its TLVs")
    func diagnosisOfLongDataset() {
        let hexText = "bdfc" + String(repeating: "00", count: 252) + "000300001b"
        let diagnosis = OperationalDataset.diagnose(hex: hexText)
        #expect(diagnosis.parseErrors.map(\.code) == [.datasetTooLong, .channelOutOfRange])
    }

    @Test("A well-formed diagnosis carries the dataset and its validation")
    func diagnosisOfGoodDataset() throws {
        let diagnosis = OperationalDataset.diagnose(hex: PublishedVectors.openThread5938)
        #expect(diagnosis.isWellFormed)
        #expect(diagnosis.isComplete)
        #expect(diagnosis.messages.isEmpty)
        #expect(diagnosis.dataset == (try OperationalDataset(hex: PublishedVectors.openThread5938)))
        let partial = OperationalDataset.diagnose(hex: PublishedVectors.appleBorderRouterPartial)
        #expect(partial.isWellFormed)
        #expect(!partial.isComplete)
        #expect(partial.messages.count == 6)
        #expect(partial.messages.contains { $0.contains("Network Key (type 5) is missing") })
    }

    @Test("Errors compare by code, TLV and offset, not by message")
    func errorEquality() {
        let first = ThreadDatasetError(code: .invalidLength, tlvType: .channel, offset: 3, message: "one")
        let second = ThreadDatasetError(code: .invalidLength, tlvType: .channel, offset: 3, message: "two")
        let third = ThreadDatasetError(code: .invalidLength, tlvType: .channel, offset: 4, message: "one")
        #expect(first == second)
        #expect(first.hashValue == second.hashValue)
        #expect(first != third)
        #expect(ThreadDatasetError.Code(rawValue: "duplicateTLV") == .duplicateTLV)
        #expect(ThreadDatasetError.Code(rawValue: "noSuchCode") == nil)
    }
}
