import Foundation
import MatterFlowCLI
import Testing

/// `matterflow dataset HEX`: OpenThread's CLI documentation datasets listed exactly as that documentation lists
/// them, the JSON keys, secrets hidden unless revealed, and exit codes.
@Suite("matterflow dataset")
struct DatasetCommandTests {
    /// OpenThread `src/cli/README_DATASET.md`: `dataset set active` / `dataset active` (OpenThread-5938).
    static let openThread5938 =
        "0e080000000000010000000300000f35060004001fffe0020839758ec8144b07fb0708fdf1f1add0797dc00510f366cec7a446"
        + "bab978d90d27abe38f23030f4f70656e5468726561642d353933380102593804103ca67c969efb0d0c74a4d8ee923b576c0c04"
        + "02a0f7f8"
    static let openThread5938Listing = [
        "Active Timestamp: 1",
        "Channel: 15",
        "Channel Mask: 0x07fff800",
        "Ext PAN ID: 39758ec8144b07fb",
        "Mesh Local Prefix: fdf1:f1ad:d079:7dc0::/64",
        "Network Key: f366cec7a446bab978d90d27abe38f23",
        "Network Name: OpenThread-5938",
        "PAN ID: 0x5938",
        "PSKc: 3ca67c969efb0d0c74a4d8ee923b576c",
        "Security Policy: 672 onrc 0",
    ]
    /// The same README, `dataset tlvs` (OpenThread-de2b).
    static let openThreadDe2b =
        "0e080000000000010000000300001635060004001fffe00208d196fa2040e973b60708fdbbc310c48f3a3905109929154dbc36"
        + "3218bcd22f907caf5c15030f4f70656e5468726561642d646532620102de2b041015b2c16f7ba92ed4bc7b1ee054f1553f0c04"
        + "02a0f7f8"
    static let openThreadDe2bListing = [
        "Active Timestamp: 1",
        "Channel: 22",
        "Channel Mask: 0x07fff800",
        "Ext PAN ID: d196fa2040e973b6",
        "Mesh Local Prefix: fdbb:c310:c48f:3a39::/64",
        "Network Key: 9929154dbc363218bcd22f907caf5c15",
        "Network Name: OpenThread-de2b",
        "PAN ID: 0xde2b",
        "PSKc: 15b2c16f7ba92ed4bc7b1ee054f1553f",
        "Security Policy: 672 onrc 0",
    ]
    /// The same README, `dataset pending -x`: a pending dataset (Delay Timer 0xb512 ms).
    static let openThreadPendingBff8 =
        "0e0800000000000100003308000000000002000034040000b512000300001a35060004001fffe00208a74182f4d3f4de410708"
        + "fd46c1b9e15955740510ed916e454d96fd00184f10a6f5c9e1d3030f4f70656e5468726561642d626666380102bff80410264f"
        + "78414adc683191863d968f72d1b70c0402a0f7f8"
    /// OpenThread's 2020 README: OpenThread-8611 with a key rotation time of 0 hours.
    static let openThread8611 =
        "0e080000000000010000000300001035060004001fffe002084eb74ab03c56e6d00708fdc7fe165c83a67805108e2104f183e6"
        + "98da87e96efc1e45aa51030f4f70656e5468726561642d383631310102861104108d6273023d82c841eff0e68db86f35740c03"
        + "0000ff"

