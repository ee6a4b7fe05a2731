/// How a device enters commissioning mode: the 2-bit commissioning-flow field of an onboarding payload.
///
/// A struct over the raw value rather than an enum, so that a decoded payload keeps the reserved value 3 (and
/// validation can report it) and re-encodes to the same text.
public struct CommissioningFlow: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The field value: 0 standard, 1 user intent, 2 custom, 3 reserved.
    public var rawValue: UInt8

    /// Creates a flow from its field value. Values above 3 do not fit the field and fail validation.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The device enters commissioning mode on power-up when uncommissioned.
    public static let standard = CommissioningFlow(rawValue: 0)
    /// A user action (for example pressing a button) puts the device into commissioning mode.
    public static let userIntent = CommissioningFlow(rawValue: 1)
    /// A vendor-specific procedure is needed before commissioning.
    public static let custom = CommissioningFlow(rawValue: 2)

    /// The flows the specification defines (0, 1 and 2).
    public static let defined: [CommissioningFlow] = [.standard, .userIntent, .custom]

    /// Whether the value is one the specification defines (not reserved).
    public var isDefined: Bool { rawValue <= 2 }

    /// The command-line name: `standard`, `user-intent`, `custom`, or `reserved(N)`.
    public var name: String {
        switch rawValue {
        case 0: "standard"
        case 1: "user-intent"
        case 2: "custom"
        default: "reserved(\(rawValue))"
        }
    }

    /// The flow with command-line name `name` (`standard`, `user-intent` or `custom`, case-insensitive;
    /// `userintent` and `user_intent` are accepted too), or `nil`.
    public init?(name: String) {
        switch name.lowercased() {
        case "standard": self = .standard
        case "user-intent", "userintent", "user_intent": self = .userIntent
        case "custom": self = .custom
        default: return nil
        }
    }

    /// The same as ``name``.
    public var description: String { name }
}
