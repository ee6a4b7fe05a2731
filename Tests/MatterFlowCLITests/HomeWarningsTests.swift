import Foundation
import Testing

/// A home file whose Thread network can be used but should not be (a broadcast PAN ID) is warned of where it is
/// loaded, as `matterflow dataset` warns of the dataset; the run goes on, and its trace can still be drawn.
@Suite struct HomeWarningsTests {
    /// The on-network example home, its dataset's PAN ID made the broadcast one (0xFFFF).
    static func broadcastHome(in directory: TemporaryDirectory) throws -> String {
        let text = try String(contentsOfFile: BorderRouterWorkflowTests.onNetworkHome, encoding: .utf8)
        let hex = BorderRouterWorkflowTests.dataset5938
        #expect(hex.contains("01025938"), "the example's PAN ID TLV")
        #expect(text.contains(hex))
        return try directory.write(text.replacingOccurrences(of: hex, with: hex.replacingOccurrences(of: "01025938", with: "0102ffff")), to: "home.json")
    }

    @Test("run --home with a broadcast PAN ID warns at the dataset and runs; its jsonl trace is drawn all the same")
    func runWarnsAndTraceStillDraws() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try Self.broadcastHome(in: directory)
        let workflow = Repository.workflow("border-router-info")
        let run = await matterflow("run", workflow, "--home", home, "--trace", "jsonl")
        #expect(run.code == 0, "\(run.stderr)")
        let first = try #require(run.stderrLines.first)
        #expect(first.hasPrefix("\(home):"), "\(first)")
        #expect(first.contains(": warning[broadcastPANID]: /thread/borderRouters/0/network/dataset: PAN ID (type 1): 0xFFFF is IEEE 802.15.4's broadcast PAN ID"), "\(first)")
        #expect(!run.stderr.contains(BorderRouterWorkflowTests.networkKey), "never the Network Key")
        let trace = try directory.write(run.stderr, to: "trace.jsonl")
        let drawn = await matterflow("graph", workflow, "--highlight-path", trace)
        #expect(drawn.code == 0, "\(drawn.stderr)")
        #expect(drawn.stderr.contains("warning[syntaxError]: 1 line that is no trace event"), "\(drawn.stderr)")
        #expect(drawn.stdout.contains("penwidth=2.5"))
    }

    @Test("a fixture's home file with a broadcast PAN ID is warned of by matterflow test, once for all fixtures using it")
    func fixturesWarnOfTheirHome() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try Self.broadcastHome(in: directory)
        for name in ["a", "b"] {
            try directory.write(
                #"{"fixture": "\#(name)", "version": 1, "workflow": "\#(Repository.workflow("border-router-info"))", "home": "home.json", "expect": {"outcome": "succeeded"}}"#,
                to: "\(name).fixture.json")
        }
        let run = await matterflow("test", directory.path)
        #expect(run.code == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.components(separatedBy: "warning[broadcastPANID]").count == 2, "\(run.stderr)")
        #expect(run.stderr.contains(home), "\(run.stderr)")
    }
}
