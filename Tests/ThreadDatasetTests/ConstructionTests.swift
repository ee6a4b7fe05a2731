import Testing
import ThreadTestVectors

@testable import ThreadDataset

/// A value built in code that must be refused, and how.
struct RefusedConstruction: Sendable, CustomTestStringConvertible {
    let name: String
    let code: ThreadDatasetError.Code
    let build: @Sendable () throws -> Void

    var testDescription: String { name }
}

@Suite("Building values in code")
struct ConstructionTests {
    static let refused: [RefusedConstruction] = [
        RefusedConstruction(name: "timestamp seconds above 48 bits", code: .valueOutOfRange) {
            _ = try ThreadTimestamp(seconds: ThreadTimestamp.maxSeconds + 1)
        },
        RefusedConstruction(name: "timestamp ticks above 15 bits", code: .valueOutOfRange) {
            _ = try ThreadTimestamp(seconds: 1, ticks: 0x8000)
        },
        RefusedConstruction(name: "mask channel 32", code: .valueOutOfRange) {
            _ = try ChannelMask(page0Channels: [11, 32])
        },
        RefusedConstruction(name: "mask channel -1", code: .valueOutOfRange) {
            _ = try ChannelMask(page0Channels: [-1])
        },
        RefusedConstruction(name: "raw TLV of a typed type", code: .reservedTLVType) {
            var dataset = OperationalDataset()
            try dataset.setUnknownTLV(DatasetTLV(type: .networkKey, value: [UInt8](repeating: 0, count: 16)))
        },
        RefusedConstruction(name: "channel 27", code: .channelOutOfRange) { _ = try ThreadChannel(27) },
        RefusedConstruction(name: "channel page 2", code: .unsupportedChannelPage) {
            _ = try ThreadChannel(page: 2, number: 1)
        },
        RefusedConstruction(name: "empty name", code: .invalidLength) { _ = try NetworkName("") },
        RefusedConstruction(name: "17-byte name", code: .invalidLength) { _ = try NetworkName("0123456789abcdefg") },
        RefusedConstruction(name: "name with NUL", code: .invalidNetworkName) { _ = try NetworkName("a\u{0}b") },
        RefusedConstruction(name: "7-byte Extended PAN ID", code: .invalidLength) {
            _ = try ExtendedPANID(bytes: [1, 2, 3, 4, 5, 6, 7])
        },
        RefusedConstruction(name: "Extended PAN ID with a bad digit", code: .invalidHexCharacter) {
            _ = try ExtendedPANID(hex: "39758ec8144b07fz")
        },
        RefusedConstruction(name: "mesh-local prefix of 9 hex bytes", code: .invalidLength) {
            _ = try MeshLocalPrefix(hex: "fd00000000000000ff")
        },
        RefusedConstruction(name: "network key of 15 bytes", code: .invalidLength) {
            _ = try NetworkKey(bytes: [UInt8](repeating: 1, count: 15))
        },
        RefusedConstruction(name: "PSKc with odd hex", code: .oddHexLength) { _ = try PSKc(hex: "abc") },
        RefusedConstruction(name: "security policy with 3 flag bytes", code: .invalidLength) {
            _ = try SecurityPolicy(rotationHours: 672, flagBytes: [0xF7, 0xF8, 0x00])
        },
        RefusedConstruction(name: "security policy without flags", code: .invalidLength) {
            _ = try SecurityPolicy(rotationHours: 672, flagBytes: [])
        },
        RefusedConstruction(name: "page-0 mask entry of 3 bytes", code: .invalidChannelMaskEntryLength) {
            _ = try ChannelMask.Entry(page: 0, maskBytes: [0, 0x1F, 0xFF])
        },
        RefusedConstruction(name: "mask without entries", code: .emptyChannelMask) {
            _ = try ChannelMask(entries: [])
        },
        RefusedConstruction(name: "mask entries longer than a TLV", code: .invalidLength) {
            let entry = try ChannelMask.Entry(page: 1, maskBytes: [UInt8](repeating: 0xFF, count: 200))
            _ = try ChannelMask(entries: [entry, entry])
        },
        RefusedConstruction(name: "mask entry longer than a TLV", code: .invalidLength) {
            _ = try ChannelMask.Entry(page: 1, maskBytes: [UInt8](repeating: 0xFF, count: 251))
        },
        RefusedConstruction(name: "raw TLV value of 253 bytes", code: .invalidLength) {
            _ = try DatasetTLV(type: DatasetTLVType(200), value: [UInt8](repeating: 0, count: 253))
        },
    ]

