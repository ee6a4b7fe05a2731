import Foundation
import MatterFlow
import Testing

/// `matterflow graph --highlight-path` with a path that does not belong to the workflow: exit 2, saying what
/// did not match, instead of a picture with nothing drawn.
@Suite struct GraphHighlightCommandTests {
    @Test func unknownStatesExitTwoNamingThem() async {
        let run = await matterflow("graph", Repository.workflow("commission-device"), "--highlight-path", "prepare -> comission")
        #expect(run.code == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(#"error[highlightMismatch]: "comission" is not a state of workflow "commission-device" (did you mean "commission"?)"#), "\(run.stderr)")
    }

    @Test("a pairing code given as the path by mistake is named, never quoted back")
    func aPairingCodeIsNotQuoted() async {
        for code in [Payloads.specQR, "3497-011-2332", "3497-011-2333", "mt:Y.K9042C00KA0648G00"] {
            let run = await matterflow("graph", Repository.workflow("commission-device"), "--highlight-path", code)
            #expect(run.code == 2)
            #expect(run.stderr.contains("error[highlightMismatch]: (a pairing code, not shown) is not a state"), "\(run.stderr)")
            #expect(!run.stderr.contains(code) && !run.stderr.contains("20202021"), "\(run.stderr)")
        }
    }

