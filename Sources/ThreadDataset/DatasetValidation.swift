/// One finding of ``OperationalDataset/validate(for:)``: a missing TLV or a value a Thread stack would refuse
/// or adjust.
public struct DatasetIssue: Hashable, Sendable, CustomStringConvertible {
    /// How serious an issue is.
    public enum Severity: String, Hashable, Sendable {
        /// The dataset cannot be used for the requirement (for example, joining a network).
        case error
        /// The dataset can be used, but a Thread stack will adjust or ignore the value.
        case warning
    }

    /// A stable, machine-readable issue code.
    ///
    /// The set is closed for this version of the module: ``all`` lists every code.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ClosedSetCode {
        /// The code as a string, for example `"missingTLV"`.
        public let rawValue: String

        private init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// A TLV the requirement needs is absent. Severity: error.
        public static let missingTLV = Code("missingTLV")
        /// The encoded dataset is longer than 254 bytes. Severity: error.
        public static let datasetTooLong = Code("datasetTooLong")
        /// An Active or Pending Timestamp is OpenThread's all-ones "invalid" value. Severity: error.
        public static let invalidTimestamp = Code("invalidTimestamp")
        /// The key rotation time is below 2 hours; OpenThread raises it to 2. Severity: warning.
        public static let keyRotationBelowMinimum = Code("keyRotationBelowMinimum")
        /// The page-0 Channel Mask selects channels outside 11 to 26, which a 2.4 GHz radio ignores.
        /// Severity: warning.
        public static let channelMaskOutsideBand = Code("channelMaskOutsideBand")
        /// The Channel Mask selects no channel from 11 to 26 (or has no page-0 entry). Severity: warning.
        public static let channelMaskWithoutUsableChannel = Code("channelMaskWithoutUsableChannel")
        /// The Delay Timer is longer than OpenThread's 72-hour maximum. Severity: warning.
        public static let delayTimerAboveMaximum = Code("delayTimerAboveMaximum")
        /// The PAN ID is 0xFFFF, IEEE 802.15.4's broadcast PAN ID, which no network can use as its own.
        /// Severity: warning.
        public static let broadcastPANID = Code("broadcastPANID")
        /// The Mesh-Local Prefix is not a unique local prefix (fd00::/8), the kind Thread makes for a network.
        /// Severity: warning.
        public static let meshLocalPrefixNotUniqueLocal = Code("meshLocalPrefixNotUniqueLocal")

        /// Every code, in declaration order.
        public static let all: [Code] = [
            .missingTLV, .datasetTooLong, .invalidTimestamp, .keyRotationBelowMinimum, .channelMaskOutsideBand,
            .channelMaskWithoutUsableChannel, .delayTimerAboveMaximum, .broadcastPANID, .meshLocalPrefixNotUniqueLocal,
        ]
    }

    /// What the issue is, as a stable code.
    public let code: Code
    /// Whether the issue makes the dataset unusable for the requirement.
    public let severity: Severity
    /// The TLV concerned, when there is one.
    public let tlvType: DatasetTLVType?
    /// A sentence a person can act on, naming the TLV and what was expected versus found.
    public let message: String

    /// Creates an issue.
    ///
    /// - Parameters:
    ///   - code: The stable code.
    ///   - severity: Error or warning.
    ///   - tlvType: The TLV concerned, if any.
    ///   - message: The human-readable message.
    public init(code: Code, severity: Severity, tlvType: DatasetTLVType?, message: String) {
        self.code = code
        self.severity = severity
        self.tlvType = tlvType
        self.message = message
    }

    /// The severity, code and message, for example `"error missingTLV: Network Key (type 5) is missing ..."`.
    public var description: String {
        "\(severity.rawValue) \(code.rawValue): \(message)"
    }
}

/// What a dataset must contain to be usable.
public enum DatasetRequirement: String, Hashable, Sendable, CaseIterable {
    /// A complete Active Operational Dataset, as needed to join or form a network: Active Timestamp, Channel,
    /// Channel Mask, Extended PAN ID, Mesh-Local Prefix, Network Key, Network Name, PAN ID, PSKc and Security
    /// Policy (OpenThread `ContainsAllRequiredTlvsFor(kActive)`, Matter Thread Network Directory `AddNetwork`).
    case active
    /// A complete Pending Operational Dataset: everything ``active`` needs, plus Pending Timestamp and Delay
    /// Timer.
    case pending

    /// The TLV types the requirement needs, in OpenThread's order.
    public var requiredTypes: [DatasetTLVType] {
        let active: [DatasetTLVType] = [
            .activeTimestamp, .channel, .channelMask, .extendedPANID, .meshLocalPrefix, .networkKey, .networkName,
            .panID, .pskc, .securityPolicy,
        ]
        switch self {
        case .active:
            return active
        case .pending:
            let pending = active + [.pendingTimestamp, .delayTimer]
            return DatasetTLVType.datasetTypes.filter { pending.contains($0) }
        }
    }

    /// The name of the dataset kind for messages: "Active Operational Dataset".
    var datasetName: String {
        switch self {
        case .active: "Active Operational Dataset"
        case .pending: "Pending Operational Dataset"
        }
    }
}

/// The result of ``OperationalDataset/validate(for:)``: every issue found, not only the first.
public struct DatasetValidation: Hashable, Sendable {
    /// What the dataset was checked against.
    public let requirement: DatasetRequirement
    /// Every issue, errors and warnings, in the order found: missing TLVs first, in OpenThread's order.
    public let issues: [DatasetIssue]

    /// Creates a validation result.
    ///
    /// - Parameters:
    ///   - requirement: What the dataset was checked against.
    ///   - issues: The issues found.
    public init(requirement: DatasetRequirement, issues: [DatasetIssue]) {
        self.requirement = requirement
        self.issues = issues
    }

    /// The issues of severity error.
    public var errors: [DatasetIssue] {
        issues.filter { $0.severity == .error }
    }

    /// The issues of severity warning.
    public var warnings: [DatasetIssue] {
        issues.filter { $0.severity == .warning }
    }

    /// The required TLV types that are absent, in OpenThread's order.
    public var missing: [DatasetTLVType] {
        issues.compactMap { $0.code == .missingTLV ? $0.tlvType : nil }
    }

    /// Whether the dataset meets the requirement: no issue of severity error. Warnings are allowed.
    public var isComplete: Bool {
        errors.isEmpty
    }

    /// One line per issue, for printing.
    public var messages: [String] {
        issues.map(\.description)
    }
}
