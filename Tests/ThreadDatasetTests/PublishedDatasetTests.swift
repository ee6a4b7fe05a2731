import Testing
import ThreadTestVectors

@testable import ThreadDataset

@Suite("Published datasets")
struct PublishedDatasetTests {
    @Test("OpenThread README datasets decode exactly as the README lists them", arguments: [
        (PublishedVectors.openThread5938, PublishedVectors.openThread5938Listing),
        (PublishedVectors.openThreadDe2b, PublishedVectors.openThreadDe2bListing),
    ])
    func decodesAsOpenThreadListsIt(hexText: String, listing: [String]) throws {
        let dataset = try OperationalDataset(hex: hexText)
        #expect(dataset.summaryLines(revealingSecrets: true) == listing)
    }

    @Test("Every published dataset re-encodes to the exact bytes it was parsed from",
          arguments: PublishedVectors.wellFormed)
    func roundTripsByteExact(hexText: String) throws {
        let dataset = try OperationalDataset(hex: hexText)
        #expect(dataset.encode() == bytes(hexText))
        #expect(dataset.hexString == hexText.lowercased())
        #expect(dataset.encodedLength == hexText.count / 2)
        #expect(try OperationalDataset(tlvs: dataset.encode()) == dataset)
    }

    @Test("Complete published active datasets validate as complete", arguments: PublishedVectors.completeActive)
    func completeActiveDatasets(hexText: String) throws {
        let validation = try OperationalDataset(hex: hexText).validate(for: .active)
        #expect(validation.isComplete)
        #expect(validation.missing.isEmpty)
        #expect(validation.errors.isEmpty)
    }

    @Test("The OpenThread pending dataset decodes, apart from the Delay that counted down")
    func openThreadPendingDataset() throws {
        let dataset = try OperationalDataset(hex: PublishedVectors.openThreadPendingBff8)
        // The README printed the listing at another moment than the hex: only the Delay line differs.
        let expected = PublishedVectors.openThreadPendingBff8Listing.map {
            $0.hasPrefix("Delay: ") ? "Delay: 46354" : $0
        }
        #expect(dataset.summaryLines(revealingSecrets: true) == expected)
        #expect(dataset.delayTimer == 0x0000_B512)
        #expect(dataset.pendingTimestamp?.seconds == 2)
        #expect(dataset.validate(for: .pending).isComplete)
        #expect(dataset.validate(for: .active).isComplete)
    }

    @Test("A Wake-up Channel is decoded and is not required")
    func wakeupChannel() throws {
        let dataset = try OperationalDataset(hex: PublishedVectors.openThread6c99)
        #expect(dataset.channel?.number == 22)
        #expect(dataset.wakeupChannel?.number == 23)
        #expect(dataset.wakeupChannel?.page == 0)
        #expect(dataset.networkName?.value == "OpenThread-6c99")
        #expect(dataset.presentTypes.prefix(3) == [.activeTimestamp, .channel, .wakeupChannel])
        #expect(dataset.summaryLines().contains("Wake-up Channel: 23"))
        #expect(!DatasetRequirement.active.requiredTypes.contains(.wakeupChannel))
    }

    @Test("OpenThread's 2020 dataset has a 3-byte Security Policy with rotation 0")
    func threeByteSecurityPolicy() throws {
        let dataset = try OperationalDataset(hex: PublishedVectors.openThread8611)
        let policy = try #require(dataset.securityPolicy)
        #expect(policy.rotationHours == 0)
        #expect(policy.flagBytes == [0xFF])
        #expect(policy.openThreadNotation == "0 onrc 0")
        #expect(dataset.channel?.number == 16)
        let validation = dataset.validate()
        #expect(validation.isComplete)
        #expect(validation.warnings.map(\.code) == [.keyRotationBelowMinimum])
    }

