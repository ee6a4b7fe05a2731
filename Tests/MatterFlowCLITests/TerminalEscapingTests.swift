import Foundation
import MatterFlowCLI
import Testing
import ThreadTestVectors

/// Text from datasets, home files and inputs reaches the terminal with its control characters escaped: ESC
/// sequences, BEL, CR, DEL and C1 controls are shown as `\u` escapes, never obeyed.
@Suite("Control characters are escaped on the terminal")
struct TerminalEscapingTests {
    /// ESC sequence, BEL, CR, DEL and a C1 control (CSI), each of which a terminal would act on.
    static let hostile = "a\u{1B}[31mb\u{07}\r\u{7F}\u{9B}"
    static let controls: [Unicode.Scalar] = ["\u{1B}", "\u{07}", "\r", "\u{7F}", "\u{9B}"]

    static func rawControls(in text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { controls.contains($0) }
    }

    /// OpenThread's documented dataset with its Network Name TLV replaced by one holding `name`.
    static func dataset(networkName name: String) -> String {
        let original = "030f" + Array("OpenThread-5938".utf8).map { String(format: "%02x", $0) }.joined()
        let bytes = Array(name.utf8)
        let replacement = "03" + String(format: "%02x", bytes.count) + bytes.map { String(format: "%02x", $0) }.joined()
        return PublishedVectors.openThread5938.replacingOccurrences(of: original, with: replacement)
    }

    @Test("a Network Name holding control characters is listed with them escaped")
    func datasetListing() async throws {
        let hex = Self.dataset(networkName: Self.hostile)
        #expect(hex != PublishedVectors.openThread5938)
        let run = await matterflow("dataset", hex)
        #expect(run.code == 0, "\(run.stderr)")
        #expect(Self.rawControls(in: run.stdout + run.stderr).isEmpty, "\(run.stdout)")
        #expect(run.stdout.contains(#"Network Name: a\u001b[31mb\u0007\u000d\u007f\u009b"#), "\(run.stdout)")
        // JSON output stays valid JSON and keeps the name exactly.
        let json = await matterflow("dataset", hex, "--json")
        #expect(Self.rawControls(in: json.stdout).isEmpty)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["networkName"] as? String == Self.hostile)
    }

    @Test("a line break in a Network Name cannot fake a line of the listing")
    func datasetLineBreak() async {
        let run = await matterflow("dataset", Self.dataset(networkName: "x\nPSKc: 00"))
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#"Network Name: x\u000aPSKc: 00"#))
        #expect(!run.stdout.split(separator: "\n").contains("PSKc: 00"))
    }

