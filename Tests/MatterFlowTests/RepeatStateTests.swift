import Foundation
import MatterFlowJSON
import Testing

@testable import MatterFlow

/// The `repeat` state, bounded polling: its body runs until `until` holds over the body's output, `delaySeconds`
/// apart on the run's clock, at most `maxIterations` times; then `repeatExhausted`.
@Suite struct RepeatStateTests {
    /// Polls one device: succeeds with `found` true once it answers, false while it is not found.
    static let body = #"""
        {"workflow": "poll-device", "version": 1, "inputs": {"deviceID": {"type": "string", "required": true}},
         "start": "read", "states": {
          "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "${input.deviceID}"},
                   "next": "found", "onError": [{"errors": ["deviceNotFound"], "next": "missing"}, {"errors": ["*"], "next": "failed"}]},
          "found": {"type": "succeed", "output": {"found": true}},
          "missing": {"type": "succeed", "output": {"found": false}},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    static func parent(maxIterations: Int = 4, delay: Double = 30, extra: String = "") -> String {
        #"""
        {"workflow": "w", "version": 1, "start": "poll", "states": {
          "poll": {"type": "repeat", "path": "poll-device.json", "inputs": {"deviceID": "d-1"}, \#(extra)
                   "until": {"equals": ["${vars.poll.found}", true]}, "maxIterations": \#(maxIterations), "delaySeconds": \#(delay),
                   "result": "poll", "next": "done",
                   "onError": [{"errors": ["repeatExhausted"], "next": "gaveUp"}, {"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed", "output": "${vars.poll}"},
          "gaveUp": {"type": "fail", "error": "${error}"},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#
    }

    /// The parent and its body written to a fresh directory, which the caller removes.
    static func files(_ parent: String = parent()) throws -> (directory: String, path: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mf-repeat-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try body.write(toFile: directory + "/poll-device.json", atomically: true, encoding: .utf8)
        try parent.write(toFile: directory + "/parent.json", atomically: true, encoding: .utf8)
        return (directory, directory + "/parent.json")
    }

    static let notFound = FlowError(.deviceNotFound, "not yet")

    static func run(_ hub: ScriptedHub, parent: String = parent()) async throws -> (RunResult, [RunEvent]) {
        let (directory, path) = try files(parent)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let log = EventLog()
        let result = try await WorkflowEngine().run(
            try WorkflowEngine().load(path: path), on: hub,
            options: RunOptions(structureID: "s", clock: VirtualClock(), observer: log.observer))
        return (result, log.all)
    }

    static func elapsed(_ events: [RunEvent]) -> Duration {
        (events.last?.time ?? .zero) - (events.first?.time ?? .zero)
    }

    @Test func thePollStopsAsSoonAsTheConditionHoldsWithTheDelayBetweenRuns() async throws {
        let (directory, path) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(WorkflowEngine().validate(path: path).isEmpty, "\(WorkflowEngine().validate(path: path))")
        let hub = ScriptedHub()
        hub.script("readBasicInformation", [.fail(Self.notFound), .fail(Self.notFound), .succeed])
        let (result, events) = try await Self.run(hub)
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(result.output == ["found": true])
        #expect(hub.count("readBasicInformation") == 3)
        #expect(Self.elapsed(events) == .seconds(60), "two waits of 30 s on the run's clock")
        #expect(result.visitedStates.filter { $0 == "poll/read" }.count == 3)
    }

    @Test("the route of repeatExhausted reads the last poll's output: the validator takes it as bound there, and the run has it")
    func theExhaustedRouteReadsTheLastPoll() async throws {
        let exhausted = Self.parent(maxIterations: 2, delay: 1)
            .replacingOccurrences(of: #""gaveUp": {"type": "fail", "error": "${error}"}"#, with: #""gaveUp": {"type": "succeed", "output": {"lastFound": "${vars.poll.found}"}}"#)
        let (directory, path) = try Self.files(exhausted)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        #expect(WorkflowEngine().validate(path: path).isEmpty, "\(WorkflowEngine().validate(path: path))")
        let hub = ScriptedHub()
        hub.script("readBasicInformation", Array(repeating: .fail(Self.notFound), count: 10))
        let (result, _) = try await Self.run(hub, parent: exhausted)
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(result.output == ["lastFound": false])
        // A route that also takes other errors may come before any poll ended: there it stays unbound.
        let mixed = exhausted.replacingOccurrences(of: #"{"errors": ["repeatExhausted"], "next": "gaveUp"}, "#, with: "")
            .replacingOccurrences(of: #"{"errors": ["*"], "next": "failed"}"#, with: #"{"errors": ["*"], "next": "gaveUp"}"#)
        let (mixedDirectory, mixedPath) = try Self.files(mixed)
        defer { try? FileManager.default.removeItem(atPath: mixedDirectory) }
        #expect(WorkflowEngine().validate(path: mixedPath).contains { $0.code == "undefinedVariable" }, "\(WorkflowEngine().validate(path: mixedPath))")
    }

    /// A body that is itself a repeat of poll-device.json, run once, whose exhaustion it passes on as its own error.
    static let nestedBody = #"""
        {"workflow": "poll-once", "version": 1, "start": "inner", "states": {
          "inner": {"type": "repeat", "path": "poll-device.json", "inputs": {"deviceID": "d-1"},
                    "until": {"equals": ["${vars.inner.found}", true]}, "maxIterations": 1, "result": "inner", "next": "done",
                    "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed", "output": "${vars.inner}"},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    @Test("a body that can end with repeatExhausted of its own reaches the route in its first run, before any poll ended: the result may be unbound there, and the finding says why")
    func aBodyThatExhaustsItselfLeavesTheResultUnbound() async throws {
        let reading = Self.parent(maxIterations: 2, delay: 1)
            .replacingOccurrences(of: #""gaveUp": {"type": "fail", "error": "${error}"}"#, with: #""gaveUp": {"type": "succeed", "output": {"lastFound": "${vars.poll.found}"}}"#)
            .replacingOccurrences(of: #""path": "poll-device.json", "inputs": {"deviceID": "d-1"}, "#, with: #""path": "poll-once.json", "#)
        let (directory, path) = try Self.files(reading)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.nestedBody.write(toFile: directory + "/poll-once.json", atomically: true, encoding: .utf8)
        let findings = WorkflowEngine().validate(path: path)
        #expect(findings.map(\.code) == ["possiblyUnboundVariable"], "\(findings)")
        let finding = try #require(findings.first)
        #expect(finding.pointer == "/states/gaveUp/output/lastFound")
        #expect(finding.message == #""poll" is not bound on every path to this state (the body of repeat state "poll" (poll-once.json) can itself fail with repeatExhausted, before any run of it has ended and bound "poll", and the route for repeatExhausted then leads here); a run taking such a path fails with unresolvedReference"#)
        // The run shows it: the inner repeat gives up in the first run of the body, and the route's state cannot read the result.
        let hub = ScriptedHub()
        hub.script("readBasicInformation", Array(repeating: .fail(Self.notFound), count: 10))
        let result = try await WorkflowEngine().run(
            try WorkflowEngine().load(path: path), on: hub, options: RunOptions(structureID: "s", clock: VirtualClock()))
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .unresolvedReference, "\(String(describing: result.error))")
        #expect(hub.count("readBasicInformation") == 1)
        // A body that routes its inner repeat's exhaustion cannot end with it: the route comes only after the polls.
        let routed = Self.nestedBody
            .replacingOccurrences(of: #""onError": [{"errors": ["*"], "next": "failed"}]"#, with: #""onError": [{"errors": ["repeatExhausted"], "next": "notYet"}, {"errors": ["*"], "next": "failed"}]"#)
            .replacingOccurrences(of: #""done": {"#, with: #""notYet": {"type": "succeed", "output": {"found": false}}, "done": {"#)
        try routed.write(toFile: directory + "/poll-once.json", atomically: true, encoding: .utf8)
        #expect(WorkflowEngine().validate(path: path).isEmpty, "\(WorkflowEngine().validate(path: path))")
    }

    @Test func usingUpTheIterationsIsARoutableErrorOfItsOwn() async throws {
        let hub = ScriptedHub()
        hub.script("readBasicInformation", Array(repeating: .fail(Self.notFound), count: 10))
        let (result, events) = try await Self.run(hub)
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .repeatExhausted)
        #expect(result.error?.code == .resourceExhausted)
        #expect(result.error?.state == "poll")
        #expect(result.error?.message.contains("ran its body 4 times (its maxIterations)") == true)
        #expect(result.visitedStates.last == "gaveUp")
        #expect(hub.count("readBasicInformation") == 4)
        #expect(Self.elapsed(events) == .seconds(90), "no wait after the last run")
    }

    @Test func aBodyThatFailsEndsTheRepeatWithItsError() async throws {
        let hub = ScriptedHub()
        hub.script("readBasicInformation", [.fail(Self.notFound), .fail(FlowError(.hubOffline, "offline"))])
        let (result, _) = try await Self.run(hub)
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .hubOffline)
        #expect(result.visitedStates.last == "failed")
        #expect(hub.count("readBasicInformation") == 2)
    }

    @Test func aCancelDuringTheDelayEndsTheWaitAtOnce() async throws {
        let (directory, path) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let hub = ScriptedHub()
        hub.script("readBasicInformation", [.fail(Self.notFound)])
        let clock = ManualClock()
        let handle = try WorkflowEngine().start(try WorkflowEngine().load(path: path), on: hub, options: RunOptions(structureID: "s", clock: clock))
        var waited = false
        for _ in 0..<2_000 where !waited {
            waited = clock.sleeperCount >= 1
            if !waited { await Task.yield() }
        }
        try #require(waited, "the run never started its delay")
        handle.cancel()
        let result = await handle.result
        #expect(result.outcome == .cancelled)
        #expect(result.error?.state == "poll")
        #expect(hub.count("readBasicInformation") == 1)
    }

    @Test func loadingChecksTheRepeatsKeys() throws {
        func found(_ text: String) throws -> [Diagnostic] {
            let (directory, path) = try Self.files(text)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            return WorkflowEngine().validate(path: path)
        }
        let noResult = try found(Self.parent().replacingOccurrences(of: #""result": "poll","#, with: ""))
        #expect(noResult.contains { $0.code == "missingKey" && $0.pointer == "/states/poll" && $0.message.contains("\"result\"") }, "\(noResult)")
        let zero = try found(Self.parent(maxIterations: 0))
        #expect(zero.contains { $0.code == "numberOutOfRange" && $0.pointer == "/states/poll/maxIterations" }, "\(zero)")
        let retried = try found(Self.parent(extra: #""retry": [{"errors": ["*"]}],"#))
        #expect(retried.contains { $0.code == "unknownKey" && $0.pointer == "/states/poll/retry" }, "\(retried)")
        let typo = try found(Self.parent().replacingOccurrences(of: "${vars.poll.found}", with: "${vars.pol.found}"))
        #expect(typo.contains { $0.code == "undefinedVariable" && $0.pointer == "/states/poll/until" }, "\(typo)")
    }

    @Test func theBoundIsMaxIterationsBodiesAndTheDelaysBetween() throws {
        let (directory, path) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let budget = TimeBudget(workflow: try WorkflowEngine().load(path: path))
        // The body: one readBasicInformation, 10 s + 5 s of wind-down; four runs and three delays of 30 s.
        #expect(budget.worstUncancelledSeconds == 4 * 15 + 3 * 30)
    }

    @Test func aBodyThatOpensTheSessionIsAFindingAndTheGraphDrawsTheRepeat() throws {
        let text = #"""
            {"workflow": "w", "version": 1, "start": "again", "onCancel": "release", "states": {
              "again": {"type": "repeat", "path": "prepare.json", "until": {"exists": "${vars.s}"}, "maxIterations": 2, "result": "s",
                        "next": "release", "onError": [{"errors": ["*"], "next": "release"}]},
              "release": {"type": "workflow", "path": "cancel.json", "next": "done", "onError": [{"errors": ["*"], "next": "done"}]},
              "done": {"type": "succeed"}
            }}
            """#
        let found = diagnose(text).filter { $0.code == "unbalancedMapBody" }
        #expect(found.first?.message.contains("the body of repeat state \"again\" can end holding a commissioning session it opened") == true, "\(diagnose(text))")
        let (directory, path) = try Self.files()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let graph = try WorkflowGraph.build(try WorkflowEngine().load(path: path))
        #expect(graph.dot.contains("shape=component"), "\(graph.dot)")
        #expect(graph.dot.contains("until ${vars.poll.found} == true (≤ 4 times, every 30 s)"), "\(graph.dot)")
    }
}
