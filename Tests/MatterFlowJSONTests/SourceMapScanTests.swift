import Foundation
import MatterFlowJSON
import TestGates
import Testing

/// The source map's scanner reads every text json-c accepts to its end, whatever it holds.
@Suite struct SourceMapScanTests {
    /// A home file the fuzzer made (`Fuzz/run.sh home`): json-c accepts it, and the scanner, reading it as plain
    /// JSON, met a byte it could not read in the middle of an object and made no progress from then on.
    static let fuzzedHome = Data(base64Encoded: "ewogICJ2ZXJzaW9uIjogMSwKICAic2ZhbHRydWN0dXJlIjogeyJpZCI6ICJvYWstbGFuZSIsICJuYW1lIjogIk9kZXZpY2UtMThiNmYzZTJhMGQ0YWsgTGFuZSJ9LAogICJodWIiOiB7Im9ubGluZSIgOnRydWUsICdyZWFjaGFibGUiOiB0cnVlbSwKICAicGVybWlzc2lvbkdyYW50ZWQiOiAibmFtZSI6ICJLaXRjaGVuIn0sIHsiaWQiOiAicm9vbS1oYWxsIiwgIm5hbWUiOiAiSGFsbCJ9XSwKICAiZGV2aWNlcyI6IFsKICAgIHsKICAbICAgImlkIjogImRldmljZS1oYWxsLWxpZ2h0IiwKICAgICAgIm5hbWUiOiAiSGFsbCBMaWdodCIsCiAgICAgICJyb29tIjogIkhhbGwiLAogICAgICAidmVuZG9ySUQiOiA2NTUyMiwKICAgICAgInByb2R1Y3RJRCI6IDQwOTcsCiAgICAgICJ2ZW5kXXJOYW1lIjogIkx1bWVuIFdvcmtzIiwKICAgICAgInByb2R1Y3ROYW1lIjogImBTbWFydCBCdWxiIEExOSIsCiAgICAgICJzb09iamVjdGZ0d2FyZVZlcnNpb24iOiAzCiAgICB9CiAgXSwKICAic2VlZCI6IDcsCiAgImFjdGl2ZVNlc3Npb24iOiB7InBoYXNlIjogInJlcXVlc3RlZCIsICJpZCc6ICJzZXNzaW9uLW91cnMiLCAidG9wb2xvZ3kiOiB7ImVjb3N5c3RlbU5hbWUiOiAiR29vZ2xlIEhvbWUiLCAiaG9tZXMiOiBbIk9hayBMYW5lIl19fQp9Cg==")!

    @Test func aTextTheScannerCannotFollowStillEndsItsScan() async {
        let text = String(decoding: Self.fuzzedHome, as: UTF8.self)
        // Bounded: the fault this guards against never returned.
        let parsed = await bounded {
            do {
                _ = try JSONDocument.parse(text, file: "home.json")
                return "parsed"
            } catch {
                return "refused"
            }
        }
        #expect(parsed != nil, "parsing did not end")
    }
}