    @Test("a file given by mistake (a key, a dataset) is not quoted back: the error names the file only")
    func aFileThatIsNoPathIsNotQuoted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let key = "261a5d1a0e9c3b7f44a2d8e1b6c05f9a7d3e2c1b0a9f8e7d6c5b4a3928171605"
        let file = try directory.write(key + "\n", to: "digest.key")
        let run = await matterflow("graph", Repository.workflow("commission-device"), "--highlight-path", file)
        #expect(run.code == 2)
        #expect(!run.stderr.contains(key.prefix(8)), "\(run.stderr)")
        #expect(run.stderr.contains(file) && run.stderr.contains("is neither a `--trace jsonl` file nor a list of states"), "\(run.stderr)")
        // A list of states in a file still works, one per line too.
        let states = try directory.write("prepare -> request\ncommission\n", to: "path.txt")
        #expect(await matterflow("graph", Repository.workflow("commission-device"), "--highlight-path", states).code == 0)
    }

    @Test("a run's journal file and its history --json draw the same path as its --trace jsonl: what a crash leaves is enough")
    func journalAndHistoryDrawTheTracesPath() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let run = await matterflow(
            ["run", Repository.workflow("commission-device"), "--home", home, "--trace", "jsonl", "--journal", journal] + commissionInputs())
        #expect(run.code == 0, "\(run.stderr)")
        let runID = try #require(try run.result()["runID"] as? String)
        let trace = try directory.write(run.stderr, to: "trace.jsonl")
        let history = try directory.write(await matterflow("history", runID, "--journal", journal, "--json").stdout, to: "run.json")
        let workflow = Repository.workflow("commission-device")
        let fromTrace = await matterflow("graph", workflow, "--expand", "--highlight-path", trace)
        #expect(fromTrace.code == 0, "\(fromTrace.stderr)")
        for file in [journal + "/" + runID + ".journal", history] {
            let drawn = await matterflow("graph", workflow, "--expand", "--highlight-path", file)
            #expect(drawn.code == 0, "\(file): \(drawn.stderr)")
            #expect(drawn.stdout == fromTrace.stdout, "\(file)")
        }
        let plain = await matterflow("graph", workflow, "--expand")
        #expect(plain.stdout != fromTrace.stdout, "a path is drawn")
        // A journal that cannot be read says why, rather than being taken for a list of states.
        let other = try directory.write("MATTERFLOW-JOURNAL 7\n", to: "other.journal")
        let unread = await matterflow("graph", workflow, "--highlight-path", other)
        #expect(unread.code == 2)
        #expect(unread.stderr.contains("\(other): error[newerFormat]: "), "\(unread.stderr)")
    }

    @Test func anotherWorkflowsTraceExitsTwo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let trace = await matterflow("run", Repository.workflow("prepare"), "--trace", "jsonl")
        #expect(trace.code == 0)
        let file = try directory.write(trace.stderr, to: "prepare.jsonl")
        let run = await matterflow("graph", Repository.workflow("commission-device"), "--highlight-path", file)
        #expect(run.code == 2)
        #expect(run.stderr.contains(#"\#(file): error[highlightMismatch]: this is a trace of workflow "prepare", but the graph draws "commission-device""#), "\(run.stderr)")
        let own = await matterflow("graph", Repository.workflow("prepare"), "--highlight-path", file)
        #expect(own.code == 0)
        #expect(own.stdout.contains("penwidth=2.5"))
    }

    @Test func aTornLineInTheMiddleIsAnErrorAtItsLineAndColumn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let trace = await matterflow("run", Repository.workflow("prepare"), "--trace", "jsonl")
        var lines = trace.stderr.split(separator: "\n").map(String.init)
        try #require(lines.count > 6)
        lines[5] = String(lines[5].prefix(20))
        let file = try directory.write(lines.joined(separator: "\n") + "\n", to: "torn.jsonl")
        let run = await matterflow("graph", Repository.workflow("prepare"), "--highlight-path", file)
        #expect(run.code == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("\(file):6:21: error[syntaxError]: "), "\(run.stderr)")
    }

    @Test func aTornLastLineIsIgnoredWithAWarning() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let trace = await matterflow("run", Repository.workflow("prepare"), "--trace", "jsonl")
        #expect(trace.code == 0)
        let lines = trace.stderr.split(separator: "\n").map(String.init)
        // What a run killed while writing its next line leaves.
        let file = try directory.write(trace.stderr + #"{"event":"stateEnt"#, to: "killed.jsonl")
        let run = await matterflow("graph", Repository.workflow("prepare"), "--highlight-path", file)
        let whole = await matterflow("graph", Repository.workflow("prepare"), "--highlight-path", try directory.write(trace.stderr, to: "whole.jsonl"))
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stdout == whole.stdout)
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("\(file):\(lines.count + 1):19: warning[syntaxError]: the last line is not complete JSON"), "\(run.stderr)")
        // Cut just after a space inside a string, or with a carriage return left: torn all the same, where the text
        // stops (the trailing space or carriage return not counted).
        for (tail, column) in [(#"{"event":"warning","message":"device not "#, 41), ("{\"event\":\"stateEnt\r", 19)] {
            let cut = try directory.write(trace.stderr + tail, to: "cut.jsonl")
            let drawn = await matterflow("graph", Repository.workflow("prepare"), "--highlight-path", cut)
            #expect(drawn.code == 0, "\(tail): \(drawn.stderr)")
            #expect(drawn.stdout == whole.stdout)
            #expect(drawn.stderrLines.count == 1, "\(drawn.stderr)")
            #expect(
                drawn.stderr.hasPrefix("\(cut):\(lines.count + 1):\(column): warning[syntaxError]: the last line is not complete JSON"),
                "\(drawn.stderr)")
        }
    }

    @Test func aMistypedTracePathIsAMissingFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for missing in [directory.file("trace-typo.jsonl"), directory.file("traces/run")] {
            let run = await matterflow("graph", Repository.workflow("prepare"), "--highlight-path", missing)
            #expect(run.code == 2)
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.hasPrefix("\(missing): error[fileNotFound]: no such file"), "\(run.stderr)")
        }
        // Qualified states hold a slash too, and are still states.
        let states = await matterflow(
            "graph", Repository.workflow("commission-device"), "--expand", "--highlight-path", "prepare/prepare, request")
        #expect(states.code == 0, "\(states.stderr)")
    }

    @Test("a fixture's test --json report draws the path of its run, as that path pasted from a test mismatch does; a fixture file, or a report of several workflows' fixtures, says what to give instead")
    func aFixturesReportDrawsItsRunsPath() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixtures = Repository.workflowsDirectory + "/fixtures/commission-device"
        let fixture = fixtures + "/add-device-request-fails.fixture.json"
        let tested = await matterflow("test", fixture, "--json")
        #expect(tested.code == 0, "\(tested.stderr)")
        let report = try directory.write(tested.stdout, to: "report.json")
        let workflow = Repository.workflow("commission-device")
        let drawn = await matterflow("graph", workflow, "--expand", "--highlight-path", report)
        #expect(drawn.code == 0, "\(drawn.stderr)")
        let path = "prepare, prepare/prepare, prepare/prepared, request, request/request, request/rememberFailure, request/releaseAfterFailure, request/failed, rememberFailure, releaseAfterFailure, releaseAfterFailure/cancel, releaseAfterFailure/released, failedAfterRelease"
        let listed = await matterflow("graph", workflow, "--expand", "--highlight-path", path)
        #expect(listed.code == 0, "\(listed.stderr)")
        #expect(drawn.stdout == listed.stdout, "the report's path is the run's")
        // The same path as a test mismatch prints it, with its label, pasted.
        let pasted = "actual (13):   " + path.replacingOccurrences(of: ", ", with: " → ")
        let fromMismatch = await matterflow("graph", workflow, "--expand", "--highlight-path", pasted)
        #expect(fromMismatch.code == 0, "\(fromMismatch.stderr)")
        #expect(fromMismatch.stdout == listed.stdout)
        // The workflow by another path to the same file (a symbolic link on the way) is the one the fixture ran.
        let linked = directory.file("linked")
        try FileManager.default.createSymbolicLink(atPath: linked, withDestinationPath: Repository.workflowsDirectory)
        let throughLink = await matterflow("graph", linked + "/commission-device.json", "--expand", "--highlight-path", report)
        #expect(throughLink.code == 0, "\(throughLink.stderr)")
        // Another workflow's fixture: named, not drawn.
        let other = await matterflow("graph", Repository.workflow("prepare"), "--highlight-path", report)
        #expect(other.code == 2)
        #expect(other.stderr.contains("\(report): error[highlightMismatch]: this report's fixture ran \(workflow), but the graph draws"), "\(other.stderr)")
        // A fixture file is no run.
        let given = await matterflow("graph", workflow, "--highlight-path", fixture)
        #expect(given.code == 2)
        #expect(given.stderr.contains("error[highlightMismatch]: this is a fixture, not the path of a run; run it and draw its report"), "\(given.stderr)")
        // A report of a directory's fixtures names them and says how to report one alone.
        let all = try directory.write(await matterflow("test", fixtures, "--json").stdout, to: "all.json")
        let many = await matterflow("graph", workflow, "--highlight-path", all)
        #expect(many.code == 2)
        #expect(many.stderr.contains("error[highlightMismatch]: this `matterflow test --json` report holds the runs of "), "\(many.stderr)")
        #expect(many.stderr.contains("report the fixture to draw alone: `matterflow test FIXTURE.fixture.json --json > report.json`"), "\(many.stderr)")
        // Another JSON document of several lines is said to be neither, not a syntax error.
        let document = try directory.write("{\n  \"name\": \"x\"\n}\n", to: "other.json")
        let neither = await matterflow("graph", workflow, "--highlight-path", document)
        #expect(neither.code == 2)
        #expect(neither.stderr.contains("error[highlightMismatch]: this JSON document is neither `history --json` output"), "\(neither.stderr)")
    }
}
