import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// Pictures of workflows and of the state machines in code: stable text, valid DOT and Mermaid, highlighting.
@Suite struct GraphTests {
    static let tiny = #"""
        {"workflow": "tiny", "version": 1, "start": "fetch", "onCancel": "stopped", "states": {
          "fetch": {"type": "action", "operation": "fetchRooms", "guards": ["hubReachable"], "result": "rooms", "next": "pick",
                    "onError": [{"errors": ["hubOffline", "hubUnreachable"], "next": "stopped"}, {"errors": ["*"], "next": "stopped"}]},
          "pick": {"type": "choice", "choices": [{"if": {"isEmpty": "${vars.rooms.roomNames}"}, "next": "stopped"}], "default": "done"},
          "done": {"type": "succeed"},
          "stopped": {"type": "fail", "code": "unavailable", "message": "no rooms"}
        }}
        """#

    @Test func dotOfASmallWorkflow() throws {
        let graph = try WorkflowGraph.build(try loadWorkflow(Self.tiny))
        #expect(graph.dot == #"""
            digraph "tiny" {
              compound=true;
              rankdir=TB;
              node [fontname="Helvetica", fontsize=11];
              edge [fontname="Helvetica", fontsize=9];
              "__start" [shape=point, width=0.15, label=""];
              "__start" -> "fetch";
              "fetch" [label="fetch\nfetchRooms\nguards: hubReachable", shape=box, style=rounded];
              "pick" [label="pick", shape=diamond];
              "done" [label="done", shape=doublecircle, color="#2e7d32"];
              "stopped" [label="stopped\nfail \"unavailable\"", shape=doubleoctagon, color="#c62828"];
              "fetch" -> "pick" [label="next"];
              "fetch" -> "stopped" [label="error: hubOffline, hubUnreachable", color="#b35900", fontcolor="#b35900"];
              "fetch" -> "stopped" [label="error: *", color="#b35900", fontcolor="#b35900"];
              "fetch" -> "stopped" [label="cancel", style=dashed, color="#777777", fontcolor="#777777"];
              "pick" -> "stopped" [label="isEmpty ${vars.rooms.roomNames}"];
              "pick" -> "done" [label="default"];
              "pick" -> "stopped" [label="cancel", style=dashed, color="#777777", fontcolor="#777777"];
            }

            """#)
    }

    @Test func mermaidOfASmallWorkflow() throws {
        let graph = try WorkflowGraph.build(try loadWorkflow(Self.tiny))
        #expect(graph.mermaid == #"""
            %% tiny
            flowchart TD
              s0(("start"))
              s0 --> s1
              s1("fetch<br/>fetchRooms<br/>guards: hubReachable")
              s2{"pick"}
              s3((("done")))
              s4{{"stopped<br/>fail #quot;unavailable#quot;"}}
              s1 -->|"next"| s2
              s1 -->|"error: hubOffline, hubUnreachable"| s4
              s1 -->|"error: *"| s4
              s1 -.->|"cancel"| s4
              s2 -->|"isEmpty ${vars.rooms.roomNames}"| s4
              s2 -->|"default"| s3
              s2 -.->|"cancel"| s4
              classDef succeed stroke:#2e7d32
              class s3 succeed
              classDef fail stroke:#c62828
              class s4 fail
              linkStyle 2,3 stroke:#b35900,color:#b35900

