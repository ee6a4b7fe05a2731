/// A value in the JSON form of a payload: plain Swift, for any JSON writer to turn into text.
public enum PayloadJSONValue: Sendable, Hashable, CustomStringConvertible {
    /// A JSON string.
    case string(String)
    /// A JSON number (always an integer here).
    case integer(Int)

    /// The integer, for `.integer`.
    public var intValue: Int? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The string, for `.string`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as JSON text (strings quoted and escaped).
    public var description: String {
        switch self {
        case .integer(let value): return String(value)
        case .string(let value):
            var text = "\""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                case "\t": text += "\\t"
                case _ where scalar.value < 0x20: text += "\\u00" + hex(scalar.value, digits: 2)
                default: text.unicodeScalars.append(scalar)
                }
            }
            return text + "\""
        }
    }
}

extension OnboardingPayload {
    /// Whether the code tells only that the flow is not the standard one (a 21-digit manual code): its
    /// ``commissioningFlow`` then reads as custom, as the Matter SDK's parser reads it, for user intent and custom alike.
    public var flowIsOnlyKnownNotStandard: Bool {
        kind == .manual && vendorID != nil
    }

    /// The JSON member names, in output order: `kind`, `version`, `vendorID`, `productID`, `commissioningFlow`,
    /// `discoveryCapabilities`, `discriminator`, `shortDiscriminator`, `passcode`.
    public static let jsonKeys = [
        "kind", "version", "vendorID", "productID", "commissioningFlow", "discoveryCapabilities", "discriminator",
        "shortDiscriminator", "passcode",
    ]

    /// The payload as ordered JSON members, for `matterflow payload --json`.
    ///
    /// - `kind`: `"qr"` or `"manual"`;
    /// - `version`: integer;
    /// - `vendorID`, `productID`: integers, absent when the code does not carry them (11-digit manual codes; a QR
    ///   code always carries them, 0 when unspecified);
    /// - `commissioningFlow`: 0 standard, 1 user intent, 2 custom; a 21-digit manual code, which says only that the
    ///   flow is not standard, reads as 2, as the Matter SDK's parser reads it;
    /// - `discoveryCapabilities`: integer bitmask, QR only;
    /// - `discriminator`: the 12-bit value, QR only;
    /// - `shortDiscriminator`: the 4-bit value, both kinds;
    /// - `passcode`: integer, absent when `redactingPasscode` is true.
    ///
    /// Optional TLV data is not included; read ``extensionData`` for it.
    public func jsonFields(redactingPasscode: Bool = false) -> [(key: String, value: PayloadJSONValue)] {
        var fields: [(key: String, value: PayloadJSONValue)] = [
            ("kind", .string(kind.rawValue)),
            ("version", .integer(Int(version))),
        ]
        let vendor = kind == .qr ? vendorID ?? 0 : vendorID
        let product = kind == .qr ? productID ?? 0 : productID
        if let vendor { fields.append(("vendorID", .integer(Int(vendor)))) }
        if let product { fields.append(("productID", .integer(Int(product)))) }
        fields.append(("commissioningFlow", .integer(Int(commissioningFlow.rawValue))))
        if kind == .qr {
            fields.append(("discoveryCapabilities", .integer(Int(discoveryCapabilities?.rawValue ?? 0))))
            if let long = discriminator.longValue {
                fields.append(("discriminator", .integer(Int(long))))
            }
        }
        fields.append(("shortDiscriminator", .integer(Int(discriminator.shortValue))))
        if !redactingPasscode {
            fields.append(("passcode", .integer(Int(passcode))))
        }
        return fields
    }

    /// ``jsonFields(redactingPasscode:)`` as a dictionary.
    public func jsonDictionary(redactingPasscode: Bool = false) -> [String: PayloadJSONValue] {
        Dictionary(jsonFields(redactingPasscode: redactingPasscode).map { ($0.key, $0.value) }) { first, _ in first }
    }

    /// The payload as one compact JSON object, members in ``jsonKeys`` order.
    public func jsonText(redactingPasscode: Bool = false) -> String {
        let members = jsonFields(redactingPasscode: redactingPasscode).map { "\"\($0.key)\":\($0.value)" }
        return "{" + members.joined(separator: ",") + "}"
    }
}
