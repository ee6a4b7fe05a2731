extension OperationalDataset: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The dataset as OpenThread's `dataset active` lists it, one `Name: value` line per TLV present.
    ///
    /// Lines come in OpenThread's order whatever the TLV order: Pending Timestamp, Active Timestamp, Channel,
    /// Wake-up Channel, Channel Mask, Delay, Ext PAN ID, Mesh Local Prefix, Network Key, Network Name, PAN ID,
    /// PSKc, Security Policy, then unknown TLVs as `Name (type N): hex`. Control characters in the Network Name are
    /// shown as `\u` escapes (``NetworkName/displayText``).
    ///
    /// - Parameter revealingSecrets: Whether to show the Network Key and PSKc. By default they are shown as
    ///   `[redacted]`, like `dataset active -ns`.
    /// - Returns: The lines, without line terminators.
    public func summaryLines(revealingSecrets: Bool = false) -> [String] {
        var lines: [String] = []
        func add(_ label: String, _ value: String?) {
            if let value { lines.append("\(label): \(value)") }
        }
        func secret(_ hex: String?) -> String? {
            hex.map { revealingSecrets ? $0 : redactedText }
        }
        add("Pending Timestamp", pendingTimestamp?.description)
        add("Active Timestamp", activeTimestamp?.description)
        add("Channel", channel?.description)
        add("Wake-up Channel", wakeupChannel?.description)
        add("Channel Mask", channelMask?.description)
        add("Delay", delayTimer.map { "\($0)" })
        add("Ext PAN ID", extendedPANID?.hexString)
        add("Mesh Local Prefix", meshLocalPrefix?.description)
        add("Network Key", secret(networkKey?.revealedHex))
        add("Network Name", networkName?.displayText)
        add("PAN ID", panID.map { "0x" + Hex.padded($0, width: 4) })
        add("PSKc", secret(pskc?.revealedHex))
        add("Security Policy", securityPolicy?.openThreadNotation)
        for tlv in unknownTLVs {
            lines.append(tlv.description)
        }
        return lines
    }

    /// The lines of ``summaryLines(revealingSecrets:)`` joined with newlines.
    ///
    /// - Parameter revealingSecrets: Whether to show the Network Key and PSKc; `false` by default.
    /// - Returns: A multi-line listing.
    public func summary(revealingSecrets: Bool = false) -> String {
        summaryLines(revealingSecrets: revealingSecrets).joined(separator: "\n")
    }

    /// A one-line summary with the secrets redacted, safe for logs, traces and progress lines.
    public var redactedDescription: String {
        "OperationalDataset{" + summaryLines(revealingSecrets: false).joined(separator: ", ") + "}"
    }

    /// The same as ``redactedDescription``: secrets are never shown.
    public var description: String {
        redactedDescription
    }

    /// The same as ``redactedDescription``: secrets are never shown.
    public var debugDescription: String {
        redactedDescription
    }

    /// A mirror of the redacted summary lines, so that `dump` and reflection cannot reveal secrets.
    public var customMirror: Mirror {
        Mirror(self, unlabeledChildren: summaryLines(revealingSecrets: false), displayStyle: .struct)
    }
}

/// The public identity of a Thread network: what a user picks a network by, with no secrets.
///
/// ```swift
/// if let info = dataset.networkInfo {
///     print(info)
///     // NetworkInfo{networkName: OpenThreadDemo, panId: 0x1234, extendedPanId: 1111111122222222, channel: 15}
/// }
/// ```
public struct NetworkInfo: Hashable, Sendable, CustomStringConvertible {
    /// The Network Name.
    public let networkName: String
    /// The PAN ID.
    public let panID: UInt16
    /// The Extended PAN ID.
    public let extendedPANID: ExtendedPANID
    /// The channel number (page 0).
    public let channel: UInt16

    /// Creates a network identity.
    ///
    /// - Parameters:
    ///   - networkName: The Network Name.
    ///   - panID: The PAN ID.
    ///   - extendedPANID: The Extended PAN ID.
    ///   - channel: The channel number.
    public init(networkName: String, panID: UInt16, extendedPANID: ExtendedPANID, channel: UInt16) {
        self.networkName = networkName
        self.panID = panID
        self.extendedPANID = extendedPANID
        self.channel = channel
    }

    /// `NetworkInfo{networkName: …, panId: 0x…, extendedPanId: …, channel: …}`.
    public var description: String {
        "NetworkInfo{networkName: \(networkName), panId: 0x\(Hex.padded(panID, width: 4)), "
            + "extendedPanId: \(extendedPANID.hexString), channel: \(channel)}"
    }
}

extension OperationalDataset {
    /// The network's identity, or `nil` unless Network Name, PAN ID, Extended PAN ID and Channel are all
    /// present.
    public var networkInfo: NetworkInfo? {
        guard let networkName, let panID, let extendedPANID, let channel else { return nil }
        return NetworkInfo(
            networkName: networkName.value,
            panID: panID,
            extendedPANID: extendedPANID,
            channel: channel.number
        )
    }
}
