import ThreadDataset

/// A Thread network as a hub remembers it: the Active Operational Dataset without its secrets, and a one-way
/// digest of its Network Key.
///
/// That is all a border router needs to answer "already on this network?" (same Extended PAN ID, channel and
/// Network Key) and to describe the network, and it can be stored or printed without revealing the Network Key
/// or the PSKc: the record never holds them.
public struct ThreadNetworkRecord: Sendable, Hashable {
    /// The dataset without the Network Key and PSKc TLVs.
    public let publicDataset: OperationalDataset
    /// The SHA-256 digest of the Network Key, lowercase hex (``ThreadDataset/NetworkKey/sha256Hex``).
    public let networkKeySHA256: String
    /// The network's public identity.
    public let summary: ThreadNetworkSummary

    /// Remembers the network of a complete Active Operational Dataset, dropping its secrets at once.
    /// - Throws: `invalidDataset` naming every problem when the dataset is not a complete active dataset.
    public init(dataset: OperationalDataset) throws(FlowError) {
        try Self.requireJoinable(dataset)
        guard let key = dataset.networkKey else {
            preconditionFailure("a complete active dataset has a Network Key")
        }
        try self.init(publicDataset: Self.withoutSecrets(dataset), networkKeySHA256: key.sha256Hex)
    }

    /// What keeps `dataset` from being an Active Operational Dataset, its Network Key and PSKc aside: every other
    /// required TLV missing, and every malformed one.
    public static func problemsBesideSecrets(_ dataset: OperationalDataset) -> [DatasetIssue] {
        dataset.validate(for: .active).errors.filter { issue in
            issue.code != .missingTLV || !(issue.tlvType?.isSecret ?? false)
        }
    }

    /// Restores a stored record.
    /// - Parameters:
    ///   - publicDataset: The dataset without secrets: complete but for the Network Key and PSKc (any secret it
    ///     still holds is dropped).
    ///   - networkKeySHA256: The Network Key's digest, 64 hex digits (either case).
    /// - Throws: `invalidDataset` naming what is missing or malformed.
    public init(publicDataset: OperationalDataset, networkKeySHA256: String) throws(FlowError) {
        let stripped = Self.withoutSecrets(publicDataset)
        let missing = Self.problemsBesideSecrets(stripped)
        guard missing.isEmpty else {
            throw FlowError(
                .invalidDataset,
                "the stored Thread network is incomplete: \(missing.map(\.message).joined(separator: "; "))")
        }
        let digest = networkKeySHA256.lowercased()
        // ASCII hex only: Character.isHexDigit also takes full-width digits, which no digest of a key would match.
        guard digest.utf8.count == 64, digest.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw FlowError(.invalidDataset, "a Network Key digest is 64 hex digits (SHA-256)")
        }
        guard let info = stripped.networkInfo else {
            preconditionFailure("a dataset complete but for its secrets has the network's identity")
        }
        self.publicDataset = stripped
        self.networkKeySHA256 = digest
        self.summary = ThreadNetworkSummary(
            networkName: info.networkName, panID: Int(info.panID), extendedPANID: info.extendedPANID.hexString,
            channel: Int(info.channel))
    }

    /// Whether a dataset describes this network: the same Extended PAN ID, channel and Network Key, the test a
    /// border router uses to answer "already joined" (OTBR compares the same three).
    public func isSameNetwork(as dataset: OperationalDataset) -> Bool {
        guard let key = dataset.networkKey else { return false }
        return dataset.extendedPANID == publicDataset.extendedPANID && dataset.channel == publicDataset.channel
            && key.sha256Hex == networkKeySHA256
    }

    /// Checks that a dataset can be joined: well formed (it is, being parsed) and a complete Active Operational
    /// Dataset.
    /// - Throws: `invalidDataset` naming every missing TLV and refused value; never the secrets.
    public static func requireJoinable(_ dataset: OperationalDataset) throws(FlowError) {
        let errors = dataset.validate(for: .active).errors
        guard errors.isEmpty else {
            throw FlowError(
                .invalidDataset,
                "the Operational Dataset cannot be joined: \(errors.map(\.message).joined(separator: "; "))")
        }
    }

    private static func withoutSecrets(_ dataset: OperationalDataset) -> OperationalDataset {
        var copy = dataset
        copy.removeTLV(.networkKey)
        copy.removeTLV(.pskc)
        return copy
    }
}
