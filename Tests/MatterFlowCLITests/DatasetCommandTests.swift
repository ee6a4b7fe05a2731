import Foundation
import MatterFlowCLI
import Testing
import ThreadTestVectors

/// `matterflow dataset HEX`: OpenThread's CLI documentation datasets listed exactly as that documentation lists
/// them, the JSON keys, secrets hidden unless revealed, and exit codes.
@Suite("matterflow dataset")
struct DatasetCommandTests {
    static func json(_ run: ToolRun) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
    }

    @Test("OpenThread's documented datasets are listed exactly as its documentation lists them", arguments: [
        (PublishedVectors.openThread5938, PublishedVectors.openThread5938Listing), (PublishedVectors.openThreadDe2b, PublishedVectors.openThreadDe2bListing),
    ])
    func documentedListing(_ hex: String, _ listing: [String]) async {
        let run = await matterflow("dataset", hex, "--reveal-secrets")
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty)
        #expect(run.stdout.split(separator: "\n").map(String.init) == listing + ["Complete: yes"])
    }

    @Test("what ot-ctl prints is taken as it is (its Done line after the hex); nothing, or a file's name, is one error saying what to pass")
    func pastedAndMistakenArguments() async throws {
        let pasted = await matterflow("dataset", PublishedVectors.openThread5938 + "\r\nDone")
        #expect(pasted.code == 0, "\(pasted.stderr)")
        #expect(pasted.stdout.hasSuffix("Complete: yes\n"))
        let empty = await matterflow("dataset", "")
        #expect(empty.code == 2)
        #expect(empty.stderr == "error[emptyDataset]: the dataset is empty; pass it as hex, as `ot-ctl dataset active -x` prints it\n")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write(PublishedVectors.openThread5938, to: "dataset.hex")
        let named = await matterflow("dataset", file)
        #expect(named.code == 2)
        #expect(named.stderr.contains("\(file) is a file: pass its contents on standard input, as in matterflow dataset - < \(file)"), "\(named.stderr)")
        // `-`: the hex from standard input (here a file, as tests give it), the Network Key off the command line.
        let piped = await matterflow(["dataset", "-"], standardInput: file)
        #expect(piped.code == 0, "\(piped.stderr)")
        #expect(piped.stdout.hasSuffix("Complete: yes\n"))
        let spaced = try directory.write(PublishedVectors.openThread5938, to: "my dataset.hex")
        let quoted = await matterflow("dataset", spaced)
        #expect(quoted.stderr.contains("as in matterflow dataset - < '\(spaced)'"), "a path with a space is quoted: \(quoted.stderr)")
        let nothing = await matterflow(["dataset", "-"], standardInput: directory.file("none.hex"))
        #expect(nothing.code == 2)
        #expect(nothing.stderr.hasPrefix("<stdin>: error[fileNotFound]"), "\(nothing.stderr)")
        // A device as standard input (`< /dev/null`) is told what to pipe in, not to name a JSON file.
        let device = await matterflow(["dataset", "-"], standardInput: "/dev/null")
        #expect(device.code == 2)
        #expect(device.stderr.contains("<stdin>: error[unreadableFile]: standard input is a device, not a pipe or a file; pipe the dataset's hex in"), "\(device.stderr)")
        #expect(!device.stderr.contains("JSON"), "\(device.stderr)")
        let folder = await matterflow(["dataset", "-"], standardInput: directory.path)
        #expect(folder.code == 2)
        #expect(folder.stderr.contains("<stdin>: error[unreadableFile]: standard input is a directory, not a pipe or a file; pipe the dataset's hex in"), "\(folder.stderr)")
        let typed = await matterflow("dataset", "x" + PublishedVectors.openThread5938)
        #expect(typed.stderr.contains("character 1 of the hex text is 'x'"), "positions count from 1: \(typed.stderr)")
    }

    @Test func secretsAreRedactedUnlessRevealed() async {
        let run = await matterflow("dataset", PublishedVectors.openThread5938)
        #expect(run.code == 0)
        #expect(run.stdout.contains("Network Key: [redacted]"))
        #expect(run.stdout.contains("PSKc: [redacted]"))
        #expect(!run.stdout.contains("f366cec7a446bab978d90d27abe38f23"))
        #expect(!run.stdout.contains("3ca67c969efb0d0c74a4d8ee923b576c"))
    }

    @Test func theJSONHasTheDocumentedKeysAndValues() async throws {
        let run = await matterflow("dataset", PublishedVectors.openThread5938, "--json")
        #expect(run.code == 0, "\(run.stderr)")
        let object = try Self.json(run)
        #expect(Set(object.keys) == [
            "channel", "channelPage", "panId", "extPanId", "networkName", "meshLocalPrefix", "networkKey", "pskc",
            "activeTimestamp", "securityPolicy", "channelMask", "unknownTlvs", "complete", "missing", "errors", "warnings",
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
        let object = try Self.json(await matterflow("dataset", PublishedVectors.openThread5938.uppercased(), "--json", "--reveal-secrets"))
        #expect(object["networkKey"] as? String == "f366cec7a446bab978d90d27abe38f23")
        #expect(object["pskc"] as? String == "3ca67c969efb0d0c74a4d8ee923b576c")
        #expect(object["extPanId"] as? String == "39758ec8144b07fb")
    }

    @Test func aPendingDatasetShowsItsPendingTimestampAndDelay() async throws {
        let run = await matterflow("dataset", PublishedVectors.openThreadPendingBff8, "--json")
        #expect(run.code == 0, "\(run.stderr)")
        let object = try Self.json(run)
        #expect((object["pendingTimestamp"] as? [String: Any])?["seconds"] as? Int == 2)
        #expect(object["delayTimer"] as? Int == 0xb512)
        #expect(object["channel"] as? Int == 26)
    }

    @Test func unknownTLVsAreListed() async throws {
        let object = try Self.json(await matterflow("dataset", PublishedVectors.openThread5938 + "bd02cafe", "--json"))
        let unknown = try #require(object["unknownTlvs"] as? [[String: Any]])
        #expect(unknown.count == 1)
        #expect(unknown.first?["type"] as? Int == 189)
        #expect(unknown.first?["value"] as? String == "cafe")
    }

    @Test func anIncompleteDatasetExits2NamingWhatIsMissing() async throws {
        let noKey = PublishedVectors.openThread5938.replacingOccurrences(of: "0510f366cec7a446bab978d90d27abe38f23", with: "")
        let run = await matterflow("dataset", noKey, "--json")
        #expect(run.code == 2)
        let object = try Self.json(run)
        #expect(object["complete"] as? Bool == false)
        #expect(object["missing"] as? [String] == ["Network Key"])
        #expect(object["networkKey"] is NSNull)
        #expect(run.stderr.contains("error[missingTLV]: Network Key (type 5) is missing"))
        let errors = try #require(object["errors"] as? [[String: Any]])
        #expect(errors.map { $0["code"] as? String } == ["missingTLV"], "\(run.stdout)")
        #expect((errors.first?["message"] as? String)?.contains("Network Key (type 5) is missing") == true)
        let text = await matterflow("dataset", noKey)
        #expect(text.code == 2)
        #expect(text.stdout.contains("Complete: no\nMissing: Network Key\n"))
    }

    @Test("malformed datasets exit 2 with every problem on stderr, and with --json in {errors} on stdout", arguments: [
        ("FF", "truncatedHeader"), ("0001", "truncatedValue"), ("zz", "invalidHexCharacter"), ("0e08", "truncatedValue"),
        ("000300000f000300000f", "duplicateTLV"), ("030341ff42", "invalidNetworkName"),
    ])
    func malformed(_ hex: String, _ code: String) async {
        let run = await matterflow("dataset", hex, "--json")
        #expect(run.code == 2)
        #expect(run.stderr.contains("error[\(code)]"), "\(run.stderr)")
        let object = (try? Self.json(run)) ?? [:]
        #expect(Set(object.keys) == ["errors"], "nothing decoded, so no fields: \(run.stdout)")
        let errors = object["errors"] as? [[String: Any]] ?? []
        #expect(errors.contains { $0["code"] as? String == code }, "\(run.stdout)")
        #expect(errors.allSatisfy { ($0["message"] as? String).map { !$0.isEmpty } == true }, "\(run.stdout)")
        #expect(await matterflow("dataset", hex).stdout.isEmpty, "without --json the problems are on stderr only")
    }

    @Test func warningsDoNotMakeACompleteDatasetFail() async throws {
        let run = await matterflow("dataset", PublishedVectors.openThread8611)
        #expect(run.code == 0)
        #expect(run.stderr.contains("warning[keyRotationBelowMinimum]"))
        let object = try Self.json(await matterflow("dataset", PublishedVectors.openThread8611, "--json"))
        #expect((object["errors"] as? [Any])?.isEmpty == true)
        let warnings = try #require(object["warnings"] as? [[String: Any]], "--json carries the warnings, not only stderr")
        #expect(warnings.contains { $0["code"] as? String == "keyRotationBelowMinimum" }, "\(warnings)")
    }

    @Test func theHexIsRequired() async {
        let run = await matterflow("dataset")
        #expect(run.code == ExitCode.usage)
        #expect(run.stderr.contains("Missing expected argument '<hex>'"))
    }
}
