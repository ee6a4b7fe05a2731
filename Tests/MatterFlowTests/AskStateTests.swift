import Foundation
import MatterFlow
import MatterFlowJSON
import Synchronization
import TestGates
import Testing

/// Ask states: the question published with its choices resolved, answers checked at the caller (the run keeps
/// waiting after a wrong one), answers given in advance, timeout, cancel, secrets, and what the loader refuses.
@Suite struct AskStateTests {
    static let workflow = #"""
        {"workflow": "w", "version": 1, "start": "fetch", "onCancel": "stopped", "states": {
          "fetch": {"type": "action", "operation": "fetchRooms", "result": "fetched", "next": "room"},
          "room": {"type": "ask", "prompt": "Room for ${run.workflow}?",
                   "answer": {"choice": {"from": "${vars.fetched.rooms}", "label": "name", "value": "name"}},
                   "result": "room", "timeoutSeconds": 60, "next": "sure", "onTimeout": "late"},
          "sure": {"type": "ask", "question": "confirm", "prompt": "Sure?", "answer": {"yesNo": {}},
                   "result": "sure", "timeoutSeconds": 60, "next": "done", "onTimeout": "late"},
          "done": {"type": "succeed", "output": {"room": "${vars.room}", "sure": "${vars.sure}"}},
          "late": {"type": "succeed", "output": "late"},
          "stopped": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "stopped"}
        }}
        """#

    /// Its fetchRooms answers Kitchen and Office.
    static func hub() -> ScriptedHub { ScriptedHub() }

    func start(_ text: String = Self.workflow, hub: ScriptedHub = Self.hub(), clock: any WorkflowClock = ManualClock(),
               answers: [String: JSONValue] = [:]) throws -> RunHandle {
        var options = RunOptions(structureID: "s", clock: clock)
        options.answers = answers
        return try WorkflowEngine().start(try loadWorkflow(text), on: hub, options: options)
    }

    @Test func theQuestionCarriesItsResolvedChoicesAndAWrongAnswerIsTheCallersErrorNotTheRuns() async throws {
        let handle = try start()
        var asked: [Question] = []
        for await event in handle.events {
            guard case .questionAsked(_, let question) = event.kind else { continue }
            asked.append(question)
            if question.name == "room" {
                #expect(question.prompt == "Room for w?")
                guard case .choice(let choices) = question.schema else {
                    Issue.record("a choice question has choices")
                    continue
                }
                #expect(choices.map(\.label) == ["Kitchen", "Office"])
                #expect(throws: AnswerError.self) { try handle.answer(.choice("Garage"), to: "room") }
                do {
                    try handle.answer(.choice("Garage"), to: "room")
                } catch {
                    #expect(error.code == .invalidAnswer)
                    #expect(error.message.contains("not one of the choices"))
                }
                do {
                    try handle.answer(.yesNo(true), to: "confirm")
                    Issue.record("an answer to a question not asked yet is refused")
                } catch {
                    #expect(error.code == .noPendingQuestion)
                }
                #expect(handle.pendingQuestion?.name == "room", "the run still waits after wrong answers")
                try handle.answer(.choice("Office"), to: "room")
            } else {
                // A string that does not fit as it is reads as typed text.
                try handle.answer(.string("yes"), to: "sure")
            }
        }
        let result = await handle.result
        #expect(result.outcome == .succeeded)
        #expect(result.output == ["room": "Office", "sure": true])
        #expect(asked.map(\.name) == ["room", "confirm"])
    }

    @Test func answersGivenInAdvanceAreCheckedWhenAskedAndARejectedOneLeavesTheQuestionWaiting() async throws {
        let handle = try start(answers: ["room": "Garage", "confirm": "no"])
        var rejected: [String] = []
        for await event in handle.events {
            if case .answerRejected(_, let question, let reason) = event.kind {
                rejected.append(question)
                #expect(reason.contains("Garage"))
                // The numbered form a person would type.
                try handle.answer(.string("1"), to: "room")
            }
        }
        #expect(rejected == ["room"])
        #expect(await handle.result.output == ["room": "Kitchen", "sure": false])
    }

    @Test func anAnswerGivenBeforeItsQuestionIsKeptUntilAskedAndOneForTheWaitingQuestionIsTakenAtOnce() async throws {
        let handle = try start()
        var rejected: [String] = []
        var deliveries: [AnswerDelivery] = []
        for await event in handle.events {
            switch event.kind {
            case .questionAsked(_, let question) where question.name == "room":
                // The run registers its question just after reporting it.
                #expect(await Self.eventually { handle.pendingQuestion?.name == "room" })
                // Before the room is answered, the confirmation is kept for its question, unchecked: a misfit is
                // reported when the question is asked.
                deliveries.append(try handle.give("maybe", to: "confirm"))
                // The waiting question checks at once, and keeps waiting after a misfit.
                do {
                    try handle.give("Garage", to: "room")
                    Issue.record("an answer that does not fit the waiting question is refused")
                } catch {
                    #expect(error.code == .invalidAnswer)
                }
                #expect(handle.pendingQuestion?.name == "room")
                deliveries.append(try handle.give("Office", to: "room"))
            case .answerRejected(_, let question, let reason):
                rejected.append(question)
                #expect(reason.contains("yes or no"), "\(reason)")
                deliveries.append(try handle.give("yes", to: "sure"))
            default:
                break
            }
        }
        #expect(deliveries == [.kept, .answered, .answered])
        #expect(rejected == ["confirm"])
        #expect(await handle.result.output == ["room": "Office", "sure": true])
    }

    // Bounded: a run that stayed parked would leave its events open for ever.
    @Test(.timeLimit(.minutes(1))) func aRunAskedToPauseWhileItWaitsForAnAnswerIsParkedThereAndTakesTheAnswerOnlyWhenReleased() async throws {
        let released = Mutex(false)
        // Whether the run had been released, as each answered event left the run (its observer runs on the run's
        // thread, as the run reports).
        let answeredReleased = Mutex<[Bool]>([])
        var options = RunOptions(structureID: "s", clock: ManualClock())
        let pause = RunPause()
        options.pause = pause
        options.observer = { event in
            if case .answered = event.kind { answeredReleased.withLock { $0.append(released.withLock { $0 }) } }
        }
        let handle = try WorkflowEngine().start(try loadWorkflow(Self.workflow), on: Self.hub(), options: options)
        for await event in handle.events {
            switch event.kind {
            case .questionAsked(_, let question) where question.name == "room":
                #expect(await Self.eventually { handle.pendingQuestion?.name == "room" })
                #expect(!pause.isParked)
                pause.request()
                // No call can come before the wait ends: parked at once, where it waits.
                #expect(pause.isParked)
                // The answer ends the wait, but the run stays parked and does not take it until released.
                try handle.answer(.choice("Office"), to: "room")
                #expect(pause.isParked)
                released.withLock { $0 = true }
                pause.release()
            case .questionAsked:
                #expect(await Self.eventually { handle.pendingQuestion?.name == "confirm" })
                try handle.answer(.yesNo(true), to: "confirm")
            default:
                break
            }
        }
        #expect(answeredReleased.withLock { $0 } == [true, true])
        #expect(await handle.result.output == ["room": "Office", "sure": true])
        #expect(!pause.isParked)
        #expect(throws: AnswerError.self) { try handle.give("Kitchen", to: "room") }
    }

    // Bounded: a run that stayed parked would leave its events open for ever.
    @Test(.timeLimit(.minutes(1))) func aRunWaitingForAnAnswerIsNotParkedWhileACallItAbandonedStillRuns() async throws {
        // fetchRooms times out (the hub goes on with it) and the run asks its question meanwhile.
        let workflow = try loadWorkflow(#"""
            {"workflow": "w", "version": 1, "start": "fetch", "states": {
              "fetch": {"type": "action", "operation": "fetchRooms", "timeoutSeconds": 5, "next": "name",
                        "onError": [{"errors": ["*"], "next": "name"}]},
              "name": {"type": "ask", "prompt": "Name?", "answer": {"text": {}}, "result": "name",
                       "timeoutSeconds": 60, "next": "done", "onTimeout": "late"},
              "done": {"type": "succeed", "output": "${vars.name}"},
              "late": {"type": "succeed", "output": "late"}
            }}
            """#)
        let hub = Self.hub()
        let gate = ScriptedHub.Gate()
        hub.script("fetchRooms", [.afterGate(gate)])
        let clock = ManualClock()
        var options = RunOptions(structureID: "s", clock: clock)
        let pause = RunPause()
        options.pause = pause
        let handle = try WorkflowEngine().start(workflow, on: hub, options: options)
        for await event in handle.events {
            switch event.kind {
            case .hubCallStarted(_, "fetchRooms", _, _):
                await clock.passTimeoutAndGrace()
            case .questionAsked:
                #expect(await Self.eventually { handle.pendingQuestion?.name == "name" })
                pause.request()
                // Handed to another process now, the run could be resumed there while the hub still runs its call.
                #expect(!pause.isParked, "parked while the abandoned fetchRooms still ran")
                gate.open()
                await pause.parked()
                #expect(pause.isParked)
                pause.release()
                try handle.answer(.text("Lamp"), to: "name")
            default:
                break
            }
        }
        #expect(await handle.result.output == "Lamp")
        #expect(!pause.isParked)
    }

    // Bounded: a run that stayed parked would leave its events open for ever.
    @Test(.timeLimit(.minutes(1))) func aRunParkedWhileWaitingIsNoLongerParkedOnceReleasedAndTakesItsAnswer() async throws {
        var options = RunOptions(structureID: "s", clock: ManualClock())
        let pause = RunPause()
        options.pause = pause
        let handle = try WorkflowEngine().start(try loadWorkflow(Self.workflow), on: Self.hub(), options: options)
        for await event in handle.events {
            guard case .questionAsked(_, let question) = event.kind else { continue }
            #expect(await Self.eventually { handle.pendingQuestion?.name == question.name })
            if question.name == "room" {
                pause.request()
                #expect(pause.isParked)
                pause.release()
                // Released while it still waits: it is not held any more, and goes on when answered.
                #expect(!pause.isParked)
                try handle.answer(.choice("Kitchen"), to: "room")
            } else {
                try handle.answer(.yesNo(false), to: "confirm")
            }
        }
        #expect(await handle.result.output == ["room": "Kitchen", "sure": false])
    }

    /// Lets the run's task go on until `condition` holds (a run registers its question just after reporting it);
    /// false when it never did within many turns.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<100_000 {
            if condition() { return true }
            await Task.yield()
        }
        return condition()
    }

    @Test func noAnswerInTimeTakesOnTimeoutOnTheRunsClock() async throws {
        let clock = ManualClock()
        let handle = try start(clock: clock)
        for await event in handle.events {
            if case .questionAsked = event.kind { clock.advance(by: .seconds(60)) }
        }
        #expect(await handle.result.output == "late")
    }

    @Test func aCancelWhileAskingTakesTheCancelPath() async throws {
        let handle = try start()
        for await event in handle.events {
            if case .questionAsked = event.kind { handle.cancel() }
        }
        let result = await handle.result
        #expect(result.outcome == .cancelled)
        #expect(result.visitedStates.suffix(2) == ["room", "stopped"])
        do {
            try handle.answer(.choice("Kitchen"), to: "room")
            Issue.record("an ended run has no question to answer")
        } catch {
            #expect(error.code == .noPendingQuestion)
        }
    }

    @Test func aSecretAnswerIsRedactedInEventsAndTheResult() async throws {
        let text = #"""
            {"workflow": "w", "version": 1, "start": "code", "states": {
              "code": {"type": "ask", "prompt": "Code?", "answer": {"text": {"minLength": 4, "maxLength": 8, "pattern": "[0-9]+"}},
                       "secret": true, "result": "code", "timeoutSeconds": 60, "next": "check", "onTimeout": "late"},
              "check": {"type": "assign", "warning": "got ${vars.code}", "next": "done"},
              "done": {"type": "succeed"},
              "late": {"type": "succeed"}
            }}
            """#
        let handle = try start(text)
        var lines: [String] = []
        for await event in handle.events {
            lines.append(JSONWriter.compact(event.jsonValue))
            guard case .questionAsked = event.kind else { continue }
            do {
                try handle.answer(.text("12ab"), to: "code")
                Issue.record("text off the pattern is refused")
            } catch {
                #expect(!error.message.contains("12ab"), "a refusal never repeats a secret answer")
                #expect(
                    error.message.hasSuffix("it must be text of 4 to 8 characters matching the pattern [0-9]+"),
                    "it names the rule the answer broke (the pattern is the workflow's, not a secret): \(error.message)")
            }
            try handle.answer(.text("482913"), to: "code")
        }
        let result = await handle.result
        #expect(result.outcome == .succeeded)
        #expect(lines.contains { $0.contains(#""event":"answered""#) && $0.contains(RunOptions.redacted) })
        #expect(!lines.joined().contains("482913"))
        #expect(result.warnings == ["got \(RunOptions.redacted)"])
    }

    @Test func theLoaderRequiresATimeoutAndOneWellFormedAnswerSchema() {
        func variant(_ original: String, _ replacement: String) -> [Diagnostic] {
            diagnose(Self.workflow.replacingOccurrences(of: original, with: replacement))
        }
        #expect(diagnose(Self.workflow).filter { $0.severity == .error }.isEmpty)
        let noTimeout = variant(#""result": "room", "timeoutSeconds": 60,"#, #""result": "room","#)
        #expect(noTimeout.contains { $0.code == "missingKey" && $0.pointer == "/states/room" && $0.message.contains("timeoutSeconds") })
        let two = variant(#"{"yesNo": {}}"#, #"{"yesNo": {}, "text": {}}"#)
        #expect(two.contains { $0.code == "invalidValue" && $0.pointer == "/states/sure/answer" })
        let pattern = variant(#"{"yesNo": {}}"#, #"{"text": {"pattern": "[a-"}}"#)
        #expect(pattern.contains { $0.code == "invalidValue" && $0.pointer == "/states/sure/answer/text/pattern" })
        let empty = variant(#""from": "${vars.fetched.rooms}""#, #""from": []"#)
        #expect(empty.contains { $0.pointer == "/states/room/answer/choice/from" })
        let unbound = variant(#""${vars.fetched.rooms}""#, #""${vars.nothing}""#)
        #expect(unbound.contains { $0.code == "undefinedVariable" })
    }

    @Test("what a choice binds has the shape of the list's elements, or of the member value names: a misread of it is found before a run asks")
    func aChoiceBindsTheElementsShape() {
        func variant(_ original: String, _ replacement: String) -> [Diagnostic] {
            diagnose(Self.workflow.replacingOccurrences(of: original, with: replacement))
        }
        // value names the room's name, a string: it has no members.
        let member = variant(#""room": "${vars.room}""#, #""room": "${vars.room.name}""#)
        #expect(member.contains { $0.code == "unknownField" && $0.pointer == "/states/done/output/room" }, "\(member)")
        // Without value the whole room is bound: its members are known, and a misspelt one is named.
        let whole = variant(#", "value": "name"}"#, "}").filter { $0.severity == .error }
        #expect(whole.isEmpty, "\(whole)")
        let typo = diagnose(
            Self.workflow.replacingOccurrences(of: #", "value": "name"}"#, with: "}")
                .replacingOccurrences(of: #""room": "${vars.room}""#, with: #""room": "${vars.room.nmae}""#))
        #expect(typo.contains { $0.code == "unknownField" && $0.message.contains("did you mean \"name\"?") }, "\(typo)")
        // A literal list's value members of one type bind that type.
        let literal = variant(#""${vars.fetched.rooms}""#, #"[{"name": "Hall", "n": 1}, {"name": "Den", "n": 2}]"#)
            .filter { $0.severity == .error }
        #expect(literal.isEmpty, "\(literal)")
        let literalMember = diagnose(
            Self.workflow.replacingOccurrences(of: #""${vars.fetched.rooms}""#, with: #"[{"name": "Hall"}, {"name": "Den"}]"#)
                .replacingOccurrences(of: #""room": "${vars.room}""#, with: #""room": "${vars.room.name}""#))
        #expect(literalMember.contains { $0.code == "unknownField" && $0.pointer == "/states/done/output/room" }, "\(literalMember)")
    }

    @Test("a choice's label or value that the list's elements cannot have is unknownField at that member, before a run asks")
    func aChoiceFieldTheElementsLackIsFound() {
        func variant(_ original: String, _ replacement: String) -> [Diagnostic] {
            diagnose(Self.workflow.replacingOccurrences(of: original, with: replacement))
        }
        let label = variant(#""label": "name""#, #""label": "nmae""#)
        #expect(label.map(\.code) == ["unknownField"], "\(label)")
        #expect(label.first?.pointer == "/states/room/answer/choice/label")
        #expect(label.first?.message.contains("did you mean \"name\"?") == true, "\(label)")
        let value = variant(#""value": "name""#, #""value": "ID""#)
        #expect(value.map(\.code) == ["unknownField"] && value.first?.pointer == "/states/room/answer/choice/value", "\(value)")
        // A list of strings has no fields to show.
        let strings = variant(#""${vars.fetched.rooms}""#, #""${vars.fetched.roomNames}""#)
        #expect(strings.contains { $0.code == "unknownField" && $0.pointer == "/states/room/answer/choice/label" }, "\(strings)")
        // A literal list: the first choice without the field is named.
        let literal = variant(#""${vars.fetched.rooms}""#, #"[{"name": "Hall"}, {"nme": "Den"}]"#)
        #expect(literal.contains { $0.code == "unknownField" && $0.message.contains("choice 1 has no \"name\" field") }, "\(literal)")
        #expect(variant(#""${vars.fetched.rooms}""#, #"[{"name": "Hall"}]"#).filter { $0.severity == .error } == [])
    }

    @Test func theResultIsABindingAndTheTimeBoundCountsTheQuestionsTimeout() throws {
        let workflow = try loadWorkflow(Self.workflow)
        #expect(workflow.questionNames == ["room", "confirm", "sure"])
        let budget = TimeBudget(workflow: workflow)
        // fetchRooms (10 s default timeout, plus its wind-down) and two questions of 60 s each.
        let done = try #require(budget.ends.first { $0.state == "done" })
        #expect(done.worstSeconds >= 120)
        #expect(done.worstSeconds < 160)
    }

    @Test("hasAsk finds a matching ask state, in a sub-workflow too, and is false when none matches")
    func hasAsk() throws {
        let workflow = try loadWorkflow(Self.workflow)
        #expect(workflow.hasAsk { _ in true })
        #expect(workflow.hasAsk { $0.question == "confirm" })
        #expect(!workflow.hasAsk(where: \.secret))
        #expect(!(try loadWorkflow(#"{"workflow": "w", "version": 1, "start": "done", "states": {"done": {"type": "succeed"}}}"#)).hasAsk { _ in true })

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mf-has-ask-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try #"{"workflow": "child", "version": 1, "start": "code", "states": {"code": {"type": "ask", "prompt": "Code?", "answer": {"text": {}}, "secret": true, "result": "code", "timeoutSeconds": 60, "next": "done", "onTimeout": "done"}, "done": {"type": "succeed"}}}"#
            .write(toFile: directory + "/child.json", atomically: true, encoding: .utf8)
        try #"{"workflow": "parent", "version": 1, "start": "run", "states": {"run": {"type": "workflow", "path": "child.json", "next": "done"}, "done": {"type": "succeed"}}}"#
            .write(toFile: directory + "/parent.json", atomically: true, encoding: .utf8)
        let parent = try WorkflowEngine().load(path: directory + "/parent.json")
        #expect(parent.hasAsk(where: \.secret))
        #expect(!parent.hasAsk { $0.question == "other" })
    }

    @Test func theRunMachineTableHasTheAnswerPhase() throws {
        let table = try #require(MachineGraph.machine(named: "run")).table
        #expect(table.states.contains("waitingAnswer"))
        #expect(table.states.contains("waitingAnswer (cancel path)"))
        let answered = table.transitions.filter { $0.from == "waitingAnswer" && $0.event == "answerEnded" }
        #expect(answered.count == 3, "answered, timeout and cancelled")
    }
}
