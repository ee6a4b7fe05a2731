/// The transports a device can be discovered on: the 8-bit discovery-capabilities bitmask of a QR payload.
///
/// Bit 0 SoftAP, 1 BLE, 2 on-network (IP), 3 Wi-Fi PAF, 4 NFC, 5 Thread; bits 6 and 7 are reserved. A decoded
/// payload keeps reserved bits so that it re-encodes exactly; validation reports them.
public struct DiscoveryCapabilities: OptionSet, Sendable, Hashable, CustomStringConvertible {
    /// The bitmask as carried in the QR code.
    public var rawValue: UInt8

    /// Creates a set from its bitmask; undefined bits are kept.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Wi-Fi soft access point (bit 0).
    public static let softAP = DiscoveryCapabilities(rawValue: 1 << 0)
    /// Bluetooth Low Energy (bit 1).
    public static let ble = DiscoveryCapabilities(rawValue: 1 << 1)
    /// Already on the IP network (bit 2).
    public static let onNetwork = DiscoveryCapabilities(rawValue: 1 << 2)
    /// Wi-Fi public action frames (bit 3).
    public static let wifiPAF = DiscoveryCapabilities(rawValue: 1 << 3)
    /// NFC (bit 4).
    public static let nfc = DiscoveryCapabilities(rawValue: 1 << 4)
    /// Thread (bit 5).
    public static let thread = DiscoveryCapabilities(rawValue: 1 << 5)

    /// All bits the specification defines (0…5).
    public static let known: DiscoveryCapabilities = [.softAP, .ble, .onNetwork, .wifiPAF, .nfc, .thread]

    /// The defined capabilities with their command-line names, in bit order.
    public static let named: [(name: String, capability: DiscoveryCapabilities)] = [
        ("softap", .softAP), ("ble", .ble), ("on-network", .onNetwork), ("wifi-paf", .wifiPAF), ("nfc", .nfc),
        ("thread", .thread),
    ]

    /// The bits set that the specification does not define.
    public var unknownBits: DiscoveryCapabilities { subtracting(.known) }

    /// The command-line names of the set bits, in bit order; an undefined bit N appears as `bitN`.
    public var names: [String] {
        var result: [String] = []
        for bit in 0..<8 {
            let flag = DiscoveryCapabilities(rawValue: 1 << bit)
            guard contains(flag) else { continue }
            if let entry = Self.named.first(where: { $0.capability == flag }) {
                result.append(entry.name)
            } else {
                result.append("bit\(bit)")
            }
        }
        return result
    }

    /// Other command-line names of some capabilities, each with the name in ``named`` it stands for: the names
    /// without their dash (as a payload's JSON facts write them, `onNetwork`, `wifiPAF`), `soft-ap`, and `ip`.
    public static let aliases: [(alias: String, name: String)] = [
        ("soft-ap", "softap"), ("onnetwork", "on-network"), ("ip", "on-network"), ("wifipaf", "wifi-paf"),
    ]

    /// The capability with command-line name `name` (`softap`, `ble`, `on-network`, `wifi-paf`, `nfc`, `thread`, or
    /// one of ``aliases``; case-insensitive, `_` accepted for `-`), or `nil`.
    public init?(name: String) {
        let normalized = String(name.lowercased().map { $0 == "_" ? "-" : $0 })
        let canonical = Self.aliases.first { $0.alias == normalized }?.name ?? normalized
        guard let entry = Self.named.first(where: { $0.name == canonical }) else { return nil }
        self = entry.capability
    }

    /// The capabilities in a comma-separated list such as `ble,softap,on-network` (spaces around names allowed,
    /// not within them).
    ///
    /// - Returns: `nil` if any name is unknown or the list is empty.
    public init?(list: String) {
        var result: DiscoveryCapabilities = []
        let names = list.split(separator: ",", omittingEmptySubsequences: false)
        for name in names {
            let trimmed = String(name.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
            guard let capability = DiscoveryCapabilities(name: trimmed) else { return nil }
            result.insert(capability)
        }
        guard !names.isEmpty else { return nil }
        self = result
    }

    /// The names joined with `,`, or `none`.
    public var description: String {
        let list = names
        return list.isEmpty ? "none" : list.joined(separator: ",")
    }
}
