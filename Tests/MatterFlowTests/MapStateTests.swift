import Foundation
import MatterFlowJSON
import Testing

@testable import MatterFlow

/// The `map` state: its body (here the shipped read-device.json) runs once per element, one after another, with
/// results and failures per element, a failure tolerance, and run-time errors of its own for bad lists.
@Suite struct MapStateTests {
    /// A workflow mapping read-device.json over `items`, routing each map error to a fail state of its own.
    static func workflow(items: String, maxItems: Int = 4, tolerate: Int = 0, extra: String = "") -> String {
        #"""
        {"workflow": "w", "version": 1, "start": "each", "states": {
          "each": {"type": "map", "items": \#(items), "as": "deviceID", "maxItems": \#(maxItems),
                   "tolerateFailures": \#(tolerate), \#(extra)
                   "path": "read-device.json", "inputs": {"deviceID": "${vars.deviceID}"}, "result": "reads", "next": "done",
                   "onError": [{"errors": ["mapItemsNotList"], "next": "notAList"},
                               {"errors": ["mapTooManyItems"], "next": "tooMany"},
                               {"errors": ["mapElementsFailed"], "next": "elementsFailed"}]},
          "done": {"type": "succeed", "output": "${vars.reads}"},
          "notAList": {"type": "fail", "error": "${error}"},
          "tooMany": {"type": "fail", "error": "${error}"},
          "elementsFailed": {"type": "fail", "error": "${error}"}
        }}
        """#
    }

    static func run(_ text: String, hub: ScriptedHub, inputs: JSONObject = [:]) async throws -> RunResult {
        try await WorkflowEngine().run(
            try loadWorkflow(text), inputs: inputs, on: hub, options: RunOptions(structureID: "s", clock: ManualClock()))
    }

    @Test func eachElementRunsTheBodyOnceInOrderAndTheResultListsThem() async throws {
        let hub = ScriptedHub()
        let text = Self.workflow(items: #"["d-1", "d-2", "d-3"]"#)
        #expect(diagnose(text).isEmpty, "\(diagnose(text))")
        let result = try await Self.run(text, hub: hub)
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(hub.count("readBasicInformation") == 3)
        #expect(hub.overlapping.isEmpty, "element calls never overlap")
        let elements = try #require(result.output?["elements"]?.arrayValue)
        #expect(elements.map { $0["index"] } == [.int(0), .int(1), .int(2)])
        #expect(elements.map { $0["item"] } == ["d-1", "d-2", "d-3"])
        #expect(elements.allSatisfy { $0["status"] == "succeeded" })
        #expect(elements.map { $0["output"]?["deviceID"] } == ["d-1", "d-2", "d-3"])
        #expect(result.output?["succeeded"] == .int(3))
        #expect(result.output?["failed"] == .int(0))
        #expect(result.visitedStates.filter { $0 == "each/read" }.count == 3)
    }

    @Test func aToleratedFailureIsListedWithItsErrorAndWarnedAbout() async throws {
        let hub = ScriptedHub()
        hub.script("readBasicInformation", [.succeed, .fail(FlowError(.deviceNotFound, "no such device"))])
        let result = try await Self.run(Self.workflow(items: #"["d-1", "d-2", "d-3"]"#, tolerate: 1), hub: hub)
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(hub.count("readBasicInformation") == 3)
        let failed = try #require(result.output?["elements"]?.arrayValue?[1])
        #expect(failed["status"] == "failed")
        #expect(failed["item"] == "d-2")
        #expect(failed["error"]?["code"] == "notFound")
        #expect(failed["error"]?["cause"] == "deviceNotFound")
        #expect(failed["error"]?["state"] == "each/read")
        #expect(failed["output"] == nil)
        #expect(result.output?["failed"] == .int(1))
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.contains("element 1 (d-2) of map state each failed: no such device") == true, "\(result.warnings)")
    }

    @Test("an element whose inputs do not fit fails at the map state, one at a time or several at once", arguments: ["", #""concurrency": 2,"#])
    func anElementWhoseInputsDoNotFitFailsAtTheMapState(extra: String) async throws {
        let result = try await Self.run(Self.workflow(items: #"["d-1", 5]"#, tolerate: 1, extra: extra), hub: ScriptedHub())
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        let failed = try #require(result.output?["elements"]?.arrayValue?[1])
        #expect(failed["error"]?["cause"] == "invalidArgumentValue")
        #expect(failed["error"]?["state"] == "each")
    }

    @Test func stopAtFirstFailureStartsNoFurtherElementAndIsRoutable() async throws {
        let hub = ScriptedHub()
        hub.script("readBasicInformation", [.succeed, .fail(FlowError(.deviceNotFound, "no such device"))])
        let result = try await Self.run(Self.workflow(items: #"["d-1", "d-2", "d-3"]"#), hub: hub)
        #expect(result.outcome == .failed)
        #expect(hub.count("readBasicInformation") == 2, "the third element never starts")
        #expect(result.error?.code == .aborted)
        #expect(result.error?.cause == .mapElementsFailed)
        #expect(result.error?.state == "each")
        #expect(result.error?.message.contains("element 1 (d-2) of map state each failed: no such device") == true)
        #expect(result.visitedStates.last == "elementsFailed")
    }

    @Test func anEmptyListSucceedsWithEmptyResultsAndNoCall() async throws {
        let hub = ScriptedHub()
        let result = try await Self.run(Self.workflow(items: "[]"), hub: hub)
        #expect(result.outcome == .succeeded)
        #expect(result.output == ["elements": [], "succeeded": 0, "failed": 0])
        #expect(hub.calls.isEmpty)
    }

    @Test func itemsThatAreNotAListFailWithARoutableLocatedError() async throws {
        let text = Self.workflow(items: #""${input.devices}""#).replacingOccurrences(
            of: #""start": "each""#, with: #""inputs": {"devices": {"type": "any"}}, "start": "each""#)
        let result = try await Self.run(text, hub: ScriptedHub(), inputs: ["devices": "d-1"])
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .mapItemsNotList)
        #expect(result.error?.code == .invalidArgument)
        #expect(result.error?.state == "each")
        #expect(result.error?.message.contains("must be a list, found string") == true, "\(String(describing: result.error))")
        #expect(result.visitedStates.last == "notAList")
    }

    @Test func moreItemsThanMaxItemsFailBeforeAnyElementRuns() async throws {
        // Written out, the list is refused as the workflow loads; given at run time, the run fails before any element.
        #expect(diagnose(Self.workflow(items: #"["a", "b", "c"]"#, maxItems: 2)).map(\.code) == ["numberOutOfRange"])
        #expect(diagnose(Self.workflow(items: #""not a list""#)).map(\.code) == ["invalidValue"])
        #expect(diagnose(Self.workflow(items: #"{"a": 1}"#)).map(\.code) == ["invalidValue"])
        let hub = ScriptedHub()
        let text = Self.workflow(items: #""${input.devices}""#, maxItems: 2).replacingOccurrences(
            of: #""start": "each""#, with: #""inputs": {"devices": {"type": "array"}}, "start": "each""#)
        let result = try await Self.run(text, hub: hub, inputs: ["devices": ["a", "b", "c"]])
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .mapTooManyItems)
        #expect(result.error?.code == .outOfRange)
        #expect(result.error?.message.contains("was given 3 items, more than its maxItems (2)") == true)
        #expect(result.visitedStates.last == "tooMany")
        #expect(hub.calls.isEmpty)
    }

    @Test func aCancelDuringAnElementEndsTheMapCancelledAndStartsNoOtherElement() async throws {
        let hub = ScriptedHub()
        hub.script("readBasicInformation", [.succeed, .hang])
        let text = Self.workflow(items: #"["d-1", "d-2", "d-3"]"#)
        let handle = try WorkflowEngine().start(try loadWorkflow(text), on: hub, options: RunOptions(structureID: "s", clock: ManualClock()))
        var readsStarted = 0
        for await event in handle.events {
            if case .hubCallStarted = event.kind {
                readsStarted += 1
                if readsStarted == 2 { handle.cancel() }
            }
        }
        let result = await handle.result
        #expect(result.outcome == .cancelled)
        #expect(result.error?.state == "each/read")
        #expect(hub.count("readBasicInformation") == 2)
    }

    @Test func generatedIdempotencyKeysDifferPerElement() throws {
        let place = try loadWorkflow(Self.workflow(items: #"["d-1", "d-2"]"#)).model.topPlace(catalog: .standard)
        var machine = RunMachine(
            place: place, inputs: [:],
            configuration: .init(runID: "run-1", structureID: "s", reportsEvents: false, random: SeededRandomSource(seed: 1)))
        var keys: [String] = []
        var actions = try machine.start()
        while let work = actions.work {
            switch work {
            case .proceed: actions = try machine.proceed()
            case .call:
                guard let state = machine.parents.last?.step.state else {
                    Issue.record("a call outside the map")
                    return
                }
                #expect(state.name == "each")
                keys.append(machine.generatedKey(for: machine.top.planned))
                actions = try machine.callEnded(.finished(["vendorName": "V", "productName": "P", "softwareVersion": 1]))
            case .finish: return #expect(keys == ["run-1/each/read[0]", "run-1/each/read[1]"])
            case .report, .checkpoint, .checkStatus, .delay, .waitForEvent, .askQuestion, .interruptWork, .startElement, .cancelElement,
                .awaitElements, .settleLateSessions:
                Issue.record("unexpected work \(work)")
                return
            }
        }
        Issue.record("the run did not finish")
    }

    /// Each iteration of a repeat state is new work: its level's tag names the iteration from the second on, so a map
    /// element inside it gets a name and call keys of its own; the key the engine generates for an operation stays
    /// the same in every iteration, by which a hub recognises work an earlier iteration did.
    @Test func aRepeatIterationIsTaggedButKeepsItsGeneratedKey() throws {
        let text = #"""
            {"workflow": "w", "version": 1, "start": "poll", "states": {
              "poll": {"type": "repeat", "path": "read-device.json", "inputs": {"deviceID": "d-1"},
                       "until": {"equals": ["${vars.poll.vendorName}", "never"]}, "maxIterations": 3, "delaySeconds": 1,
                       "result": "poll", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#
        let place = try loadWorkflow(text).model.topPlace(catalog: .standard)
        var machine = RunMachine(
            place: place, inputs: [:],
            configuration: .init(runID: "run-1", structureID: "s", reportsEvents: false, random: SeededRandomSource(seed: 1)))
        var tags: [String] = []
        var keys: [String] = []
        var actions = try machine.start()
        while let work = actions.work {
            switch work {
            case .proceed: actions = try machine.proceed()
            case .delay: actions = try machine.delayEnded()
            case .call:
                tags.append(machine.top.elementTag)
                keys.append(machine.generatedKey(for: machine.top.planned))
                actions = try machine.callEnded(.finished(["vendorName": "V", "productName": "P", "softwareVersion": 1]))
            case .finish:
                #expect(tags == ["", "#2", "#3"])
                return #expect(keys == Array(repeating: "run-1/poll/read", count: 3))
            case .report, .checkpoint, .checkStatus, .waitForEvent, .askQuestion, .interruptWork, .startElement, .cancelElement,
                .awaitElements, .settleLateSessions:
                Issue.record("unexpected work \(work)")
                return
            }
        }
        Issue.record("the run did not finish")
    }
}

/// Loading a map state: what it requires and refuses, each as a located finding.
@Suite struct MapStateLoadingTests {
    @Test func maxItemsIsRequiredAndTheCountsAreRangeChecked() {
        let missing = diagnose(MapStateTests.workflow(items: "[]").replacingOccurrences(of: #""maxItems": 4,"#, with: ""))
        #expect(missing.contains { $0.code == "missingKey" && $0.pointer == "/states/each" && $0.message.contains("maxItems") }, "\(missing)")
        let tooConcurrent = diagnose(MapStateTests.workflow(items: "[]", extra: #""concurrency": 5,"#))
        #expect(tooConcurrent.contains { $0.code == "numberOutOfRange" && $0.pointer == "/states/each/concurrency" }, "\(tooConcurrent)")
        let tolerant = diagnose(MapStateTests.workflow(items: "[]", tolerate: 5))
        #expect(tolerant.contains { $0.code == "numberOutOfRange" && $0.pointer == "/states/each/tolerateFailures" }, "\(tolerant)")
        let huge = diagnose(MapStateTests.workflow(items: "[]", maxItems: 1_000_000))
        #expect(huge.contains { $0.code == "numberOutOfRange" && $0.pointer == "/states/each/maxItems" }, "\(huge)")
        #expect(diagnose(MapStateTests.workflow(items: "[]", extra: #""concurrency": 1,"#)).isEmpty)
        // read-device only reads: its elements may run four at once.
        #expect(diagnose(MapStateTests.workflow(items: "[]", extra: #""concurrency": 4,"#)).isEmpty)
    }

    @Test("a map's element has the shape of the list's elements: a misspelt member of it is found before a run")
    func theElementIsTyped() {
        let text = #"""
            {"workflow": "w", "version": 1, "start": "fetch", "states": {
              "fetch": {"type": "action", "operation": "fetchRooms", "result": "fetched", "next": "each"},
              "each": {"type": "map", "items": "${vars.fetched.rooms}", "as": "room", "maxItems": 4,
                       "path": "read-device.json", "inputs": {"deviceID": "${vars.room.id}"}, "result": "reads", "next": "done"},
              "done": {"type": "succeed"}
            }}
            """#
        #expect(diagnose(text).filter { $0.severity == .error }.isEmpty, "\(diagnose(text))")
        let typo = diagnose(text.replacingOccurrences(of: "${vars.room.id}", with: "${vars.room.ID}"))
        #expect(
            typo.contains { $0.code == "unknownField" && $0.pointer == "/states/each/inputs/deviceID" && $0.message.contains("did you mean \"id\"?") },
            "\(typo)")
    }

    @Test func aMapTakesNoRetryOrGuardsItsBodyHasThem() {
        let found = diagnose(MapStateTests.workflow(items: "[]", extra: #""retry": [{"errors": ["*"]}], "guards": ["permission"],"#))
        #expect(found.contains { $0.code == "unknownKey" && $0.pointer == "/states/each/retry" }, "\(found)")
        #expect(found.contains { $0.code == "unknownKey" && $0.pointer == "/states/each/guards" }, "\(found)")
    }

    @Test func theElementVariableIsBoundInTheBodyInputsOnly() {
        let text = MapStateTests.workflow(items: "[]").replacingOccurrences(
            of: #""done": {"type": "succeed", "output": "${vars.reads}"}"#,
            with: #""done": {"type": "succeed", "output": "${vars.deviceID}"}"#)
        let found = diagnose(text)
        #expect(found.contains { $0.code == "undefinedVariable" && $0.pointer == "/states/done/output" }, "\(found)")
        #expect(!found.contains { $0.pointer.hasPrefix("/states/each/inputs") }, "\(found)")
    }

    @Test func theResultHasADeclaredShape() {
        let text = MapStateTests.workflow(items: "[]").replacingOccurrences(
            of: #""output": "${vars.reads}""#, with: #""output": "${vars.reads.elements[0].outptu}""#)
        #expect(diagnose(text).contains { $0.code == "unknownField" && $0.message.contains("did you mean") || $0.code == "unknownField" })
        let fine = MapStateTests.workflow(items: "[]").replacingOccurrences(
            of: #""output": "${vars.reads}""#, with: #""output": {"first": "${vars.reads.elements[0].output}", "n": "${vars.reads.failed}"}"#)
        #expect(!diagnose(fine).contains { $0.code == "unknownField" }, "\(diagnose(fine))")
    }

    @Test func anUnknownStateTypeListsMap() {
        let found = diagnose(#"{"workflow": "w", "version": 1, "start": "a", "states": {"a": {"type": "mapp"}}}"#)
        #expect(found.contains { $0.code == "unknownStateType" && $0.message.contains("did you mean \"map\"") }, "\(found)")
    }
}
