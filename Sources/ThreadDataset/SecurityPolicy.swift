/// The Security Policy TLV: the key rotation time and the policy flag bytes.
///
/// The value is `rotationTime:u16` big-endian (hours), then one flag byte (Thread 1.1) or two (Thread 1.2 and
/// later). The common value is `02a0 f7f8`: 672 hours, OpenThread's "672 onrc 0". Flag bits that end in a
/// prime (C', E', P', R') mean *disabled* when set; the accessors below report what is *enabled*.
///
/// Flag byte 0, from bit 7 down: O obtain network key, N native commissioning, R routers, C external
/// commissioning, B beacons, C' commercial commissioning disabled, E' autonomous enrollment disabled,
/// P' network key provisioning disabled.
///
/// Flag byte 1, from bit 7 down: L ToBLE link, R' non-CCM routers disabled, three reserved bits (written as 1),
/// then three bits of version threshold for routing.
public struct SecurityPolicy: Hashable, Sendable, CustomStringConvertible {
    /// OpenThread's default rotation time: 672 hours (four weeks).
    public static let defaultRotationHours: UInt16 = 672
    /// The shortest rotation time OpenThread applies; it raises smaller values to this.
    public static let minimumRotationHours: UInt16 = 2
    /// OpenThread's default policy: 672 hours, flags `f7 f8`.
    public static let `default` = SecurityPolicy(checkedRotationHours: defaultRotationHours, flagBytes: [0xF7, 0xF8])

    /// The key rotation time in hours.
    public let rotationHours: UInt16
    /// The flag bytes as stored: one (Thread 1.1) or two.
    public let flagBytes: [UInt8]

    /// Creates a policy.
    ///
    /// - Parameters:
    ///   - rotationHours: The key rotation time in hours. Values below ``minimumRotationHours`` are kept as
    ///     given (OpenThread raises them when applying the policy); validation warns about them.
    ///   - flagBytes: One or two flag bytes.
    /// - Throws: ``ThreadDatasetError`` `invalidLength` for any other number of flag bytes.
    public init(rotationHours: UInt16, flagBytes: [UInt8]) throws(ThreadDatasetError) {
        guard (1...2).contains(flagBytes.count) else {
            throw ThreadDatasetError.invalidLength(
                .securityPolicy,
                at: nil,
                expected: "1 or 2 flag bytes",
                found: flagBytes.count
            )
        }
        self.init(checkedRotationHours: rotationHours, flagBytes: flagBytes)
    }

    private init(checkedRotationHours: UInt16, flagBytes: [UInt8]) {
        rotationHours = checkedRotationHours
        self.flagBytes = flagBytes
    }

    /// Decodes the value of a Security Policy TLV.
    ///
    /// - Parameters:
    ///   - value: The value bytes: 3 or 4 of them.
    ///   - offset: The TLV's offset, for messages.
    static func decode(_ value: ArraySlice<UInt8>, offset: Int) throws(ThreadDatasetError) -> SecurityPolicy {
        guard value.count == 3 || value.count == 4 else {
            throw ThreadDatasetError.invalidLength(
                .securityPolicy,
                at: offset,
                expected: "3 or 4 bytes (a 16-bit rotation time, then 1 or 2 flag bytes)",
                found: value.count
            )
        }
        let hours: UInt16 = bigEndianInteger(value.prefix(2))
        return SecurityPolicy(checkedRotationHours: hours, flagBytes: Array(value.dropFirst(2)))
    }

    /// The encoded TLV value.
    public var encoded: [UInt8] {
        bigEndianBytes(rotationHours) + flagBytes
    }

    /// The number of bytes of ``encoded``: the 16-bit rotation time, then the flag bytes.
    var encodedLength: Int {
        2 + flagBytes.count
    }

    /// The flag bytes as lowercase hex, for example `"f7f8"`.
    public var flagsHex: String {
        Hex.encode(flagBytes)
    }

    private var first: UInt8 { flagBytes.first ?? 0 }
    private var second: UInt8? { flagBytes.count > 1 ? flagBytes[1] : nil }

    /// O: obtaining the network key out of band is enabled.
    public var isObtainNetworkKeyEnabled: Bool { first & 0x80 != 0 }
    /// N: native commissioning with the PSKc is allowed.
    public var isNativeCommissioningEnabled: Bool { first & 0x40 != 0 }
    /// R: Thread 1.x routers are enabled.
    public var isRoutersEnabled: Bool { first & 0x20 != 0 }
    /// C: external commissioner authentication with the PSKc is allowed.
    public var isExternalCommissioningEnabled: Bool { first & 0x10 != 0 }
    /// B: beacons are enabled (Thread 1.1; later versions write it as reserved).
    public var isBeaconsEnabled: Bool { first & 0x08 != 0 }
    /// C' clear: Thread 1.2 commercial commissioning is enabled.
    public var isCommercialCommissioningEnabled: Bool { first & 0x04 == 0 }
    /// E' clear: Thread 1.2 autonomous enrollment is enabled.
    public var isAutonomousEnrollmentEnabled: Bool { first & 0x02 == 0 }
    /// P' clear: Thread 1.2 network key provisioning is enabled.
    public var isNetworkKeyProvisioningEnabled: Bool { first & 0x01 == 0 }
    /// L: the ToBLE link is enabled; `nil` with a single flag byte.
    public var isToBLELinkEnabled: Bool? { second.map { $0 & 0x80 != 0 } }
    /// R' clear: non-CCM routers are allowed; `nil` with a single flag byte.
    public var isNonCCMRoutersEnabled: Bool? { second.map { $0 & 0x40 == 0 } }
    /// The version threshold for routing (the low 3 bits of the second byte); 0 with a single flag byte.
    public var versionThresholdForRouting: UInt8 { (second ?? 0) & 0x07 }

    /// The policy in OpenThread's CLI notation: rotation hours, the letters of enabled features in the order
    /// `onrcCepR`, and the version threshold; for example `"672 onrc 0"`.
    public var openThreadNotation: String {
        var letters = ""
        if isObtainNetworkKeyEnabled { letters += "o" }
        if isNativeCommissioningEnabled { letters += "n" }
        if isRoutersEnabled { letters += "r" }
        if isExternalCommissioningEnabled { letters += "c" }
        if isCommercialCommissioningEnabled { letters += "C" }
        if isAutonomousEnrollmentEnabled { letters += "e" }
        if isNetworkKeyProvisioningEnabled { letters += "p" }
        if isNonCCMRoutersEnabled == true { letters += "R" }
        let parts = ["\(rotationHours)", letters, "\(versionThresholdForRouting)"].filter { !$0.isEmpty }
        return parts.joined(separator: " ")
    }

    /// The same as ``openThreadNotation``.
    public var description: String {
        openThreadNotation
    }
}
