import Foundation
import MatterFlowJSON
import Synchronization
import Testing

@testable import MatterFlow

/// A map state with `concurrency` above 1: up to that many elements run at once, each under its own call context,
/// with results in element order, the failure policy cancelling elements still running, and run cancels reaching
/// every running element's cancel path.
@Suite struct ConcurrentMapTests {
    /// A workflow mapping read-device.json (or `body`) over `items`, `concurrency` at a time.
    static func workflow(items: String, concurrency: Int, maxItems: Int = 8, tolerate: Int = 0, body: String = "read-device.json") -> String {
        #"""
        {"workflow": "w", "version": 1, "start": "each", "states": {
          "each": {"type": "map", "items": \#(items), "as": "deviceID", "maxItems": \#(maxItems),
                   "concurrency": \#(concurrency), "tolerateFailures": \#(tolerate),
                   "path": "\#(body)", "inputs": {"deviceID": "${vars.deviceID}"}, "result": "reads", "next": "done",
                   "onError": [{"errors": ["mapElementsFailed"], "next": "elementsFailed"}, {"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed", "output": "${vars.reads}"},
          "elementsFailed": {"type": "fail", "error": "${error}"},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#
    }

    /// A body that reads a device and, when cancelled, reads `cancelled-<device>` on its cancel path (so a test can
    /// see that the path ran).
    static let cancellableBody = #"""
        {"workflow": "read-or-note", "version": 1, "start": "read", "onCancel": "note",
         "inputs": {"deviceID": {"type": "string", "required": true}},
         "states": {
          "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "${input.deviceID}"},
                   "result": "info", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed", "output": {"deviceID": "${input.deviceID}"}},
          "failed": {"type": "fail", "error": "${error}"},
          "note": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "cancelled-${input.deviceID}"},
                   "next": "cancelled", "onError": [{"errors": ["*"], "next": "cancelled"}]},
          "cancelled": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "cancelled"}
         }}
        """#

    /// A parent mapping the cancellable body, loaded from a directory that is removed once they are loaded.
    static func cancellableTree(items: String, concurrency: Int, tolerate: Int = 0) throws -> Workflow {
        let parent = workflow(items: items, concurrency: concurrency, tolerate: tolerate, body: "read-or-note.json")
        let directory = try WorkflowDirectory("concurrent", files: ["read-or-note.json": cancellableBody, "parent.json": parent])
        defer { directory.remove() }
        return try WorkflowEngine().load(path: directory.path + "/parent.json")
    }

    /// A map over two items, both at once, of the body at `path`, failing on any error.
    static func concurrentMap(over path: String) -> String {
        #"""
        {"workflow": "w", "version": 1, "start": "each", "states": {
          "each": {"type": "map", "items": ["a", "b"], "as": "id", "maxItems": 2, "concurrency": 2,
                   "path": "\#(path)", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed"},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#
    }

    static func run(_ workflow: Workflow, hub: ScriptedHub, clock: VirtualClock, observer: (@Sendable (RunEvent) -> Void)? = nil) async throws -> RunResult {
        try await WorkflowEngine().run(workflow, on: hub, options: RunOptions(structureID: "s", clock: clock, observer: observer))
    }

    @Test func upToConcurrencyElementsRunAtOnceEachUnderItsOwnContext() async throws {
        let clock = VirtualClock()
        let hub = ScriptedHub()
        let devices = (0..<7).map { "d-\($0)" }
        for device in devices { hub.script(device: device, .sleep(.seconds(5), clock)) }
        let items = "[" + devices.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
        let text = Self.workflow(items: items, concurrency: 3)
        #expect(diagnose(text).isEmpty, "\(diagnose(text))")
        let result = try await Self.run(try loadWorkflow(text), hub: hub, clock: clock)
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(hub.maxInFlight == 3, "three elements at a time, never more")
        #expect(hub.sameElementOverlaps.isEmpty, "one element's calls never overlap")
        // Seven elements three at a time take three rounds of 5 s.
        #expect(clock.now == .seconds(15))
        let elements = hub.contexts.compactMap { $0?.element }
        #expect(Set(elements) == Set((0..<7).map { "each[\($0)]" }))
        #expect(hub.contexts.allSatisfy { $0?.idempotencyKey.hasPrefix(result.runID + "/each[") == true })
        #expect(result.output?["elements"]?.arrayValue?.map { $0["item"] } == devices.map(JSONValue.string))
        #expect(result.output?["succeeded"] == .int(7))
    }

    @Test func resultsStayInElementOrderWhateverOrderElementsEndIn() async throws {
        let clock = VirtualClock()
        let hub = ScriptedHub()
        // The first element ends last, the last first.
        for index in 0..<4 { hub.script(device: "d-\(index)", .sleep(.seconds(Double(6 - index)), clock)) }
        let result = try await Self.run(
            try loadWorkflow(Self.workflow(items: #"["d-0", "d-1", "d-2", "d-3"]"#, concurrency: 4)), hub: hub, clock: clock)
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(clock.now == .seconds(6))
        let elements = try #require(result.output?["elements"]?.arrayValue)
        #expect(elements.map { $0["index"] } == [.int(0), .int(1), .int(2), .int(3)])
        #expect(elements.map { $0["output"]?["deviceID"] } == ["d-0", "d-1", "d-2", "d-3"])
    }

    @Test func aToleratedFailureLetsTheOthersFinish() async throws {
        let clock = VirtualClock()
        let hub = ScriptedHub()
        hub.script(device: "d-1", .failAfter(.seconds(1), clock, FlowError(.deviceNotFound, "no such device")))
        for device in ["d-0", "d-2"] { hub.script(device: device, .sleep(.seconds(5), clock)) }
        let result = try await Self.run(
            try loadWorkflow(Self.workflow(items: #"["d-0", "d-1", "d-2"]"#, concurrency: 3, tolerate: 1)), hub: hub, clock: clock)
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        let elements = try #require(result.output?["elements"]?.arrayValue)
        #expect(elements.map { $0["status"] } == ["succeeded", "failed", "succeeded"])
        #expect(result.output?["failed"] == .int(1))
        #expect(result.warnings.contains { $0.contains("element 1 (d-1)") && $0.contains("tolerated") }, "\(result.warnings)")
        // The three ran at once: one at a time they would take 5 + 1 + 5 s.
        #expect(hub.maxInFlight == 3)
        #expect(clock.now == .seconds(5))
    }

    @Test func aFailureBeyondToleranceCancelsRunningElementsAndTheirCancelPathsRun() async throws {
        let clock = VirtualClock()
        let hub = ScriptedHub()
        hub.script(device: "d-1", .failAfter(.seconds(1), clock, FlowError(.deviceNotFound, "no such device")))
        for device in ["d-0", "d-2", "d-3", "d-4"] { hub.script(device: device, .sleep(.seconds(8), clock)) }
        let workflow = try Self.cancellableTree(items: #"["d-0", "d-1", "d-2", "d-3", "d-4"]"#, concurrency: 3)
        let result = try await Self.run(workflow, hub: hub, clock: clock)
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .mapElementsFailed, "\(String(describing: result.error))")
        #expect(result.error?.message.contains("element 1 (d-1)") == true)
        // d-0 and d-2 were running: each took its cancel path; d-3 and d-4 never started.
        #expect(Set(hub.readDevices) == ["d-0", "d-1", "d-2", "cancelled-d-0", "cancelled-d-2"], "\(hub.readDevices)")
        // The map ended once the cancelled elements had: before their reads would have.
        #expect(clock.now < .seconds(8))
        #expect(result.visitedStates.last == "elementsFailed")
    }

    @Test func twoElementsFailingAtOnceBeyondToleranceFailTheMapOnce() async throws {
        let clock = VirtualClock()
        let hub = ScriptedHub()
        for device in ["d-0", "d-1"] { hub.script(device: device, .failAfter(.seconds(2), clock, FlowError(.deviceNotFound, "no such device"))) }
        let result = try await Self.run(
            try loadWorkflow(Self.workflow(items: #"["d-0", "d-1", "d-2"]"#, concurrency: 2)), hub: hub, clock: clock)
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .mapElementsFailed)
        #expect(hub.readDevices.count == 2, "no element starts once the map fails: \(hub.readDevices)")
        // The map fails at the first failure, which its error names; the second, ending at the same moment, changes
        // neither the error nor the route, which the run takes once.
        let message = result.error?.message ?? ""
        #expect(
            (message.contains("element 0 (d-0)") || message.contains("element 1 (d-1)")) && message.contains("no such device")
                && message.contains("that is 1 failed elements, more than tolerateFailures (0)"), "\(message)")
        #expect(result.visitedStates.filter { $0 == "elementsFailed" }.count == 1, "\(result.visitedStates)")
        #expect(result.visitedStates.last == "elementsFailed")
        #expect(!result.visitedStates.contains("failed"))
        #expect(clock.now == .seconds(2))
    }

    @Test func aRunCancelCancelsEveryRunningElementAndTheMapTakesItsCancelPath() async throws {
        let clock = VirtualClock()
        let hub = ScriptedHub()
        for index in 0..<4 { hub.script(device: "d-\(index)", .sleep(.seconds(8), clock)) }
        let workflow = try Self.cancellableTree(items: #"["d-0", "d-1", "d-2", "d-3"]"#, concurrency: 2)
        let cancellation = RunCancellation()
        let started = EventCounter()
        var options = RunOptions(structureID: "s", clock: clock) { event in
            // Cancel once both running elements have called the hub.
            if case .hubCallStarted = event.kind, started.increment() == 2 { cancellation.cancel() }
        }
        options.cancellation = cancellation
        let result = try await WorkflowEngine().run(workflow, on: hub, options: options)
        #expect(result.outcome == .cancelled, "\(String(describing: result.error))")
        #expect(Set(hub.readDevices) == ["d-0", "d-1", "cancelled-d-0", "cancelled-d-1"], "\(hub.readDevices)")
        #expect(clock.now < .seconds(8))
    }

    @Test func aBodyThatWorksInTheSessionCannotRunElementsAtOnce() {
        let text = Self.concurrentMap(over: "cancel.json")
        let found = diagnose(text).filter { $0.code == "concurrentSessionUse" }
        #expect(found.count == 1, "\(diagnose(text))")
        #expect(found.first?.pointer == "/states/each/concurrency")
        #expect(found.first?.message.contains("cancelCommissioning") == true)
        // One at a time, the same body is fine.
        #expect(!diagnose(text.replacingOccurrences(of: #""concurrency": 2,"#, with: "")).contains { $0.code == "concurrentSessionUse" })
    }

    @Test func aBodyThatAsksCannotRunElementsAtOnce() throws {
        let body = #"""
            {"workflow": "name-it", "version": 1, "start": "name", "states": {
              "name": {"type": "ask", "prompt": "Name?", "answer": {"text": {"maxLength": 20}}, "timeoutSeconds": 60,
                       "next": "done", "onTimeout": "done"},
              "done": {"type": "succeed"}
            }}
            """#
        let directory = try WorkflowDirectory("concurrent-ask", files: ["name-it.json": body])
        defer { directory.remove() }
        let parent = Self.concurrentMap(over: "name-it.json")
        let found = directory.diagnose(parent)
        #expect(found.contains { $0.pointer == "/states/each/concurrency" && $0.message.contains("one question at a time") }, "\(found)")
        let sequential = parent.replacingOccurrences(of: #""concurrency": 2,"#, with: "")
        #expect(directory.diagnose(sequential).isEmpty)
    }

    @Test func aBodyThatWaitsForAnEventCannotRunElementsAtOnce() throws {
        let body = #"""
            {"workflow": "await-key", "version": 1, "start": "used", "states": {
              "used": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 60, "result": "e",
                       "on": {"keyUsed": "done"}, "otherwise": "done", "onTimeout": "done"},
              "done": {"type": "succeed"}
            }}
            """#
        // The wait is one sub-workflow down from the body.
        let middle = #"""
            {"workflow": "middle", "version": 1, "start": "inner", "states": {
              "inner": {"type": "workflow", "path": "await-key.json", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#
        let directory = try WorkflowDirectory("concurrent-wait", files: ["await-key.json": body, "middle.json": middle])
        defer { directory.remove() }
        let parent = Self.concurrentMap(over: "middle.json")
        let found = directory.diagnose(parent)
        #expect(
            found.contains {
                $0.code == "invalidValue" && $0.pointer == "/states/each/concurrency" && $0.message.contains("await-key.json: used")
                    && $0.message.contains("waits for a hub event")
            }, "\(found)")
        let sequential = parent.replacingOccurrences(of: #""concurrency": 2,"#, with: "")
        let accepted = directory.diagnose(sequential)
        #expect(accepted.isEmpty, "\(accepted)")
    }

    @Test func aConcurrentMapCannotRunInsideAConcurrentMapsBody() throws {
        let readDevice = try String(contentsOfFile: Repository.workflowsDirectory + "/read-device.json", encoding: .utf8)
        let inner = Self.workflow(items: #""${input.ids}""#, concurrency: 2)
            .replacingOccurrences(of: #""version": 1,"#, with: #""version": 1, "inputs": {"ids": {"type": "array", "required": true}},"#)
        let directory = try WorkflowDirectory("concurrent-nested", files: ["read-device.json": readDevice, "inner.json": inner])
        defer { directory.remove() }
        let outer = #"""
            {"workflow": "outer", "version": 1, "start": "groups", "states": {
              "groups": {"type": "map", "items": [["a"], ["b"]], "as": "ids", "maxItems": 2, "concurrency": 2,
                         "path": "inner.json", "inputs": {"ids": "${vars.ids}"}, "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#
        let load = { (text: String) in directory.diagnose(text, as: "outer.json") }
        let found = load(outer)
        #expect(
            found.contains {
                $0.code == "invalidValue" && $0.pointer == "/states/groups/concurrency" && $0.message.contains("map state each")
                    && $0.message.contains("resumed run")
            }, "\(found)")
        // The outer map one element at a time may run the concurrent inner one.
        let sequential = load(outer.replacingOccurrences(of: #""concurrency": 2,"#, with: ""))
        #expect(sequential.isEmpty, "\(sequential)")
    }

    @Test func theTimeBoundCountsRoundsOfConcurrentElements() throws {
        // read-device: one read, 10 s + 5 s of wind-down; 5 elements 2 at a time take 3 rounds, plus the wind-down of
        // elements cancelled when too many fail.
        let budget = TimeBudget(workflow: try loadWorkflow(Self.workflow(items: #"["a"]"#, concurrency: 2, maxItems: 5)))
        #expect(budget.worstUncancelledSeconds == 3 * 15 + 5)
        let sequential = TimeBudget(workflow: try loadWorkflow(Self.workflow(items: #"["a"]"#, concurrency: 1, maxItems: 5)))
        #expect(sequential.worstUncancelledSeconds == 5 * 15)
    }

    @Test func aMapCheckpointWithRunningElementsRoundTripsAndInconsistentOnesAreRefused() {
        let saved = MapCheckpoint(index: 3, results: [["index": .int(1), "status": "succeeded"]], running: [0, 2])
        #expect(MapCheckpoint(json: saved.jsonValue) == saved)
        // One at a time, the format is as before: no "running".
        #expect(MapCheckpoint(index: 1, results: [["index": .int(0)]]).jsonValue["running"] == nil)
        let ints: ([Int]) -> JSONValue = { .array($0.map(JSONValue.int)) }
        #expect(MapCheckpoint(json: ["index": .int(2), "results": .array([]), "running": ints([0, 0])]) == nil, "an element running twice")
        #expect(MapCheckpoint(json: ["index": .int(2), "results": .array([]), "running": ints([2])]) == nil, "an element not started yet")
        #expect(MapCheckpoint(json: ["index": .int(1), "results": .array([["index": .int(0)]]), "running": ints([0])]) == nil, "more than started")
        #expect(MapCheckpoint(json: ["index": .int(1), "results": .array([]), "running": "0"]) == nil)
    }

    @Test func concurrencyIsRangeChecked() {
        let over = diagnose(Self.workflow(items: "[]", concurrency: 9, maxItems: 8))
        #expect(over.contains { $0.code == "numberOutOfRange" && $0.pointer == "/states/each/concurrency" }, "\(over)")
        let zero = diagnose(Self.workflow(items: "[]", concurrency: 0))
        #expect(zero.contains { $0.code == "numberOutOfRange" && $0.pointer == "/states/each/concurrency" }, "\(zero)")
        #expect(diagnose(Self.workflow(items: "[]", concurrency: 8, maxItems: 8)).isEmpty)
    }
}

/// A counter events can bump from any thread.
final class EventCounter: Sendable {
    private let value = Mutex(0)

    /// Adds one and returns the new count.
    func increment() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}
