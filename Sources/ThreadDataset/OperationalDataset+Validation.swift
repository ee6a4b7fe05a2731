extension OperationalDataset {
    /// The longest Delay Timer OpenThread accepts: 72 hours, in milliseconds.
    public static let maxDelayTimer: UInt32 = 72 * 60 * 60 * 1000

    /// Checks the dataset against a requirement and reports every problem found.
    ///
    /// Parsing already guarantees each TLV is well formed. Validation checks what only the whole dataset can
    /// tell: which required TLVs are missing, whether the encoding fits in 254 bytes, and values a Thread stack
    /// would refuse (an invalid timestamp) or adjust (a rotation time below 2 hours, mask bits outside 11 to 26,
    /// a Delay Timer above 72 hours), or that no network should have (the broadcast PAN ID, a Mesh-Local Prefix
    /// that is not fd00::/8).
    ///
    /// - Parameter requirement: What the dataset must contain; ``DatasetRequirement/active`` (the default)
    ///   is what joining a network needs.
    /// - Returns: Every issue; ``DatasetValidation/isComplete`` is `true` when none is an error.
    public func validate(for requirement: DatasetRequirement = .active) -> DatasetValidation {
        var issues: [DatasetIssue] = []
        for type in requirement.requiredTypes where !contains(type) {
            issues.append(DatasetIssue(
                code: .missingTLV,
                severity: .error,
                tlvType: type,
                message: "\(type) is missing; expected it in a complete \(requirement.datasetName)"
            ))
        }
        let length = encodedLength
        if length > Self.maxLength {
            issues.append(DatasetIssue(
                code: .datasetTooLong,
                severity: .error,
                tlvType: nil,
                message: "the encoded dataset is \(byteCount(length)); expected at most \(Self.maxLength) bytes, "
                    + "so remove unknown TLVs or channel-mask entries"
            ))
        }
        let timestamps = [(DatasetTLVType.activeTimestamp, activeTimestamp), (.pendingTimestamp, pendingTimestamp)]
        for (type, timestamp) in timestamps {
            if let timestamp, !timestamp.isValid {
                issues.append(DatasetIssue(
                    code: .invalidTimestamp,
                    severity: .error,
                    tlvType: type,
                    message: "\(type) is all ones, which Thread reserves for \"invalid\"; expected a real time"
                ))
            }
        }
        if let securityPolicy, securityPolicy.rotationHours < SecurityPolicy.minimumRotationHours {
            issues.append(DatasetIssue(
                code: .keyRotationBelowMinimum,
                severity: .warning,
                tlvType: .securityPolicy,
                message: "\(DatasetTLVType.securityPolicy): expected a key rotation time of at least "
                    + "\(SecurityPolicy.minimumRotationHours) hours, found \(securityPolicy.rotationHours); "
                    + "OpenThread will use \(SecurityPolicy.minimumRotationHours)"
            ))
        }
        if let channelMask {
            issues += Self.channelMaskIssues(channelMask)
        }
        if let delayTimer, delayTimer > Self.maxDelayTimer {
            issues.append(DatasetIssue(
                code: .delayTimerAboveMaximum,
                severity: .warning,
                tlvType: .delayTimer,
                message: "\(DatasetTLVType.delayTimer): expected at most \(Self.maxDelayTimer) ms (72 hours), "
                    + "found \(delayTimer) ms"
            ))
        }
        if panID == 0xFFFF {
            issues.append(DatasetIssue(
                code: .broadcastPANID,
                severity: .warning,
                tlvType: .panID,
                message: "\(DatasetTLVType.panID): 0xFFFF is IEEE 802.15.4's broadcast PAN ID, which no network can use as "
                    + "its own; expected 0x0000 to 0xFFFE"
            ))
        }
        if let meshLocalPrefix, meshLocalPrefix.bytes.first != 0xFD {
            issues.append(DatasetIssue(
                code: .meshLocalPrefixNotUniqueLocal,
                severity: .warning,
                tlvType: .meshLocalPrefix,
                message: "\(DatasetTLVType.meshLocalPrefix): expected a unique local prefix (fd00::/8), as Thread makes "
                    + "for a network, found \(meshLocalPrefix)"
            ))
        }
        return DatasetValidation(requirement: requirement, issues: issues)
    }

    private static func channelMaskIssues(_ mask: ChannelMask) -> [DatasetIssue] {
        let channels = mask.page0Channels
        let usable = channels.filter { ThreadChannel.supportedChannels.contains(UInt16($0)) }
        let outside = channels.filter { !ThreadChannel.supportedChannels.contains(UInt16($0)) }
        var issues: [DatasetIssue] = []
        if usable.isEmpty {
            issues.append(DatasetIssue(
                code: .channelMaskWithoutUsableChannel,
                severity: .warning,
                tlvType: .channelMask,
                message: "\(DatasetTLVType.channelMask): expected a page-0 entry selecting channels from 11 to 26, "
                    + (mask.page0Entry == nil ? "found no page-0 entry" : "found none selected")
            ))
        }
        if !outside.isEmpty {
            let list = outside.map(String.init).joined(separator: ", ")
            issues.append(DatasetIssue(
                code: .channelMaskOutsideBand,
                severity: .warning,
                tlvType: .channelMask,
                message: "\(DatasetTLVType.channelMask): expected only channels 11 to 26 on page 0, found "
                    + "channel\(outside.count == 1 ? "" : "s") \(list) outside that range; a 2.4 GHz radio ignores "
                    + (outside.count == 1 ? "it" : "them")
            ))
        }
        return issues
    }
}
