import Testing
import ThreadTestVectors

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

/// A row of ``MalformedDatasetTests/rejected``.
private func reject(
    _ name: String,
    _ hexText: String,
    _ code: ThreadDatasetError.Code,
    _ tlvType: DatasetTLVType?,
    at offset: Int?
) -> RejectedInput {
    RejectedInput(name: name, hexText: hexText, code: code, tlvType: tlvType, offset: offset)
}

/// A complete dataset (Home Assistant DATASET_1, lower case) to break in targeted ways.
private let base = PublishedVectors.homeAssistant1.lowercased()

@Suite("Malformed datasets")
struct MalformedDatasetTests {
    /// One row per input: its name and hex, then the code, TLV and offset of the error it must raise.
    static let rejected: [RejectedInput] = [
        // Hex text.
        reject("not hex", "killevippen", .invalidHexCharacter, nil, at: 0),
        reject("space inside", "0e08 00", .invalidHexCharacter, nil, at: 4),
        reject("0x prefix", "0x0e08", .invalidHexCharacter, nil, at: 1),
        reject("chip-tool's hex: prefix", "hex:0e08", .invalidHexCharacter, nil, at: 0),
        reject("odd digit count", "0e0", .oddHexLength, nil, at: 3),
        reject("255 bytes", String(repeating: "00", count: 255), .datasetTooLong, nil, at: 254),
        // Framing.
        reject("lone type byte", "ff", .truncatedHeader, DatasetTLVType(255), at: 0),
        reject("type byte after a complete dataset", base + "03", .truncatedHeader, .networkName, at: 105),
        reject("extended length", "bd00" + "03ff0010", .extendedLength, .networkName, at: 2),
        reject("value missing", "ff01", .truncatedValue, DatasetTLVType(255), at: 0),
        reject("name cut short", "030e4f70656e54687265616444656d", .truncatedValue, .networkName, at: 0),
        reject("duplicate channel", base + "000300000f", .duplicateTLV, .channel, at: 105),
        reject("duplicate unknown type", "bd0100bd0101", .duplicateTLV, DatasetTLVType(189), at: 3),
        // Per-type lengths.
        reject("channel of length 0", "0000", .invalidLength, .channel, at: 0),
        reject("PAN ID of 3 bytes", "0103123456", .invalidLength, .panID, at: 0),
        reject("Extended PAN ID of 7 bytes", "020711111111222222", .invalidLength, .extendedPANID, at: 0),
        reject("empty network name", "0300", .invalidLength, .networkName, at: 0),
        reject(
            "17-byte network name", "0311" + String(repeating: "41", count: 17), .invalidLength, .networkName, at: 0),
        reject("PSKc of 17 bytes", "0411" + String(repeating: "ab", count: 17), .invalidLength, .pskc, at: 0),
        reject(
            "network key of 15 bytes", "050f" + String(repeating: "cd", count: 15), .invalidLength, .networkKey, at: 0),
        reject("mesh-local prefix of 9 bytes", "0709fd00000000000000ff", .invalidLength, .meshLocalPrefix, at: 0),
        reject("security policy of 2 bytes", "0c0202a0", .invalidLength, .securityPolicy, at: 0),
        reject("security policy of 5 bytes", "0c0502a0f7f800", .invalidLength, .securityPolicy, at: 0),
        reject("active timestamp of 7 bytes", "0e0700000000000100", .invalidLength, .activeTimestamp, at: 0),
        reject("pending timestamp of 9 bytes", "33090000000000000100ff", .invalidLength, .pendingTimestamp, at: 0),
        reject("delay timer of 3 bytes", "3403000001", .invalidLength, .delayTimer, at: 0),
        reject("wake-up channel of 2 bytes", "4a02000f", .invalidLength, .wakeupChannel, at: 0),
        // Channels.
        reject("channel page 2", "0003020001", .unsupportedChannelPage, .channel, at: 0),
        reject("wake-up channel page 1", "4a0301000f", .unsupportedChannelPage, .wakeupChannel, at: 0),
        reject("channel 27", "000300001b", .channelOutOfRange, .channel, at: 0),
        reject("channel 10", "000300000a", .channelOutOfRange, .channel, at: 0),
        reject("channel 0x010f", "000300010f", .channelOutOfRange, .channel, at: 0),
        reject("wake-up channel 27", "4a0300001b", .channelOutOfRange, .wakeupChannel, at: 0),
        // Network names.
        reject("name ending in 0xff", "030e4f70656e54687265616444656dff", .invalidNetworkName, .networkName, at: 15),
        reject("name with NUL", "bd00" + "0303410042", .invalidNetworkName, .networkName, at: 5),
        reject("overlong UTF-8", "0302c0af", .invalidNetworkName, .networkName, at: 2),
        reject("UTF-16 surrogate", "0303eda080", .invalidNetworkName, .networkName, at: 2),
        reject("truncated UTF-8", "030341e282", .invalidNetworkName, .networkName, at: 3),
        reject("above U+10FFFF", "0304f4908080", .invalidNetworkName, .networkName, at: 2),
        // Channel masks.
        reject("empty channel mask", "3500", .emptyChannelMask, .channelMask, at: 0),
        reject(
            "Matter's mask without an entry header", "350407fff800", .truncatedChannelMaskEntry, .channelMask, at: 2),
        reject("mask entry header cut", "35070004001fffe002", .truncatedChannelMaskEntry, .channelMask, at: 8),
        reject("page-0 mask of 2 bytes", "350400021fff", .invalidChannelMaskEntryLength, .channelMask, at: 2),
        reject(
            "second page-0 entry of 3 bytes", "350b0004001fffe00003001fff", .invalidChannelMaskEntryLength,
            .channelMask, at: 8),
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
            // A type no dataset has is not named by its number: its header may be secret bytes read out of step.
            #expect(error.message.contains(type.isDatasetType ? type.description : "A TLV of a type no dataset has"), "\(error.message)")
        }
        if let offset = input.offset, input.tlvType != nil {
            #expect(error.message.contains("offset \(offset)"))
        }
        #expect(
            error.message.contains("expected") || error.message.contains("not a hex digit") || error.message.contains("its length byte says "),
            "\(error.message)")
        #expect(error.description.hasPrefix(error.code.rawValue + ": "))
    }

    static let fixedLengthTypes: [any FixedLengthValue.Type] = [
        ExtendedPANID.self, MeshLocalPrefix.self, NetworkKey.self, PSKc.self,
    ]

    @Test("Bad hex or a wrong length for a fixed-length value names its TLV", arguments: fixedLengthTypes)
    func fixedLengthValueRejects(valueType: any FixedLengthValue.Type) throws {
        try expectFixedLengthRejections(valueType)
    }

    private func expectFixedLengthRejections<Value: FixedLengthValue>(_: Value.Type) throws {
        let type = try #require((Value.self as? any FixedLengthStorage.Type)?.tlvType)
        let badHex = datasetError { _ = try Value(hex: "0g") }
        #expect(badHex?.code == .invalidHexCharacter)
        #expect(badHex?.tlvType == type)
        #expect(badHex?.offset == 1)
        #expect(badHex?.message.hasPrefix("\(type): ") == true)
        let digits = String(repeating: "5a", count: Value.byteLength)
        let short = datasetError { _ = try Value(hex: String(digits.dropLast(2))) }
        #expect(short?.code == .invalidLength)
        #expect(short?.tlvType == type)
        #expect(short?.offset == nil)
        let bytes = [UInt8](repeating: 0x5a, count: Value.byteLength)
        #expect(try Value(hex: " " + digits.uppercased() + "\n") == Value(bytes: bytes))
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
        // Channel 27, then wake-up channel 27, then a duplicate channel, then a valid PAN ID. (A name that is no
        // UTF-8 would stop the walk: see aNameSwallowingTheKey.)
        let hexText = "000300001b" + "4a0300001b" + "000300000f" + "01021234"
        let diagnosis = OperationalDataset.diagnose(hex: hexText)
        #expect(diagnosis.parseErrors.map(\.code) == [.channelOutOfRange, .channelOutOfRange, .duplicateTLV])
        #expect(diagnosis.parseErrors.map(\.offset) == [0, 5, 10])
        #expect(diagnosis.validation == nil)
        #expect(!diagnosis.isComplete)
        #expect(diagnosis.messages.count == 3)
    }

    @Test("A framing error ends the diagnosis, since nothing after it can be located")
    func diagnosisStopsAtFraming() {
        let diagnosis = OperationalDataset.diagnose(hex: "000300001b" + "03ff" + "000300001b")
        #expect(diagnosis.parseErrors.map(\.code) == [.channelOutOfRange, .extendedLength])
    }

    @Test("A secret TLV whose length is off stops the walk: no byte of the Network Key or PSKc shows as a later TLV's type or length")
    func aWrongSecretLengthStopsTheWalk() {
        let key = PublishedVectors.openThread5938NetworkKey
        let hexText = PublishedVectors.openThread5938.replacing("0510" + key.prefix(4), with: "0508" + key.prefix(4))
        let diagnosis = OperationalDataset.diagnose(hex: hexText)
        #expect(diagnosis.parseErrors.map(\.code) == [.invalidLength])
        #expect(diagnosis.parseErrors.first?.message.hasSuffix("the TLVs after it were not checked, as they start where this length byte says and it may be the wrong byte: fix this TLV first") == true)
        // Bytes 9 and 10 of the key are 0x78 and 0xd9: neither may appear as a type or a length.
        let text = diagnosis.parseErrors.map(\.message).joined(separator: " ")
        #expect(!text.contains("120") && !text.contains("217"), "\(text)")
    }

    @Test("A value longer than the bytes left names both counts where the walk is in step, and neither after a TLV of a type no dataset has")
    func aTruncatedValueNamesItsLength() {
        let cut = OperationalDataset.diagnose(hex: "0e080000").parseErrors
        #expect(cut.map(\.code) == [.truncatedValue])
        #expect(
            cut.first?.message
                == "Active Timestamp (type 14) at offset 0: its length byte says 8 bytes, and 2 are left before the end of the dataset",
            "\(cut)")
        let one = OperationalDataset.diagnose(hex: "000300000f" + "010400").parseErrors.first?.message ?? ""
        #expect(one.hasSuffix("at offset 5: its length byte says 4 bytes, and 1 is left before the end of the dataset"), "\(one)")
        // After a TLV of a type no dataset has (any length goes), the header may be bytes of a value read out of step.
        let afterUnknown = OperationalDataset.diagnose(hex: "bd0100" + "0e080000").parseErrors.first?.message ?? ""
        #expect(afterUnknown.hasSuffix("its length byte says more bytes than the 2 bytes left before the end of the dataset"), "\(afterUnknown)")
        let unknown = OperationalDataset.diagnose(hex: "bd080000").parseErrors.first?.message ?? ""
        #expect(!unknown.contains("8"), "\(unknown)")
    }

    @Test("A wrong length at the end of the dataset does not speak of TLVs after it")
    func aWrongLengthAtTheEnd() {
        let key = OperationalDataset.diagnose(hex: "050f" + String(repeating: "cd", count: 15)).parseErrors
        #expect(key.map(\.code) == [.invalidLength])
        #expect(key.first?.message == "Network Key (type 5) at offset 0: expected 16 bytes, found 15 bytes", "\(key)")
        let followed = OperationalDataset.diagnose(hex: "050f" + String(repeating: "cd", count: 15) + "000300000f").parseErrors
        #expect(followed.first?.message.contains("; the TLVs after it were not checked") == true, "\(followed)")
    }

    @Test("A prefix other tools print is named, with what to do")
    func aPrefixIsNamed() {
        for (text, prefix) in [("0x0e08", "0x"), (" hex:0e08", "hex:")] {
            let message = OperationalDataset.diagnose(hex: text).parseErrors.first?.message ?? ""
            #expect(message.contains("starts with \"\(prefix)\", which is not a hex digit; remove it"), "\(message)")
        }
    }

    @Test("A Network Name whose length reaches into the Network Key shows no byte of the key, and stops the walk")
    func aNameSwallowingTheKey() {
        let key = PublishedVectors.openThread5938NetworkKey
        // The name TLV moved just before the key and given 16 bytes: "Open", the key's header, and 10 key bytes.
        let withoutNameAndKey = PublishedVectors.openThread5938
            .replacing("0510" + key, with: "").replacing("030f4f70656e5468726561642d35393338", with: "")
        let hexText = withoutNameAndKey + "03104f70656e" + "0510" + key
        let diagnosis = OperationalDataset.diagnose(hex: hexText)
        #expect(diagnosis.parseErrors.first?.code == .invalidNetworkName, "\(diagnosis.parseErrors)")
        #expect(diagnosis.parseErrors.first?.message.hasSuffix("the TLVs after it were not checked, as they start where this length byte says and it may be the wrong byte: fix this TLV first") == true)
        let text = diagnosis.messages.joined(separator: " ").lowercased()
        for start in stride(from: 0, to: key.count - 4, by: 2) {
            let piece = String(key.dropFirst(start).prefix(6))
            #expect(!text.contains(piece), "key bytes \(piece) show: \(text)")
        }
    }

    @Test("An unknown TLV that swallows the Network Key's header leaves no byte of the key in the errors")
    func anUnknownTLVSwallowingTheKeyHeader() {
        let key = PublishedVectors.openThread5938NetworkKey
        // An unknown TLV (0x80) whose length covers "aabbcc" and the key's own header: the walk then reads key bytes.
        let hexText = PublishedVectors.openThread5938.replacing("0510" + key, with: "8005aabbcc0510" + key)
        let text = OperationalDataset.diagnose(hex: hexText).parseErrors.map(\.message).joined(separator: " ")
        for byte in stride(from: 0, to: key.count, by: 2) {
            let value = Int(key.dropFirst(byte).prefix(2), radix: 16) ?? -1
            #expect(!text.contains("type \(value))") && !text.contains("\(value) bytes"), "byte \(byte / 2) shows: \(text)")
        }
    }

    @Test("Bytes that are no dataset list at most 16 problems, saying more are not listed")
    func noiseListsAFewProblems() {
        #expect(OperationalDataset.diagnose(hex: String(repeating: "00", count: 60_000)).parseErrors.count == 2)
        let diagnosis = OperationalDataset.diagnose(hex: String(repeating: "0e080000000000010000", count: 6_000))
        #expect(diagnosis.parseErrors.count == 16)
        #expect(diagnosis.parseErrors.first?.code == .datasetTooLong)
        #expect(diagnosis.parseErrors.last?.message.contains("further problems are not listed") == true)
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