    @Test("Home Assistant DATASET_1 decodes to the values python-otbr-api asserts")
    func homeAssistantDataset1() throws {
        let dataset = try OperationalDataset(hex: PublishedVectors.homeAssistant1)
        #expect(dataset.channel?.encoded == bytes("00000f"))
        #expect(dataset.panID == 0x1234)
        #expect(dataset.extendedPANID?.hexString == "1111111122222222")
        #expect(dataset.networkName?.value == "OpenThreadDemo")
        #expect(dataset.pskc?.revealedHex == "445f2b5ca6f2a93a55ce570a70efeecb")
        #expect(dataset.networkKey?.revealedHex == "00112233445566778899aabbccddeeff")
        #expect(dataset.meshLocalPrefix?.hexString == "fdad70bfe5aa15dd")
        #expect(dataset.securityPolicy?.encoded == bytes("02a0f7f8"))
        #expect(dataset.activeTimestamp?.encoded == bytes("0000000000010000"))
        #expect(dataset.channelMask?.encoded == bytes("0004001fffe0"))
        #expect(dataset.channelMask?.page0Channels == Array(11...26))
        #expect(dataset.unknownTLVs.isEmpty)
        #expect(
            dataset.networkInfo?.description
                == "NetworkInfo{networkName: OpenThreadDemo, panId: 0x1234, extendedPanId: 1111111122222222, "
                + "channel: 15}"
        )
    }

    @Test("Network names count bytes, not characters")
    func multiByteNames() throws {
        let emoji = try OperationalDataset(hex: PublishedVectors.homeAssistant3)
        #expect(emoji.networkName?.value == "~🐣🐥🐤~")
        #expect(emoji.networkName?.value.count == 5)
        #expect(emoji.networkName?.utf8Bytes.count == 14)
        let second = try OperationalDataset(hex: PublishedVectors.homeAssistant2)
        #expect(second.networkName?.value == "HomeAssistant!")
    }

    @Test("A newer timestamp of the same network compares greater and is the same network")
    func largerTimestamp() throws {
        let original = try OperationalDataset(hex: PublishedVectors.homeAssistant1)
        let newer = try OperationalDataset(hex: PublishedVectors.homeAssistant1LargerTimestamp)
        let originalTimestamp = try #require(original.activeTimestamp)
        let newerTimestamp = try #require(newer.activeTimestamp)
        #expect(originalTimestamp < newerTimestamp)
        #expect(newer.isSameNetwork(as: original))
        #expect(newer != original)
        let other = try OperationalDataset(hex: PublishedVectors.homeAssistant2)
        #expect(!other.isSameNetwork(as: original))
    }

    @Test("Reordered TLVs are equal as datasets but keep their own order when encoded")
    func reorderedDataset() throws {
        let original = try OperationalDataset(hex: PublishedVectors.homeAssistant1)
        let reorderedBytes = original.tlvs.reversed().flatMap(\.encoded)
        let reordered = try OperationalDataset(tlvs: reorderedBytes)
        #expect(reordered == original)
        #expect(reordered.hashValue == original.hashValue)
        #expect(reordered.encode() == reorderedBytes)
        #expect(reordered.encode() != original.encode())
    }

    @Test("A dataset missing its Active Timestamp is well formed but incomplete")
    func missingActiveTimestamp() throws {
        let dataset = try OperationalDataset(hex: PublishedVectors.homeAssistant1NoActiveTimestamp)
        let validation = dataset.validate()
        #expect(!validation.isComplete)
        #expect(validation.missing == [.activeTimestamp])
    }

    @Test("Home Assistant's pending dataset lacks the Pending Timestamp a pending dataset needs")
    func homeAssistantPending() throws {
        let dataset = try OperationalDataset(hex: PublishedVectors.homeAssistantPendingCh15)
        #expect(dataset.delayTimer == 26265)
        #expect(dataset.activeTimestamp?.seconds == 2)
        #expect(dataset.networkName?.value == "OpenThread HA")
        #expect(dataset.validate(for: .pending).missing == [.pendingTimestamp])
        #expect(dataset.validate(for: .active).isComplete)
    }

    @Test("The Apple border router's partial dataset decodes and lists what it lacks")
    func applePartialDataset() throws {
        let dataset = try OperationalDataset(hex: PublishedVectors.appleBorderRouterPartial)
        #expect(dataset.activeTimestamp?.seconds == 0x6590_1A07)
        #expect(dataset.activeTimestamp?.ticks == 0)
        #expect(dataset.channel?.number == 25)
        #expect(dataset.wakeupChannel?.number == 15)
        #expect(dataset.channelMask?.page0ChannelBits == 0x03FF_F800)
        #expect(dataset.channelMask?.page0Channels == Array(11...25))
        #expect(dataset.networkName?.value == "MyHome1231231234")
        #expect(dataset.networkInfo == nil)
        let missing = dataset.validate().missing
        #expect(missing == [.extendedPANID, .meshLocalPrefix, .networkKey, .panID, .pskc, .securityPolicy])
        #expect(missing.map(\.name) == [
            "Extended PAN ID", "Mesh-Local Prefix", "Network Key", "PAN ID", "PSKc", "Security Policy",
        ])
    }

    @Test("An unknown TLV (type 189) is kept in place, byte-exact")
    func unknownTLVKept() throws {
        let withUnknown = PublishedVectors.homeAssistant1.lowercased().replacing(
            "01021234", with: "bd03a1b2c301021234")
        let dataset = try OperationalDataset(hex: withUnknown)
        #expect(dataset.unknownTLVs == [try DatasetTLV(type: DatasetTLVType(189), value: [0xA1, 0xB2, 0xC3])])
        #expect(dataset.hexString == withUnknown)
        #expect(dataset.validate().isComplete)
        #expect(dataset.summaryLines().last == "Unknown TLV (type 189): a1b2c3")
    }

    @Test("Timestamps read as OpenThread and as Matter do")
    func timestampViews() throws {
        // python-otbr-api: 000000000190ffff is 400 s, 32767 ticks, authoritative.
        let packed = try #require(try OperationalDataset(hex: "0e08000000000190ffff").activeTimestamp)
        #expect(packed.seconds == 400)
        #expect(packed.ticks == 32767)
        #expect(packed.isAuthoritative)
        // OpenThread "seconds 1" is Matter's raw 65536; Matter's own example "timestamp 1" is OpenThread's U bit.
        let openThreadOne = try #require(try OperationalDataset(hex: PublishedVectors.homeAssistant1).activeTimestamp)
        #expect(openThreadOne.rawValue == 65536)
        let matterOne = try #require(try OperationalDataset(hex: "0e080000000000000001").activeTimestamp)
        #expect(matterOne.rawValue == 1)
        #expect(matterOne.seconds == 0)
        #expect(matterOne.isAuthoritative)
    }
}
