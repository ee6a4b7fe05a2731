import Foundation
import MatterFlow
import Testing

/// `matterflow graph` and `matterflow validate --budget`, end to end through the command line.
@Suite("matterflow graph")
struct GraphCommandTests {
    @Test("the README's picture of commission-device is the command's output")
    func readmeIsInSync() async throws {
        let readme = try String(contentsOfFile: Repository.root + "/README.md", encoding: .utf8)
        let start = try #require(readme.range(of: "```mermaid\n"))
        let end = try #require(readme.range(of: "```", range: start.upperBound..<readme.endIndex))
        let run = await matterflow("graph", Repository.workflow("commission-device"), "--format", "mermaid")
        #expect(run.code == 0, "\(run.stderr)")
        #expect(String(readme[start.upperBound..<end.lowerBound]) == run.stdout,
            "regenerate the README block with `matterflow graph Workflows/commission-device.json --format mermaid`")
    }

    @Test("DOT by default, Mermaid on request, the library's text either way")
    func formats() async throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        let dot = await matterflow("graph", Repository.workflow("commission-device"))
        #expect(dot.code == 0)
        #expect(try WorkflowGraph.build(workflow).dot == dot.stdout)
        let expanded = await matterflow("graph", Repository.workflow("commission-device"), "--expand", "--format", "mermaid")
        #expect(try WorkflowGraph.build(workflow, expand: true).mermaid == expanded.stdout)
        #expect(expanded.stdout.contains("subgraph c1[\"prepare: prepare.json\"]"))
        let bad = await matterflow("graph", Repository.workflow("commission-device"), "--format", "svg")
        #expect(bad.code == 64)
    }

    @Test("a run's trace drawn over the expanded picture")
    func highlightATrace() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let run = await matterflow(
            ["run", Repository.workflow("commission-device"), "--home", home, "--trace", "jsonl"] + commissionInputs())
        #expect(run.code == 0, "\(run.stderr)")
        let trace = try directory.write(run.stderr, to: "trace.jsonl")
        let graph = await matterflow("graph", Repository.workflow("commission-device"), "--expand", "--highlight-path", trace)
        #expect(graph.code == 0, "\(graph.stderr)")
        let highlighted = graph.stdout.split(separator: "\n").filter { $0.contains("penwidth=2.5") && $0.contains(" -> ") }
            .map { $0.components(separatedBy: " [").first ?? "" }.sorted()
        #expect(highlighted == [
            #"  "prepare/prepare" -> "prepare/prepared""#,
            #"  "prepare/prepared" -> "request/request""#,
            #"  "request/request" -> "request/created""#,
            #"  "request/created" -> "commission/commission""#,
            #"  "commission/commission" -> "commission/commissioned""#,
            #"  "commission/commissioned" -> "rooms/fetch""#,
            #"  "rooms/fetch" -> "rooms/fetchedRooms""#,
            #"  "rooms/fetchedRooms" -> "configure/configure""#,
            #"  "configure/configure" -> "configure/configured""#,
            #"  "configure/configured" -> "complete/complete""#,
            #"  "complete/complete" -> "complete/completed""#,
            #"  "complete/completed" -> "done""#,
        ].sorted())
    }

    @Test("a validator path drawn over the picture")
    func highlightAPath() async throws {
        let run = await matterflow(
            "graph", Repository.workflow("commission-device"), "--highlight-path", "prepare -[next]-> request -[onError[0] *]-> rememberFailure")
        #expect(run.code == 0)
        #expect(run.stdout.contains(##""request" -> "rememberFailure" [label="error: *", color="#b35900", fontcolor="#b35900", color="#d00000", fontcolor="#d00000", penwidth=2.5];"##))
    }

    @Test("the state machines in code")
    func machines() async throws {
        let session = await matterflow("graph", "--machine", "commissioning-session")
        #expect(session.code == 0)
        #expect(session.stdout.hasPrefix("digraph \"commissioning session\" {"))
        #expect(session.stdout.contains(#""idle" -> "prepared" [label="prepare"];"#))
        let runMachine = await matterflow("graph", "--machine", "run")
        #expect(runMachine.code == 0, "\(runMachine.stderr)")
        #expect(runMachine.stdout.hasPrefix("digraph \"run\" {"))
        #expect(runMachine.stdout.contains(#""calling" -> "retryDelay" [label="callEnded [failed] / delay"];"#))
        #expect(runMachine.stdout.contains(#""waitingEvent" -> "entered (cancel path)" [label="#))
        for name in ["epskc", "thread-membership", "run"] {
            let run = await matterflow("graph", "--machine", name, "--format", "mermaid")
            #expect(run.code == 0, "\(name): \(run.stderr)")
            #expect(run.stdout.contains("flowchart TD"))
        }
        let unknown = await matterflow("graph", "--machine", "sesion")
        #expect(unknown.code == 64)
        #expect(unknown.stderr.contains("commissioning-session"))
        let both = await matterflow("graph", Repository.workflow("prepare"), "--machine", "epskc")
        #expect(both.code == 64)
        let neither = await matterflow("graph")
        #expect(neither.code == 64)
        // Options that apply to a workflow only are refused with a machine, not ignored.
        for (option, extra) in [("--expand", [String]()), ("--catalog", ["/nonexistent/catalog.json"]), ("--hub", ["python3 'unclosed"])] {
            let ignored = await matterflow(["graph", "--machine", "epskc", option] + extra)
            #expect(ignored.code == 64, "\(option): \(ignored.stdout)")
            #expect(ignored.stderr.contains("\(option) applies to a workflow, not to --machine"), "\(ignored.stderr)")
        }
    }

    @Test("a workflow with errors is drawn, its errors on stderr and a note, exit 0")
    func workflowWithErrorsIsDrawn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write(
            #"{"workflow": "t", "version": 1, "start": "a", "states": {"a": {"type": "succeed", "ouput": 1}, "b": {"type": "fail", "code": "unavailable", "message": "m"}}}"#,
            to: "t.json")
        let run = await matterflow("graph", path)
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""a" [label="a", shape=doublecircle"#) && run.stdout.contains(#""b" [label="b"#))
        #expect(run.stderr.contains("error[unknownKey]") && run.stderr.contains("error[unreachableState]"), "\(run.stderr)")
        #expect(run.stderr.hasSuffix("note: drawn as written, although it has 2 errors (above); `matterflow validate` fails on them\n"))
        let mermaid = await matterflow("graph", path, "--format", "mermaid")
        #expect(mermaid.code == 0 && mermaid.stdout.contains("\nflowchart TD\n"))
    }

    @Test("a workflow that cannot be drawn is refused: nothing on stdout, exit 2")
    func undrawableWorkflow() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let undecodable = try directory.write(#"{"workflow": "t", "version": 1, "start": "a", "states": {"a": {"type": "bogus"}}}"#, to: "t.json")
        let unparsable = try directory.write(#"{"workflow": "t", "#, to: "u.json")
        for (path, code) in [(undecodable, "unknownStateType"), (unparsable, "syntaxError"), (directory.file("missing.json"), "fileNotFound")] {
            let run = await matterflow("graph", path)
            #expect(run.code == 2, "\(path)")
            #expect(run.stdout.isEmpty)
            #expect(run.stderr.contains("error[\(code)]"), "\(run.stderr)")
            #expect(!run.stderr.contains("note: drawn"))
        }
    }

    @Test("commission-device whose cancel path skips the release fails validation with the leaking path")
    func leakingCopyFails() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for file in try Repository.shippedWorkflows() {
            try directory.write(try String(contentsOfFile: file, encoding: .utf8), to: URL(fileURLWithPath: file).lastPathComponent)
        }
        let text = try String(contentsOfFile: Repository.workflow("commission-device"), encoding: .utf8)
        let old = #"{ "if": { "exists": "${vars.session}" }, "next": "cancel" }"#
        try #require(text.contains(old))
        let swapped = text.replacingOccurrences(of: old, with: #"{ "if": { "exists": "${vars.session}" }, "next": "cancelled" }"#)
            .replacingOccurrences(of: #""default": "cancelled""#, with: #""default": "cancel""#)
        let path = try directory.write(swapped, to: "commission-device.json")
        let run = await matterflow("validate", path)
        #expect(run.code == 2)
        #expect(run.stderr.contains(
            "error[sessionLeak]: /states/cancelIfPrepared/choices/0/next: the commissioning session opened in \"prepare/prepare\" can still be open when the run ends after a cancel"))
        #expect(run.stderr.contains("-[next]-> request -[cancel]-> cancelIfPrepared -[choice[0]]-> cancelled\n"))
        // The path, pasted as it is printed, is drawn over the picture.
        let printed = try #require(run.stderr.components(separatedBy: "Path: ").last?.components(separatedBy: "\n").first)
        let graph = await matterflow("graph", path, "--highlight-path", printed)
        #expect(graph.code == 0, "the leaking copy is drawn with its path: \(graph.stderr)")
        #expect(graph.stderr.contains("error[sessionLeak]") && graph.stderr.contains("note: drawn as written"))
        #expect(graph.stdout.contains(##""cancelIfPrepared" -> "cancelled" [label="exists ${vars.session}", color="#d00000", fontcolor="#d00000", penwidth=2.5];"##), "\(graph.stdout)")
        let shipped = await matterflow("graph", Repository.workflow("commission-device"), "--highlight-path", printed)
        #expect(shipped.stdout.contains(##""request" -> "cancelIfPrepared" [label="cancel", style=dashed, color="#777777", fontcolor="#777777", color="#d00000", fontcolor="#d00000", penwidth=2.5];"##))
    }

    @Test("the sessionLeak path validate prints, pasted as printed, is drawn over the leaking workflow, collapsed and expanded")
    func leakingPathFromValidateIsDrawn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        for file in try Repository.shippedWorkflows() {
            try directory.write(try String(contentsOfFile: file, encoding: .utf8), to: URL(fileURLWithPath: file).lastPathComponent)
        }
        // complete.json's error route goes straight to its fail state, skipping the release (whose states go);
        // commission-device's complete state routes its errors to "failed", which releases nothing either.
        var complete = try String(contentsOfFile: Repository.workflow("complete"), encoding: .utf8)
        let route = #"{ "errors": ["*"], "next": "rememberFailure" }"#
        try #require(complete.contains(route))
        let release = try #require(complete.range(of: #""rememberFailure": {"#))
        let failed = try #require(complete.range(of: #""failed": {"#))
        complete.removeSubrange(release.lowerBound..<failed.lowerBound)
        complete = complete.replacingOccurrences(of: route, with: #"{ "errors": ["*"], "next": "failed" }"#)
            .replacingOccurrences(of: #""error": "${vars.failure}""#, with: #""error": "${error}""#)
        try directory.write(complete, to: "complete.json")
        let device = try String(contentsOfFile: Repository.workflow("commission-device"), encoding: .utf8)
        let completeState = try #require(device.range(of: #""complete": {"#))
        let completeRoute = try #require(device.range(of: #""next": "rememberFailure""#, range: completeState.upperBound..<device.endIndex))
        let path = try directory.write(device.replacingCharacters(in: completeRoute, with: #""next": "failed""#), to: "commission-device.json")
        let validate = await matterflow("validate", path)
        #expect(validate.code == 2)
        let line = try #require(validate.stderr.split(separator: "\n").first { $0.contains("error[sessionLeak]") }, "\(validate.stderr)")
        let printed = try #require(line.components(separatedBy: "Path: ").last)
        #expect(printed.hasSuffix("-[next]-> complete -[start]-> complete/complete -[onError[0] *]-> complete/failed -[onError[0] *]-> failed"))
        func highlighted(_ run: ToolRun) -> [String] {
            run.stdout.split(separator: "\n").filter { $0.contains("penwidth=2.5") && $0.contains(" -> ") }
                .map { $0.components(separatedBy: " [").first ?? "" }
        }
        let collapsed = await matterflow("graph", path, "--highlight-path", printed)
        #expect(collapsed.code == 0, "\(collapsed.stderr)")
        #expect(collapsed.stderr.contains("error[sessionLeak]") && collapsed.stderr.contains("note: drawn as written, although it has 1 error"))
        #expect(highlighted(collapsed) == [
            #"  "prepare" -> "request""#, #"  "request" -> "commission""#, #"  "commission" -> "rooms""#,
            #"  "rooms" -> "configure""#, #"  "configure" -> "complete""#, #"  "complete" -> "failed""#,
        ])
        let expanded = await matterflow("graph", path, "--expand", "--highlight-path", printed)
        #expect(expanded.code == 0, "\(expanded.stderr)")
        #expect(highlighted(expanded).sorted() == [
            #"  "prepare/prepare" -> "prepare/prepared""#, #"  "prepare/prepared" -> "request/request""#,
            #"  "request/request" -> "request/created""#, #"  "request/created" -> "commission/commission""#,
            #"  "commission/commission" -> "commission/commissioned""#, #"  "commission/commissioned" -> "rooms/fetch""#,
            #"  "rooms/fetch" -> "rooms/fetchedRooms""#, #"  "rooms/fetchedRooms" -> "configure/configure""#,
            #"  "configure/configure" -> "configure/configured""#, #"  "configure/configured" -> "complete/complete""#,
            #"  "complete/complete" -> "complete/failed""#, #"  "complete/failed" -> "failed""#,
        ].sorted())
        // Copied with its label, or from a file holding it, the path draws the same.
        let labelled = await matterflow("graph", path, "--expand", "--highlight-path", "Path: " + printed)
        #expect(labelled.code == 0 && labelled.stdout == expanded.stdout, "\(labelled.stderr)")
        let file = try directory.write(printed + "\n", to: "leak.txt")
        let fromFile = await matterflow("graph", path, "--expand", "--highlight-path", file)
        #expect(fromFile.code == 0 && fromFile.stdout == expanded.stdout, "\(fromFile.stderr)")
    }

    @Test("validate --budget prints each end's bound; with --json, findings and budgets")
    func budget() async throws {
        let run = await matterflow("validate", "--budget", Repository.workflow("prepare"))
        #expect(run.code == 0)
        #expect(run.stdout == """
            prepare: worst-case duration to each end
              failed                     246 s (4 min 6 s)
              prepared                   246 s (4 min 6 s)
              cancelled (cancelled run)  286 s (4 min 46 s)

            """)
        let json = await matterflow("validate", "--budget", "--json", Repository.workflow("prepare"))
        let object = try #require(try parseJSON(json.stdout) as? [String: Any])
        #expect((object["findings"] as? [Any])?.isEmpty == true)
        let budgets = try #require(object["budgets"] as? [[String: Any]])
        #expect(budgets.first?["worstSeconds"] as? Double == 286)
    }
}
