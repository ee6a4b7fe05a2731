import MatterFlow
import Testing
import ThreadDataset
import ThreadTestVectors

/// Thread network membership: join, already joined, migrate, leave, leave while on no network, and a record of the
/// network that never keeps its secrets.
@Suite struct ThreadMembershipTests {
    /// OpenThread's CLI documentation: OpenThread-5938 (channel 15) and OpenThread-de2b (channel 22).
    static let network5938 =
        PublishedVectors.openThread5938
    static let network5938Key = PublishedVectors.openThread5938NetworkKey
    static let network5938PSKc = PublishedVectors.openThread5938PSKc
    static let networkDe2b =
        PublishedVectors.openThreadDe2b
    static func dataset(_ hex: String) throws -> OperationalDataset { try OperationalDataset(hex: hex) }

    @Test func joiningFromNoNetworkJoins() throws {
        var membership = ThreadMembership()
        #expect(membership.phase == .detached)
        #expect(try membership.join(Self.dataset(Self.network5938)) == .joined)
        #expect(membership.phase == .attached)
        #expect(membership.network?.summary == ThreadNetworkSummary(
            networkName: "OpenThread-5938", panID: 0x5938, extendedPANID: "39758ec8144b07fb", channel: 15))
    }

    @Test("the same network is already joined; its newer dataset's other fields are kept, as OpenThread rewrites them")
    func theSameNetworkIsAlreadyJoined() throws {
        var membership = ThreadMembership()
        _ = try membership.join(Self.dataset(Self.network5938))
        let before = membership
        #expect(try membership.join(Self.dataset(Self.network5938)) == .alreadyJoined)
        #expect(membership == before, "the same dataset changes nothing")
        // A newer timestamp and another PAN ID do not make another network: Extended PAN ID, key and channel do.
        var same = try Self.dataset(Self.network5938)
        same.activeTimestamp = try ThreadTimestamp(seconds: 9)
        same.panID = 0x1234
        #expect(try membership.join(same) == .alreadyJoined)
        #expect(membership.network?.summary.panID == 0x1234)
        #expect(membership.phase == before.phase)
    }

    @Test func anotherNetworkIsAMigration() throws {
        var membership = ThreadMembership()
        _ = try membership.join(Self.dataset(Self.network5938))
        #expect(try membership.join(Self.dataset(Self.networkDe2b)) == .migrated)
        #expect(membership.network?.summary.networkName == "OpenThread-de2b")
        // The same Extended PAN ID on another channel is another network too.
        var moved = try Self.dataset(Self.networkDe2b)
        moved.channel = try ThreadChannel(25)
        #expect(try membership.join(moved) == .migrated)
        #expect(membership.network?.summary.channel == 25)
    }

    @Test func anIncompleteDatasetIsRefusedNamingWhatIsMissing() throws {
        var membership = ThreadMembership()
        var noKey = try Self.dataset(Self.network5938)
        noKey.removeTLV(.networkKey)
        noKey.removeTLV(.channelMask)
        do {
            _ = try membership.join(noKey)
            Issue.record("a dataset without a Network Key cannot be joined")
        } catch {
            #expect(error.cause == .invalidDataset)
            #expect(error.code == .invalidArgument)
            #expect(error.message.contains("Network Key (type 5) is missing"))
            #expect(error.message.contains("Channel Mask (type 53) is missing"))
        }
        #expect(membership.phase == .detached)
    }

    @Test func leavingForgetsTheNetworkAndLeavingAgainChangesNothing() throws {
        var membership = ThreadMembership()
        _ = try membership.join(Self.dataset(Self.network5938))
        #expect(membership.leave() == .left)
        #expect(membership.network == nil)
        #expect(membership.leave() == .notOnNetwork)
        #expect(membership.phase == .detached)
    }

    @Test func theRecordKeepsNoSecretsYetRecognisesTheNetwork() throws {
        let record = try ThreadNetworkRecord(dataset: Self.dataset(Self.network5938))
        #expect(record.publicDataset.networkKey == nil)
        #expect(record.publicDataset.pskc == nil)
        #expect(!record.publicDataset.hexString.contains(Self.network5938Key))
        #expect(!record.publicDataset.hexString.contains(Self.network5938PSKc))
        #expect(!record.networkKeySHA256.contains(Self.network5938Key))
        #expect(record.networkKeySHA256.count == 64)
        #expect(record.isSameNetwork(as: try Self.dataset(Self.network5938)))
        #expect(!record.isSameNetwork(as: try Self.dataset(Self.networkDe2b)))
        // Restored from its parts, it is the same record.
        let restored = try ThreadNetworkRecord(publicDataset: record.publicDataset, networkKeySHA256: record.networkKeySHA256)
        #expect(restored == record)
        #expect(throws: FlowError.self) {
            try ThreadNetworkRecord(publicDataset: record.publicDataset, networkKeySHA256: "abc")
        }
        // Full-width digits are digits to Character.isHexDigit, not to a digest.
        let fullWidth = "\u{FF10}" + record.networkKeySHA256.dropFirst()
        #expect(throws: FlowError.self) { try ThreadNetworkRecord(publicDataset: record.publicDataset, networkKeySHA256: fullWidth) }
        #expect(try ThreadNetworkRecord(publicDataset: record.publicDataset, networkKeySHA256: record.networkKeySHA256.uppercased()) == record)
    }

    @Test("a Network Key's digest is its SHA-256")
    func sha256Vectors() throws {
        // SHA-256 of 16 zero bytes, of the bytes 00 01 ... 0f, and of OpenThread-5938's key (Python's hashlib).
        let zero = try NetworkKey(bytes: [UInt8](repeating: 0, count: 16))
        #expect(zero.sha256Hex == "374708fff7719dd5979ec875d56cd2286f6d3cf7ec317a3b25632aab28ec37bb")
        let counting = try NetworkKey(bytes: Array(0...15))
        #expect(counting.sha256Hex == "be45cb2605bf36bebde684841a28f0fd43c69850a3dce5fedba69928ee3a8991")
        let key5938 = try NetworkKey(hex: Self.network5938Key)
        #expect(key5938.sha256Hex == "c12d77162b9810d43473438e7e5f1929b8fa2e4c89ba142eca9d9c912ecf03fd")
    }

    @Test("the transition table covers every event in every state")
    func transitionTable() {
        let table = ThreadMembership.transitionTable
        #expect(table.states == ["detached", "attached"])
        let rows = table.transitions.map { "\($0.from) \($0.event) [\($0.condition ?? "")] \($0.outcome)" }
        #expect(rows == [
            "detached join [a complete dataset] → attached / joined",
            "detached join [a dataset without a Network Key] refused: invalidDataset",
            "detached leave [] → detached / notOnNetwork",
            "attached join [a complete dataset of the same network] → attached / alreadyJoined",
            "attached join [a complete dataset of another network] → attached / migrated",
            "attached join [a dataset without a Network Key] refused: invalidDataset",
            "attached leave [] → detached / left",
        ])
    }
}
