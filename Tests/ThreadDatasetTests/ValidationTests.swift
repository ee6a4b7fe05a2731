import Testing
import ThreadTestVectors

@testable import ThreadDataset

@Suite("Validation")
struct ValidationTests {
    private func complete() throws -> OperationalDataset {
        try OperationalDataset(hex: PublishedVectors.openThread5938)
    }

    @Test("An empty dataset misses all ten TLVs of a complete active dataset, in OpenThread's order")
    func emptyDataset() {
        let validation = OperationalDataset().validate()
        #expect(validation.missing.map(\.name) == [
            "Active Timestamp", "Channel", "Channel Mask", "Extended PAN ID", "Mesh-Local Prefix", "Network Key",
            "Network Name", "PAN ID", "PSKc", "Security Policy",
        ])
        #expect(!validation.isComplete)
        #expect(validation.errors.count == 10)
        #expect(validation.requirement == .active)
    }

    @Test("A pending dataset also needs the Pending Timestamp and the Delay Timer")
    func pendingRequirement() throws {
        #expect(DatasetRequirement.pending.requiredTypes.count == 12)
        let firstThree = DatasetRequirement.pending.requiredTypes.prefix(3)
        #expect(firstThree == [.activeTimestamp, .pendingTimestamp, .delayTimer])
        let validation = try complete().validate(for: .pending)
        #expect(validation.missing == [.pendingTimestamp, .delayTimer])
        #expect(validation.messages.first
            == "error missingTLV: Pending Timestamp (type 51) is missing; expected it in a complete Pending "
            + "Operational Dataset")
    }

    @Test("Each missing required TLV is reported by name", arguments: DatasetRequirement.active.requiredTypes)
    func eachMissingTLV(type: DatasetTLVType) throws {
        var dataset = try complete()
        dataset.removeTLV(type)
        let validation = dataset.validate()
        #expect(validation.missing == [type])
        #expect(!validation.isComplete)
        let issue = try #require(validation.errors.first)
        #expect(issue.code == .missingTLV)
        #expect(issue.tlvType == type)
        #expect(issue.message.hasPrefix("\(type.name) (type \(type.rawValue)) is missing"))
    }

    @Test("A dataset without its network key names Network Key")
    func missingNetworkKey() throws {
        var dataset = try complete()
        dataset.networkKey = nil
        let message = try #require(dataset.validate().messages.first)
        #expect(message.contains("Network Key"))
    }

    /// A change applied to a complete dataset.
    typealias Change = @Sendable (inout OperationalDataset) throws -> Void

    /// One way to provoke each validation issue code, with its severity.
    static let provoked: [(DatasetIssue.Code, DatasetIssue.Severity, Change)] = [
        (.missingTLV, .error, { $0.removeTLV(.panID) }),
        (.datasetTooLong, .error, {
            // 160 bytes of unknown TLVs on top of the 106-byte dataset.
            try $0.setUnknownTLV(DatasetTLV(type: DatasetTLVType(200), value: [UInt8](repeating: 1, count: 158)))
        }),
        (.invalidTimestamp, .error, { $0.activeTimestamp = .invalid }),
        (.invalidTimestamp, .error, { $0.pendingTimestamp = .invalid }),
        (.keyRotationBelowMinimum, .warning, {
            $0.securityPolicy = try SecurityPolicy(rotationHours: 1, flagBytes: [0xF7, 0xF8])
        }),
        (.channelMaskOutsideBand, .warning, { $0.channelMask = ChannelMask(page0ChannelBits: 0x07FF_F801) }),
        (.channelMaskWithoutUsableChannel, .warning, { $0.channelMask = ChannelMask(page0ChannelBits: 0) }),
        (.channelMaskWithoutUsableChannel, .warning, {
            $0.channelMask = try ChannelMask(entries: [ChannelMask.Entry(page: 2, maskBytes: [0xFF, 0xC0])])
        }),
        (.delayTimerAboveMaximum, .warning, { $0.delayTimer = OperationalDataset.maxDelayTimer + 1 }),
        (.broadcastPANID, .warning, { $0.panID = 0xFFFF }),
        (.meshLocalPrefixNotUniqueLocal, .warning, { $0.meshLocalPrefix = try MeshLocalPrefix(hex: "20010db800000000") }),
    ]

    @Test("Each issue code is reported with its severity")
    func eachIssueCode() throws {
        for (code, severity, change) in Self.provoked {
            var dataset = try complete()
            try change(&dataset)
            let issues = dataset.validate().issues
            #expect(issues.count == 1, "\(code): \(issues)")
            #expect(issues.first?.code == code)
            #expect(issues.first?.severity == severity)
            #expect(dataset.validate().isComplete == (severity == .warning))
            #expect(issues.first?.message.contains("expected") == true)
        }
        #expect(Set(Self.provoked.map(\.0)) == Set(DatasetIssue.Code.all))
    }

    @Test("Boundary values raise no issue")
    func boundaries() throws {
        var dataset = try complete()
        dataset.securityPolicy = try SecurityPolicy(rotationHours: 2, flagBytes: [0xF7, 0xF8])
        dataset.delayTimer = OperationalDataset.maxDelayTimer
        dataset.channelMask = try ChannelMask(page0Channels: [11])
        dataset.panID = 0xFFFE
        dataset.meshLocalPrefix = try MeshLocalPrefix(hex: "fd00000000000000")
        // 106 bytes + 6 for the Delay Timer + 142 for this TLV = 254.
        try dataset.setUnknownTLV(DatasetTLV(type: DatasetTLVType(200), value: [UInt8](repeating: 0, count: 140)))
        #expect(dataset.encodedLength == 254)
        #expect(dataset.validate().issues.isEmpty)
    }

    @Test("A dataset over 254 bytes still encodes, but does not parse back")
    func overlongEncoding() throws {
        var dataset = try complete()
        try dataset.setUnknownTLV(DatasetTLV(type: DatasetTLVType(200), value: [UInt8](repeating: 0, count: 147)))
        #expect(dataset.encode().count == 255)
        #expect(datasetError { _ = try OperationalDataset(tlvs: dataset.encode()) }?.code == .datasetTooLong)
        #expect(dataset.validate().issues.map(\.code) == [.datasetTooLong])
    }

    @Test("Issue codes round-trip through their strings")
    func issueCodes() {
        for code in DatasetIssue.Code.all {
            #expect(DatasetIssue.Code(rawValue: code.rawValue) == code)
        }
        #expect(DatasetIssue.Code(rawValue: "nope") == nil)
    }
}