            """#)
    }

    @Test("names with line breaks stay in their comment or label, and a state named __start is not the start point")
    func hostileNamesStayInPlace() throws {
        // A file cannot name them so (control characters are refused at load); a workflow built in code can.
        let text = #"""
            {"workflow": "nl", "version": 1, "start": "__start", "states": {
              "__start": {"type": "assign", "set": {"x": 1}, "next": "ab"},
              "ab": {"type": "succeed"}}}
            """#
        let hostile = "a\r\nb"
        let workflow = try loadWorkflow(text).with { definition in
            definition.name = "nl\nclick s1 call alert(1)"
            guard var end = definition.states.removeValue(forKey: "ab"), var start = definition.states["__start"],
                case .assign(var assign) = start.kind
            else { return }
            end.name = hostile
            definition.states[hostile] = end
            assign.next = hostile
            start.kind = .assign(assign)
            definition.states["__start"] = start
            definition.stateOrder = ["__start", hostile]
        }
        #expect(workflow.states[hostile] != nil)
        let graph = try WorkflowGraph.build(workflow)
        let mermaid = graph.mermaid.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(mermaid.first == "%% nl click s1 call alert(1)")
        #expect(mermaid.dropFirst().first == "flowchart TD")
        #expect(!mermaid.contains { $0.hasPrefix("click") })
        #expect(!graph.mermaid.contains("\r"))
        let dot = graph.dot
        #expect(dot.contains(#""__start_" [shape=point"#), "\(dot)")
        #expect(dot.contains(#""__start_" -> "__start";"#), "\(dot)")
        #expect(!dot.contains(#""__start" -> "__start""#), "no false edge: \(dot)")
    }

    @Test func outputIsStableAcrossLoads() throws {
        let first = try WorkflowGraph.build(try WorkflowEngine().load(path: Repository.workflow("commission-device.json")), expand: true)
        let second = try WorkflowGraph.build(try WorkflowEngine().load(path: Repository.workflow("commission-device.json")), expand: true)
        #expect(first.dot == second.dot)
        #expect(first.mermaid == second.mermaid)
    }

    @Test func expandedSubWorkflowsAreClustersWiredToTheirParentsEdges() throws {
        let graph = try WorkflowGraph.build(try WorkflowEngine().load(path: Repository.workflow("commission-device.json")), expand: true)
        let dot = graph.dot
        #expect(dot.contains("subgraph \"cluster_prepare\" {"))
        #expect(dot.contains("label=\"prepare: prepare.json\";"))
        // The child's succeed state leads to the parent's next state, entering its cluster at the child's start.
        #expect(dot.contains(##""prepare/prepared" -> "request/request" [label="next", lhead="cluster_request"];"##))
        // The child's fail state leads to the parent's error route.
        #expect(dot.contains(##""prepare/failed" -> "failed" [label="error: *""##))
        // The end of the child's cancel path leads to the parent's cancel state.
        #expect(dot.contains(##""commission/cancelled" -> "cancelIfPrepared" [label="cancel""##))
        // rooms.json has no cancel path: its cancel edge leaves the cluster's border.
        #expect(dot.contains(##""rooms/fetch" -> "cancelIfPrepared" [label="cancel", style=dashed, color="#777777", fontcolor="#777777", ltail="cluster_rooms"];"##))
        let mermaid = graph.mermaid
        #expect(mermaid.components(separatedBy: "\n").filter { $0.trimmingCharacters(in: .whitespaces).hasPrefix("subgraph ") }.count
            == mermaid.components(separatedBy: "\n").filter { $0.trimmingCharacters(in: .whitespaces) == "end" }.count)
    }

    @Test func aValidatorPathIsHighlighted() throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device.json"))
        let path = "prepare -[start]-> prepare/prepare -[next]-> prepare/prepared -[next]-> request -[onError[0] *]-> rememberFailure"
        let graph = try WorkflowGraph.build(workflow).highlighting(.path(path))
        #expect(graph.nodes.filter(\.highlighted).map(\.id) == ["prepare", "request", "rememberFailure"])
        #expect(graph.edges.filter(\.highlighted).map { "\($0.from)>\($0.to)" } == ["prepare>request", "request>rememberFailure"])
        #expect(graph.dot.contains(##""prepare" -> "request" [label="next", color="#d00000", fontcolor="#d00000", penwidth=2.5];"##))
        #expect(graph.mermaid.contains("linkStyle 1,5 stroke:#d00000,stroke-width:3px"))
        let expanded = try WorkflowGraph.build(workflow, expand: true).highlighting(.path(path))
        #expect(expanded.edges.filter(\.highlighted).map { "\($0.from)>\($0.to)" }
            == ["prepare/prepare>prepare/prepared", "prepare/prepared>request/request"])
        // Copied with the label the finding's message puts before it, and the line's end.
        #expect(GraphHighlight.path("Path: " + path + "\n").states == GraphHighlight.path(path).states)
    }

    @Test func aRunsTraceIsHighlighted() throws {
        let trace = """
            {"event":"runStarted","runID":"r","time":0,"workflow":"commission-device","inputs":{}}
            {"event":"stateEntered","runID":"r","time":0,"workflow":"commission-device","state":"prepare","type":"workflow"}
            {"event":"stateEntered","runID":"r","time":0,"workflow":"commission-device/prepare","state":"prepare","type":"action"}
            {"event":"transitionTaken","runID":"r","time":6,"workflow":"commission-device/prepare","from":"prepare","to":"failed","edge":"onError[0] *"}
            {"event":"stateEntered","runID":"r","time":6,"workflow":"commission-device/prepare","state":"failed","type":"fail"}
            {"event":"transitionTaken","runID":"r","time":6,"workflow":"commission-device","from":"prepare","to":"failed","edge":"onError[0] *"}
            {"event":"stateEntered","runID":"r","time":6,"workflow":"commission-device","state":"failed","type":"fail"}
            """
        let highlight = try GraphHighlight.trace(jsonl: trace)
        #expect(highlight.states == ["prepare", "prepare/prepare", "prepare/failed", "failed"])
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device.json"))
        let expanded = try WorkflowGraph.build(workflow, expand: true).highlighting(highlight)
        #expect(expanded.edges.filter(\.highlighted).map { "\($0.from)>\($0.to)" }
            == ["prepare/prepare>prepare/failed", "prepare/failed>failed"])
        #expect(expanded.clusters.first { $0.id == "cluster_prepare" }?.highlighted == true)
        #expect(throws: DiagnosticsError.self) { try GraphHighlight.trace(jsonl: "prepare -> failed") }
    }

    @Test("a workflow with errors is drawn as written: its sub-workflow with errors inside it, nothing made up")
    func aWorkflowWithErrorsIsDrawnAsWritten() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mf-drawn-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The child's error route skips a state (unreachable); the parent's start and one transition name no state.
        let child = #"""
            {"workflow": "child", "version": 1, "start": "work", "states": {
              "work": {"type": "action", "operation": "fetchRooms", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "note": {"type": "assign", "set": {"x": 1}, "next": "failed"},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#
        let parent = #"""
            {"workflow": "parent", "version": 1, "start": "begin", "states": {
              "run": {"type": "workflow", "path": "child.json", "next": "end", "onError": [{"errors": ["*"], "next": "nowhere"}]},
              "end": {"type": "succeed"}
            }}
            """#
        try child.write(toFile: directory + "/child.json", atomically: true, encoding: .utf8)
        try parent.write(toFile: directory + "/parent.json", atomically: true, encoding: .utf8)
        let outcome = WorkflowLoader().load(path: directory + "/parent.json")
        #expect(outcome.workflow == nil)
        #expect(Set(outcome.diagnostics.map(\.code)).isSuperset(of: ["unreachableState", "invalidSubworkflow", "missingStart", "undefinedState"]))
        let decoded = try #require(outcome.decoded, "a workflow whose states decode is drawable")
        #expect(decoded.subworkflows["child.json"]?.name == "child", "the child with errors is drawn inside its state")
        let graph = try WorkflowGraph.build(decoded, expand: true)
        #expect(graph.starts.isEmpty, "no start arrow to a start that is not defined")
        #expect(graph.nodes.map(\.id) == ["run/work", "run/note", "run/done", "run/failed", "end"])
        #expect(graph.edges.map { "\($0.from)>\($0.to)" } == ["run/work>run/done", "run/work>run/failed", "run/note>run/failed", "run/done>end"],
            "the route to an undefined state is not drawn")
        let collapsed = try WorkflowGraph.build(decoded)
        #expect(collapsed.nodes.map(\.id) == ["run", "end"])
        // A state that does not decode leaves its transitions unknown: nothing to draw.
        let broken = WorkflowLoader().load(
            text: #"{"workflow": "w", "version": 1, "start": "a", "states": {"a": {"type": "bogus"}}}"#, file: "w.json",
            baseDirectory: directory)
        #expect(broken.decoded == nil)
        #expect(WorkflowLoader().load(text: "{", file: "w.json", baseDirectory: directory).decoded == nil)
    }
}