    @Test("Out-of-range values are refused with the right code", arguments: refused)
    func refuses(construction: RefusedConstruction) {
        let error = datasetError { try construction.build() }
        #expect(error?.code == construction.code)
        // Only hex-text errors carry an offset (a character index); values built in code have none.
        #expect(error?.offset == nil || [.invalidHexCharacter, .oddHexLength].contains(construction.code))
        #expect(error?.message.isEmpty == false)
    }

    @Test("Every error code has an input that triggers it")
    func everyErrorCodeIsCovered() {
        let covered = Set(MalformedDatasetTests.rejected.map(\.code) + Self.refused.map(\.code))
        #expect(covered == Set(ThreadDatasetError.Code.all))
        #expect(ThreadDatasetError.Code.all.count == Set(ThreadDatasetError.Code.all.map(\.rawValue)).count)
    }

    @Test("A dataset built in code encodes in OpenThread's order and parses back equal")
    func buildInCode() throws {
        var dataset = OperationalDataset()
        dataset.securityPolicy = .default
        dataset.pskc = try PSKc(hex: "3ca67c969efb0d0c74a4d8ee923b576c")
        dataset.panID = 0x5938
        dataset.networkName = try NetworkName("OpenThread-5938")
        dataset.networkKey = try NetworkKey(hex: "f366cec7a446bab978d90d27abe38f23")
        dataset.meshLocalPrefix = try MeshLocalPrefix(hex: "fdf1f1add0797dc0")
        dataset.extendedPANID = try ExtendedPANID(hex: "39758EC8144B07FB")
        dataset.channelMask = ChannelMask(page0ChannelBits: 0x07FF_F800)
        dataset.channel = try ThreadChannel(15)
        dataset.activeTimestamp = try ThreadTimestamp(seconds: 1)
        // Fields set in any order come out in OpenThread's order: the README's bytes exactly.
        #expect(dataset.hexString == PublishedVectors.openThread5938)
        #expect(try OperationalDataset(hex: dataset.hexString) == dataset)
    }

    @Test("Fields added to a parsed dataset go after the parsed TLVs; removed ones disappear")
    func editParsedDataset() throws {
        var dataset = try OperationalDataset(hex: PublishedVectors.homeAssistant1NoActiveTimestamp)
        dataset.activeTimestamp = try ThreadTimestamp(seconds: 1)
        let original = bytes(PublishedVectors.homeAssistant1NoActiveTimestamp)
        #expect(dataset.encode() == original + bytes("0e080000000000010000"))
        #expect(dataset.validate().isComplete)

        dataset.removeTLV(.pskc)
        #expect(!dataset.contains(.pskc))
        #expect(dataset.validate().missing == [.pskc])
        dataset.pskc = try PSKc(hex: "445f2b5ca6f2a93a55ce570a70efeecb")
        // A field set again returns to its parsed position.
        #expect(dataset.encode() == original + bytes("0e080000000000010000"))
    }

    @Test("Unknown TLVs can be added, replaced and removed")
    func editUnknownTLVs() throws {
        var dataset = try OperationalDataset(hex: PublishedVectors.openThread5938)
        try dataset.setUnknownTLV(DatasetTLV(type: DatasetTLVType(189), value: [1]))
        try dataset.setUnknownTLV(DatasetTLV(type: DatasetTLVType(190), value: []))
        try dataset.setUnknownTLV(DatasetTLV(type: DatasetTLVType(189), value: [2, 3]))
        #expect(dataset.unknownTLVs.map(\.type.rawValue) == [189, 190])
        #expect(dataset.hexString == PublishedVectors.openThread5938 + "bd020203" + "be00")
        dataset.removeTLV(DatasetTLVType(189))
        #expect(dataset.hexString == PublishedVectors.openThread5938 + "be00")
        dataset.removeTLV(DatasetTLVType(191))
        #expect(dataset.hexString == PublishedVectors.openThread5938 + "be00")
        let reparsed = try OperationalDataset(hex: dataset.hexString)
        #expect(reparsed.unknownTLVs == dataset.unknownTLVs)
        #expect(reparsed.tlv(for: DatasetTLVType(190))?.encodedLength == 2)
    }

    @Test("Type names and descriptions")
    func typeNames() {
        #expect(DatasetTLVType.networkKey.description == "Network Key (type 5)")
        #expect(DatasetTLVType(189).description == "Unknown TLV (type 189)")
        #expect(DatasetTLVType(6).name == "Network Key Sequence")
        #expect(!DatasetTLVType(6).isDatasetType)
        #expect(DatasetTLVType.datasetTypes.count == 13)
        #expect(DatasetTLVType.datasetTypes.allSatisfy { $0.isDatasetType })
        #expect(DatasetTLVType.datasetTypes.allSatisfy { $0.name != "Unknown" })
        #expect(DatasetTLVType(rawValue: 53) == .channelMask)
        #expect(DatasetTLVType.channel < DatasetTLVType.wakeupChannel)
    }
}
