import Testing
import ThreadTestVectors

@testable import ThreadDataset

@Suite("Field values")
struct FieldValueTests {
    @Test("Timestamps pack 48-bit seconds, 15-bit ticks and the authoritative bit")
    func timestampLayout() throws {
        let timestamp = try ThreadTimestamp(seconds: 0x0102_0304_0506, ticks: 0x7FFF, isAuthoritative: true)
        #expect(timestamp.encoded == bytes("010203040506ffff"))
        #expect(ThreadTimestamp(rawValue: timestamp.rawValue) == timestamp)
        #expect(try ThreadTimestamp(seconds: 1).encoded == bytes("0000000000010000"))
        #expect(try ThreadTimestamp(seconds: 0, ticks: 1).encoded == bytes("0000000000000002"))
        #expect(try ThreadTimestamp(seconds: 1).description == "1")
        #expect(try ThreadTimestamp(seconds: 5, ticks: 3, isAuthoritative: true).description
            == "5 (ticks 3, authoritative)")
        #expect(try ThreadTimestamp(seconds: ThreadTimestamp.maxSeconds, ticks: ThreadTimestamp.maxTicks,
                                    isAuthoritative: true) == .invalid)
    }

    @Test("Timestamps order by validity, then seconds, ticks and the authoritative bit")
    func timestampOrder() throws {
        let ordered = [
            ThreadTimestamp.invalid,
            try ThreadTimestamp(seconds: 0),
            try ThreadTimestamp(seconds: 0, isAuthoritative: true),
            try ThreadTimestamp(seconds: 0, ticks: 1),
            try ThreadTimestamp(seconds: 1),
            try ThreadTimestamp(seconds: ThreadTimestamp.maxSeconds, ticks: ThreadTimestamp.maxTicks),
        ]
        for (index, earlier) in ordered.enumerated() {
            for later in ordered[(index + 1)...] {
                #expect(earlier < later)
                #expect(!(later < earlier))
            }
        }
        #expect(!ThreadTimestamp.invalid.isValid)
        #expect(ordered[1].isValid)
    }

    @Test("Channels 11 to 26 on page 0 are accepted and encoded big-endian", arguments: 11...26)
    func validChannels(number: Int) throws {
        let channel = try ThreadChannel(UInt16(number))
        #expect(channel.encoded == [0, 0, UInt8(number)])
        #expect(channel.description == "\(number)")
        #expect(try OperationalDataset(tlvs: [0, 3] + channel.encoded).channel == channel)
    }

    @Test("Channel masks use OpenThread's bit-reversed, big-endian layout")
    func channelMaskLayout() throws {
        let all = ChannelMask(page0ChannelBits: 0x07FF_F800)
        #expect(all.encoded == bytes("0004001fffe0"))
        #expect(all.page0Channels == Array(11...26))
        #expect(all.description == "0x07fff800")
        let apple = try ChannelMask(page0Channels: 11...25)
        #expect(apple.encoded == bytes("0004001fffc0"))
        #expect(apple.page0ChannelBits == 0x03FF_F800)
        let single = try ChannelMask(page0Channels: [0, 31])
        #expect(single.encoded == bytes("000480000001"))
        #expect(single.page0Channels == [0, 31])
    }

    @Test("Channel mask entries of other pages are kept as stored")
    func channelMaskOtherPages() throws {
        let value = bytes("0004001fffe0" + "0203ffc000")
        let mask = try #require(try OperationalDataset(tlvs: [53, UInt8(value.count)] + value).channelMask)
        #expect(mask.entries.count == 2)
        #expect(mask.entries[1].page == 2)
        #expect(mask.entries[1].maskBytes == bytes("ffc000"))
        #expect(mask.entries[1].channelBits == nil)
        #expect(mask.entries[1].channels == Array(0...9))
        #expect(mask.page0Channels == Array(11...26))
        #expect(mask.encoded == value)
        #expect(mask.description == "0x07fff800, page 2: ffc000")
        let otherOnly = try ChannelMask(entries: [ChannelMask.Entry(page: 2, maskBytes: [0xFF])])
        #expect(otherOnly.page0Entry == nil)
        #expect(otherOnly.page0ChannelBits == nil)
        #expect(otherOnly.page0Channels.isEmpty)
    }

    @Test("Security policy flags read as OpenThread prints them")
    func securityPolicyFlags() throws {
        let policy = SecurityPolicy.default
        #expect(policy.encoded == bytes("02a0f7f8"))
        #expect(policy.openThreadNotation == "672 onrc 0")
        #expect(policy.description == "672 onrc 0")
        #expect(policy.flagsHex == "f7f8")
        #expect(policy.isObtainNetworkKeyEnabled && policy.isNativeCommissioningEnabled)
        #expect(policy.isRoutersEnabled && policy.isExternalCommissioningEnabled)
        #expect(!policy.isBeaconsEnabled)
        #expect(!policy.isCommercialCommissioningEnabled && !policy.isAutonomousEnrollmentEnabled)
        #expect(!policy.isNetworkKeyProvisioningEnabled)
        #expect(policy.isToBLELinkEnabled == true)
        #expect(policy.isNonCCMRoutersEnabled == false)
        #expect(policy.versionThresholdForRouting == 0)

        let everything = try SecurityPolicy(rotationHours: 2, flagBytes: [0xF0, 0x3B])
        #expect(everything.openThreadNotation == "2 onrcCepR 3")
        #expect(everything.isToBLELinkEnabled == false)
        let nothing = try SecurityPolicy(rotationHours: 24, flagBytes: [0x0F, 0x78])
        #expect(nothing.openThreadNotation == "24 0")
        let legacy = try SecurityPolicy(rotationHours: 672, flagBytes: [0xFF])
        #expect(legacy.isBeaconsEnabled)
        #expect(legacy.isNonCCMRoutersEnabled == nil)
        #expect(legacy.isToBLELinkEnabled == nil)
        #expect(legacy.encoded == bytes("02a0ff"))
    }

    @Test("Network names are 1 to 16 bytes of UTF-8")
    func networkNames() throws {
        #expect(try NetworkName("A").utf8Bytes == [0x41])
        #expect(try NetworkName("0123456789abcdef").utf8Bytes.count == 16)
        #expect(try NetworkName("~🐣🐥🐤~").utf8Bytes.count == 14)
        #expect(try NetworkName("Café").description == "Café")
        // Four 4-byte characters fill 16 bytes; one more byte is too many.
        #expect(try NetworkName("🐣🐣🐣🐣").utf8Bytes.count == 16)
        #expect(datasetError { _ = try NetworkName("🐣🐣🐣🐣!") }?.code == .invalidLength)
        // Canonically equivalent strings with different bytes are different names.
        let composed = try NetworkName("Caf\u{E9}")
        let decomposed = try NetworkName("Cafe\u{301}")
        #expect(composed.value == decomposed.value)
        #expect(composed != decomposed)
        #expect(decomposed.utf8Bytes == bytes("43616665cc81"))
    }

    @Test("Identifiers and prefixes print as OpenThread prints them")
    func identifiers() throws {
        let extended = try ExtendedPANID(hex: "39758EC8144B07FB")
        #expect(extended.hexString == "39758ec8144b07fb")
        #expect(extended.description == "39758ec8144b07fb")
        #expect(extended.integerValue == 0x3975_8EC8_144B_07FB)
        #expect(try MeshLocalPrefix(hex: "fdf1f1add0797dc0").description == "fdf1:f1ad:d079:7dc0::/64")
        #expect(try MeshLocalPrefix(hex: "fd000db800000000").description == "fd00:db8:0:0::/64")
        #expect(try MeshLocalPrefix(hex: "fd7dda74df5e080c").description == "fd7d:da74:df5e:80c::/64")
        #expect(try MeshLocalPrefix(bytes: [0xFD, 0, 0, 0, 0, 0, 0, 1]).hexString == "fd00000000000001")
        let error = datasetError { _ = try ExtendedPANID(hex: "39758ec8144b07fz") }
        #expect(error?.tlvType == .extendedPANID)
        #expect(error?.message.hasPrefix("Extended PAN ID (type 2): ") == true)
    }

    @Test("Network information needs name, PAN ID, Extended PAN ID and channel")
    func networkInfo() throws {
        var dataset = try OperationalDataset(hex: PublishedVectors.openThread5938)
        let info = try #require(dataset.networkInfo)
        #expect(info.networkName == "OpenThread-5938")
        #expect(info.panID == 0x5938)
        #expect(info.extendedPANID.hexString == "39758ec8144b07fb")
        #expect(info.channel == 15)
        dataset.channel = nil
        #expect(dataset.networkInfo == nil)
    }

    @Test("The same network means the same Extended PAN ID, Network Key and Channel")
    func sameNetwork() throws {
        let dataset = try OperationalDataset(hex: PublishedVectors.openThread5938)
        var renamed = dataset
        renamed.networkName = try NetworkName("Renamed")
        renamed.activeTimestamp = try ThreadTimestamp(seconds: 9)
        #expect(renamed.isSameNetwork(as: dataset))
        var moved = dataset
        moved.channel = try ThreadChannel(20)
        #expect(!moved.isSameNetwork(as: dataset))
        var rekeyed = dataset
        rekeyed.networkKey = try NetworkKey(bytes: [UInt8](repeating: 9, count: 16))
        #expect(!rekeyed.isSameNetwork(as: dataset))
        var keyless = dataset
        keyless.networkKey = nil
        #expect(!keyless.isSameNetwork(as: keyless))
    }
}