    @Test("names from a home file and from inputs are escaped in progress lines and the result")
    func runOutput() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let room = "Hall\u{1B}]0;owned\u{07}\u{9B}2J"
        let home = try directory.write(
            TestHomes.json()
                .replacingOccurrences(of: #""name": "Hall" }"#, with: #""name": "Hall\u001b]0;owned\u0007\u009b2J" }"#)
                .replacingOccurrences(of: #""room": "Hall""#, with: #""room": "Hall\u001b]0;owned\u0007\u009b2J""#),
            to: "home.json")
        let run = await matterflow(
            ["run", Repository.workflow("commission-device"), "--home", home]
                + commissionInputs(name: "Lamp\r\u{7F}\u{1B}[2K", room: "Cellar"))
        // A name with control characters is refused before the run (a device could not keep it), saying where,
        // without printing them.
        #expect(run.code == 2, "\(run.stderr)")
        #expect(Self.rawControls(in: run.stdout + run.stderr).isEmpty, "\(run.stderr)")
        #expect(run.stderr.contains("is not text without control characters, as a device keeps it (character 5 is U+000D)"), "\(run.stderr)")
        // The warning about an unknown room lists the hostile room name, escaped on the progress line.
        let unknownRoom = await matterflow(
            ["run", Repository.workflow("commission-device"), "--home", home] + commissionInputs(name: "Lamp", room: "Cellar"))
        #expect(unknownRoom.code == 0, "\(unknownRoom.stderr)")
        #expect(Self.rawControls(in: unknownRoom.stdout + unknownRoom.stderr).isEmpty, "\(unknownRoom.stderr)")
        #expect(unknownRoom.stderr.contains(#"Hall\u001b]0;owned\u0007\u009b2J"#), "\(unknownRoom.stderr)")
        let output = try #require(try unknownRoom.result()["output"] as? [String: Any])
        #expect(output["configured"] as? Bool == false)
        #expect((output["roomsOffered"] as? [String])?.contains(room) == true)
    }

    @Test("the escaping function escapes every terminal control and nothing else")
    func escapingFunction() {
        #expect(TerminalText.escaping("plain text, ünïcödé ✓") == "plain text, ünïcödé ✓")
        #expect(TerminalText.escaping("\u{1B}\u{07}\r\u{7F}\u{85}\u{9F}\u{0}") == #"\u001b\u0007\u000d\u007f\u0085\u009f\u0000"#)
        #expect(TerminalText.escaping("a\nb\tc") == #"a\u000ab\u0009c"#)
        #expect(TerminalText.escaping("a\nb\tc", keepingLineBreaks: true) == "a\nb\tc")
        #expect(TerminalText.escaping("x\u{202E}y") == #"x\u202ey"#)
    }

    @Test("a table pads each column by the columns a terminal gives its text: wide characters and emoji take two")
    func displayColumns() {
        #expect(TerminalText.columns("Lamp") == 4)
        #expect(TerminalText.columns("グラフ表示テスト") == 16)
        #expect(TerminalText.columns("💡💡") == 4)
        #expect(TerminalText.columns("Ku\u{308}che") == 5, "a combining mark joins its letter")
        #expect(TerminalText.columns("Lampe\u{200B}") == 5)
    }

    @Test("runs prints a cause holding a line break or tab escaped in its row: a value cannot forge a row of its own")
    func forgedRows() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try directory.write(
            #"{"workflow": "failmsg", "version": 1, "inputs": {"x": {"type": "string"}}, "start": "f", "states": {"f": {"type": "fail", "code": "internal", "cause": "${input.x}", "message": "Gerät ${input.x}"}}}"#,
            to: "failmsg.json")
        let journal = directory.file("journal")
        let failed = await matterflow(
            ["run", workflow, "--journal", journal, "--trace", "none", "--input", "x=Lampe\nrun-ffffffffffff  fake  succeeded\t\u{1B}[31m"])
        #expect(failed.code == 1, "\(failed.stderr)")
        let listed = await matterflow(["runs", "--journal", journal])
        let lines = listed.stdout.split(separator: "\n")
        #expect(lines.count == 2, "a header and one row: \(listed.stdout)")
        #expect(!lines.contains { $0.hasPrefix("run-ffffffffffff") }, "\(listed.stdout)")
        #expect(listed.stdout.contains(#"Lampe\u000arun-ffffffffffff  fake  succeeded\u0009\u001b[31m"#), "\(listed.stdout)")
    }

    @Test("runs lines its columns up on a terminal when a workflow's name is Japanese")
    func wideColumnsLineUp() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        for name in ["グラフ表示テスト", "w"] {
            let workflow = try directory.write(
                #"{"workflow": "\#(name)", "version": 1, "start": "d", "states": {"d": {"type": "succeed"}}}"#, to: "\(name.count).json")
            #expect(await matterflow(["run", workflow, "--journal", journal, "--trace", "none"]).code == 0)
        }
        let lines = await matterflow(["runs", "--journal", journal]).stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        // The STATUS column starts at the same terminal column on every line.
        let starts = lines.compactMap { line -> Int? in
            guard let range = line.range(of: line.hasPrefix("RUN") ? "STATUS" : "succeeded") else { return nil }
            return TerminalText.columns(String(line[..<range.lowerBound]))
        }
        #expect(starts.count == 3 && Set(starts).count == 1, "\(lines)")
    }
}