    static func json(_ run: ToolRun) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
    }

    @Test("OpenThread's documented datasets are listed exactly as its documentation lists them", arguments: [
        (openThread5938, openThread5938Listing), (openThreadDe2b, openThreadDe2bListing),
    ])
    func documentedListing(_ hex: String, _ listing: [String]) async {
        let run = await matterflow("dataset", hex, "--reveal-secrets")
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        #expect(run.stdout.split(separator: "\n").map(String.init) == listing + ["Complete: yes"])
    }

    @Test func secretsAreRedactedUnlessRevealed() async {
        let run = await matterflow("dataset", Self.openThread5938)
        #expect(run.code == 0)
        #expect(run.stdout.contains("Network Key: [redacted]"))
        #expect(run.stdout.contains("PSKc: [redacted]"))
        #expect(!run.stdout.contains("f366cec7a446bab978d90d27abe38f23"))
        #expect(!run.stdout.contains("3ca67c969efb0d0c74a4d8ee923b576c"))
    }

    @Test func theJSONHasTheDocumentedKeysAndValues() async throws {
        let run = await matterflow("dataset", Self.openThread5938, "--json")
        #expect(run.code == 0, "\(run.stderr)")
        let object = try Self.json(run)
        #expect(Set(object.keys) == [
            "channel", "channelPage", "panId", "extPanId", "networkName", "meshLocalPrefix", "networkKey", "pskc",
            "activeTimestamp", "securityPolicy", "channelMask", "unknownTlvs", "complete", "missing",
        ])
        #expect(object["channel"] as? Int == 15)
        #expect(object["channelPage"] as? Int == 0)
        #expect(object["panId"] as? Int == 0x5938)
        #expect(object["extPanId"] as? String == "39758ec8144b07fb")
        #expect(object["networkName"] as? String == "OpenThread-5938")
        #expect(object["meshLocalPrefix"] as? String == "fdf1:f1ad:d079:7dc0::/64")
        #expect(object["networkKey"] as? String == "redacted")
        #expect(object["pskc"] as? String == "redacted")
        let timestamp = try #require(object["activeTimestamp"] as? [String: Any])
        #expect(timestamp["seconds"] as? Int == 1 && timestamp["ticks"] as? Int == 0 && timestamp["authoritative"] as? Bool == false)
        let policy = try #require(object["securityPolicy"] as? [String: Any])
        #expect(policy["rotationHours"] as? Int == 672 && policy["flags"] as? String == "f7f8")
        #expect(object["channelMask"] as? [Int] == Array(11...26))
        #expect((object["unknownTlvs"] as? [Any])?.isEmpty == true)
        #expect(object["complete"] as? Bool == true)
        #expect((object["missing"] as? [Any])?.isEmpty == true)
    }

    @Test func revealingShowsTheSecretsAsLowercaseHex() async throws {
        let object = try Self.json(await matterflow("dataset", Self.openThread5938.uppercased(), "--json", "--reveal-secrets"))
        #expect(object["networkKey"] as? String == "f366cec7a446bab978d90d27abe38f23")
        #expect(object["pskc"] as? String == "3ca67c969efb0d0c74a4d8ee923b576c")
        #expect(object["extPanId"] as? String == "39758ec8144b07fb")
    }

    @Test func aPendingDatasetShowsItsPendingTimestampAndDelay() async throws {
        let run = await matterflow("dataset", Self.openThreadPendingBff8, "--json")
        #expect(run.code == 0, "\(run.stderr)")
        let object = try Self.json(run)
        #expect((object["pendingTimestamp"] as? [String: Any])?["seconds"] as? Int == 2)
        #expect(object["delayTimer"] as? Int == 0xb512)
        #expect(object["channel"] as? Int == 26)
    }

    @Test func unknownTLVsAreListed() async throws {
        let object = try Self.json(await matterflow("dataset", Self.openThread5938 + "bd02cafe", "--json"))
        let unknown = try #require(object["unknownTlvs"] as? [[String: Any]])
        #expect(unknown.count == 1)
        #expect(unknown.first?["type"] as? Int == 189)
        #expect(unknown.first?["value"] as? String == "cafe")
    }

    @Test func anIncompleteDatasetExits2NamingWhatIsMissing() async throws {
        let noKey = Self.openThread5938.replacingOccurrences(of: "0510f366cec7a446bab978d90d27abe38f23", with: "")
        let run = await matterflow("dataset", noKey, "--json")
        #expect(run.code == 2)
        let object = try Self.json(run)
        #expect(object["complete"] as? Bool == false)
        #expect(object["missing"] as? [String] == ["Network Key"])
        #expect(object["networkKey"] is NSNull)
        #expect(run.stderr.contains("error[missingTLV]: Network Key (type 5) is missing"))
        let text = await matterflow("dataset", noKey)
        #expect(text.code == 2)
        #expect(text.stdout.contains("Complete: no\nMissing: Network Key\n"))
    }

    @Test("malformed datasets exit 2 with every problem on stderr", arguments: [
        ("FF", "truncatedHeader"), ("0001", "truncatedValue"), ("zz", "invalidHexCharacter"), ("0e08", "truncatedValue"),
        ("000300000f000300000f", "duplicateTLV"), ("030341ff42", "invalidNetworkName"),
    ])
    func malformed(_ hex: String, _ code: String) async {
        let run = await matterflow("dataset", hex, "--json")
        #expect(run.code == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("error[\(code)]"), "\(run.stderr)")
    }

    @Test func warningsDoNotMakeACompleteDatasetFail() async {
        let run = await matterflow("dataset", Self.openThread8611)
        #expect(run.code == 0)
        #expect(run.stderr.contains("warning[keyRotationBelowMinimum]"))
    }

    @Test func theHexIsRequired() async {
        let run = await matterflow("dataset")
        #expect(run.code == ExitCode.usage)
        #expect(run.stderr.contains("Missing expected argument '<hex>'"))
    }
}
