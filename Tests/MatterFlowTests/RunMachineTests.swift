import MatterFlowJSON
import Testing

@testable import MatterFlow

/// The run machine driven by hand, without hub, clock or task: each input's exact actions, the typed refusal of an
/// impossible input, cancel as an input, resuming at a journaled position, and the derived transition table.
@Suite struct RunMachineTests {
    /// The table's specimen workflow: `check` (guarded, retried fetchRooms) → `wait` → `confirm` (ask) → `pause`
    /// (delay) → `each` (a map, two at once) → `done`; cancel path `release` → `settle` → `acknowledge` (ask) →
    /// `linger` (delay) → `eachAgain` (a map) → `cancelled`.
    let place: LevelPlace

    init() throws {
        place = try #require(RunMachine.specimenWorkflow).model.topPlace(catalog: .standard)
    }

    func machine(checkpoints: Bool = false) -> RunMachine {
        RunMachine(
            place: place, inputs: [:],
            configuration: .init(
                runID: "run-1", structureID: "s", recordsCheckpoints: checkpoints, random: SeededRandomSource(seed: 3)))
    }

    static let passing = HubStatus(online: true, reachable: true, permissionGranted: true, activeSession: false)
    static let unreachable = FlowError(.hubUnreachable, "not reachable")
    static let keyUsed = HubEvent(name: "epskcModeDeactivated", structureID: "s", value: "keyUsed", fields: ["n": 1], time: .zero)

    /// One line per action, for exact comparisons.
    static func lines(_ actions: RunActions) -> [String] {
        actions.map { action in
            switch action {
            case .report(_, let kind):
                switch kind {
                case .runStarted: "runStarted"
                case .stateEntered(let state, _): "stateEntered \(state)"
                case .guardChecked(_, let guardName, let error): "guardChecked \(guardName.name) \(error == nil ? "passed" : "failed")"
                case .hubCallStarted(_, let operation, let attempt, _): "hubCallStarted \(operation) #\(attempt)"
                case .hubCallFinished(_, let operation, _, _, let error): "hubCallFinished \(operation) \(error?.cause.rawValue ?? "ok")"
                case .retryScheduled(_, let attempt, let delay, _): "retryScheduled #\(attempt) \(delay)s"
                case .transition(let from, let to, _): "transition \(from) → \(to)"
                case .warning(_, let message): "warning \(message)"
                case .waitStarted(let state, let event, _): "waitStarted \(state) \(event)"
                case .eventReceived(_, let event, let value, _): "eventReceived \(event) \(value)"
                case .delayStarted(let state, let seconds): "delayStarted \(state) \(seconds)s"
                case .questionAsked(let state, let question): "questionAsked \(state) \(question.name)"
                case .answered(_, let question, let value): "answered \(question) \(JSONWriter.compact(value))"
                case .answerRejected(_, let question, _): "answerRejected \(question)"
                case .shown(let state, let value, _): "shown \(state) \(JSONWriter.compact(value))"
                case .cancelRequested(let state, _): "cancelRequested \(state)"
                case .runFinished(let outcome, _, _): "runFinished \(outcome.rawValue)"
                }
            case .checkpoint(let checkpoint): "checkpoint \(checkpoint.state)"
            case .proceed: "proceed"
            case .checkStatus(let check): "checkStatus \(check.state)\(check.cancellable ? "" : " shielded")"
            case .call(let call): "call \(call.operation.name) key \(call.context.idempotencyKey)\(call.cancellable ? "" : " shielded")"
            case .delay(let duration, let cancellable): "delay \(duration)\(cancellable ? "" : " shielded")"
            case .waitForEvent(let wait): "waitForEvent \(wait.event) \(wait.timeout)\(wait.cancellable ? "" : " shielded")"
            case .askQuestion(let wait): "askQuestion \(wait.question.name) \(wait.timeout)\(wait.cancellable ? "" : " shielded")"
            case .interruptWork: "interruptWork"
            case .startElement(let launch): "startElement \(launch.element)"
            case .cancelElement(let index): "cancelElement \(index)"
            case .awaitElements: "awaitElements"
            case .settleLateSessions(let settlement):
                "settleLateSessions holding \(settlement.holding ?? "none") own \(settlement.own ?? "none")"
                    + (settlement.release == nil ? " no release" : "")
            case .finish(let result): "finish \(result.outcome.rawValue) \(result.visitedStates.joined(separator: ","))"
            }
        }
    }

    @Test func aScriptOfInputsGivesExactActions() throws {
        var run = machine()
        #expect(Self.lines(try run.start()) == ["runStarted", "stateEntered check", "proceed"])
        #expect(Self.lines(try run.proceed()) == ["checkStatus check"])
        #expect(Self.lines(try run.statusChecked(.finished(Self.passing))) == [
            "guardChecked hubReachable passed", "hubCallStarted fetchRooms #1", "call fetchRooms key run-1/1",
        ])
        #expect(Self.lines(try run.callEnded(.failed(Self.unreachable))) == [
            "hubCallFinished fetchRooms hubUnreachable", "retryScheduled #2 1.0s", "delay 1.0 seconds",
        ])
        // The retry checks its guard again, then calls under the next key.
        #expect(Self.lines(try run.delayEnded(elapsed: true)) == ["checkStatus check"])
        #expect(Self.lines(try run.statusChecked(.finished(Self.passing))) == [
            "guardChecked hubReachable passed", "hubCallStarted fetchRooms #2", "call fetchRooms key run-1/2",
        ])
        #expect(Self.lines(try run.callEnded(.finished(["sessionID": "session-9"]))) == [
            "hubCallFinished fetchRooms ok", "transition check → wait", "stateEntered wait", "proceed",
        ])
        #expect(Self.lines(try run.proceed()) == ["waitStarted wait epskcModeDeactivated", "waitForEvent epskcModeDeactivated 60.0 seconds"])
        #expect(Self.lines(try run.waitEnded(.event(Self.keyUsed))) == [
            "eventReceived epskcModeDeactivated keyUsed", "transition wait → confirm", "stateEntered confirm", "proceed",
        ])
        #expect(Self.lines(try run.proceed()) == ["questionAsked confirm confirm", "askQuestion confirm 60.0 seconds"])
        #expect(Self.lines(try run.answerEnded(.answered("yes"))) == [
            "answered confirm \"yes\"", "transition confirm → pause", "stateEntered pause", "proceed",
        ])
        #expect(Self.lines(try run.proceed()) == ["delayStarted pause 5.0s", "delay 5.0 seconds"])
        #expect(Self.lines(try run.delayEnded(elapsed: true)) == ["transition pause → each", "stateEntered each", "proceed"])
        // The map starts both its elements at once, and ends once both have.
        #expect(Self.lines(try run.proceed()) == ["startElement each[0]", "startElement each[1]", "awaitElements"])
        let read = ["read", "read-done"].map { "each/" + $0 }
        #expect(Self.lines(try run.elementEnded(ElementEnd(index: 1, end: .succeeded(nil), visited: read, warnings: []))) == ["awaitElements"])
        #expect(Self.lines(try run.elementEnded(ElementEnd(index: 0, end: .succeeded(nil), visited: read, warnings: []))) == [
            "transition each → done", "stateEntered done", "proceed",
        ])
        #expect(
            Self.lines(try run.proceed()) == [
                "runFinished succeeded",
                "finish succeeded check,wait,confirm,pause,each,each/read,each/read-done,each/read,each/read-done,done",
            ])
        #expect(run.isFinished)
    }

    @Test func anImpossibleInputThrowsATypedErrorNamingPhaseAndInput() throws {
        var run = machine()
        #expect(throws: RunMachineError(code: .impossibleInput, phase: "notStarted", input: "proceed")) { try run.proceed() }
        _ = try run.start()
        _ = try run.proceed()
        let error = try #require(throws: RunMachineError.self) { try run.callEnded(.finished(.null)) }
        #expect(error.code == .impossibleInput)
        #expect(error.description.contains("callEnded while checkingGuard"))
        // Refused inputs change nothing: the guard's end is still awaited.
        #expect(run.phaseName == "checkingGuard")
        #expect(throws: RunMachineError.self) { try run.start() }
        #expect(throws: RunMachineError.self) { try run.waitEnded(.timedOut) }
        #expect(Self.lines(try run.statusChecked(.finished(Self.passing))).last == "call fetchRooms key run-1/1")
    }

    /// A prepare that timed out may still open a session on the hub: the run's end first hands over the settling of
    /// such sessions, naming the session the run holds itself (then none other can be active, and none is released).
    @Test func anUnansweredPrepareMakesTheRunSettleLateSessionsBeforeItEnds() throws {
        let workflow = try loadWorkflow(#"""
            {"workflow": "t", "version": 1, "start": "first", "onCancel": "stop", "states": {
              "first": {"type": "action", "operation": "prepareCommissioning", "timeoutSeconds": 5, "next": "done",
                        "onError": [{"errors": ["*"], "next": "second"}]},
              "second": {"type": "action", "operation": "prepareCommissioning", "next": "done",
                         "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "code": "unavailable", "message": "no session"},
              "stop": {"type": "action", "operation": "cancelCommissioning", "next": "cancelled",
                       "onError": [{"errors": ["*"], "next": "cancelled"}]},
              "cancelled": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "cancelled"}
            }}
            """#)
        func run(second: RaceOutcome<JSONValue>) throws -> ([String], RunMachine) {
            var run = RunMachine(
                place: workflow.model.topPlace(catalog: .standard), inputs: [:],
                configuration: .init(runID: "run-1", structureID: "s", reportsEvents: false, random: SeededRandomSource(seed: 3)))
            _ = try run.start()
            _ = try run.proceed()
            _ = try run.callEnded(.timedOut)
            _ = try run.proceed()
            _ = try run.callEnded(second)
            let ending = Self.lines(try run.proceed())
            #expect(run.phaseName == "ending")
            return (ending, run)
        }
        #expect(try run(second: .finished(["sessionID": "session-2"])).0 == ["settleLateSessions holding session-2 own session-2"])
        var (ending, run) = try run(second: .failed(Self.unreachable))
        #expect(ending == ["settleLateSessions holding none own none"])
        #expect(throws: RunMachineError.self) { try run.callEnded(.finished([:])) }
        #expect(run.cancelRequested().isEmpty, "a cancel while the run ends changes nothing")
        let late = LateSession(sessionID: "session-1", call: "prepareCommissioning in state first", release: .failed("hub offline"))
        let end = try run.lateSessionsSettled([late])
        #expect(Self.lines(end) == ["finish failed first,second,failed"])
        if case .finish(let result)? = end.work {
            #expect(result.warnings == [late.message])
            #expect(late.message.hasSuffix("releasing it before the run ended failed (hub offline), so the structure stays busy until the hub's session lease ends it (300 s by default) or someone cancels it"))
        }
    }

    @Test func aCancelIsAnInput() throws {
        // Between states: the entered state does nothing, the cancel path starts at once.
        var entered = machine()
        _ = try entered.start()
        #expect(Self.lines(entered.cancelRequested()) == [
            "cancelRequested check", "transition check → release", "stateEntered release", "proceed",
        ])
        #expect(entered.phaseName == "entered (cancel path)")
        #expect(Self.lines(try entered.proceed()) == ["checkStatus release shielded"])
        // A second cancel changes nothing; the cancel path is never interrupted.
        #expect(entered.cancelRequested().isEmpty)

        // During a call: the driver stops it, and a late result is kept for the cancel path.
        var calling = machine()
        _ = try calling.start()
        _ = try calling.proceed()
        _ = try calling.statusChecked(.finished(Self.passing))
        #expect(Self.lines(calling.cancelRequested()) == ["interruptWork"])
        #expect(calling.phaseName == "calling")
        #expect(Self.lines(try calling.callEnded(.cancelled(late: ["sessionID": "late"]))) == [
            "hubCallFinished fetchRooms ok", "cancelRequested check", "transition check → release", "stateEntered release", "proceed",
        ])
        #expect(calling.top.scope.vars["session"]?["sessionID"] == "late")

        // While waiting for an event: the cancel path starts at once.
        var waiting = machine()
        _ = try waiting.start()
        _ = try waiting.proceed()
        _ = try waiting.statusChecked(.finished(Self.passing))
        _ = try waiting.callEnded(.finished(["sessionID": "s-1"]))
        _ = try waiting.proceed()
        #expect(Self.lines(waiting.cancelRequested()).prefix(2) == ["cancelRequested wait", "transition wait → release"])
        #expect(throws: RunMachineError(code: .impossibleInput, phase: "entered (cancel path)", input: "waitEnded")) {
            try waiting.waitEnded(.event(Self.keyUsed))
        }
    }

    @Test func aLateResultsSecretFieldsAreRedactedFromTheCancelPathsCheckpoints() throws {
        // activateEpskc still succeeds at the hub while the run is cancelled: the cancel path gets its result (to
        // stop the mode), and its key must stay out of the checkpoints the journal keeps.
        let workflow = try WorkflowEngine().load(
            text: #"""
                {"workflow": "share", "version": 1, "start": "activate", "onCancel": "stop",
                 "states": {
                  "activate": {"type": "action", "operation": "activateEpskc", "arguments": {"deviceID": "br-1"},
                               "result": "activation", "next": "done"},
                  "done": {"type": "succeed"},
                  "stop": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "stopped"}
                 }}
                """#, baseDirectory: Repository.workflowsDirectory)
        var machine = RunMachine(
            place: workflow.model.topPlace(catalog: .standard), inputs: [:],
            configuration: .init(runID: "run-1", structureID: "s", recordsCheckpoints: true, random: SeededRandomSource(seed: 3)))
        _ = try machine.start()
        #expect(Self.lines(try machine.proceed()).last == "call activateEpskc key run-1/1")
        #expect(Self.lines(machine.cancelRequested()) == ["interruptWork"])
        let late: JSONValue = ["status": "success", "epskc": "052183946712", "durationSeconds": 120]
        let actions = try machine.callEnded(.cancelled(late: late))
        let checkpoints = actions.compactMap { action -> RunCheckpoint? in
            if case .checkpoint(let checkpoint) = action { checkpoint } else { nil }
        }
        #expect(checkpoints.map(\.state) == ["stop"])
        let kept = checkpoints.map { JSONWriter.compact($0.jsonValue) }.joined()
        #expect(kept.contains(#""durationSeconds":120"#), "the late result is bound for the cancel path")
        #expect(!kept.contains("052183946712"), "\(kept)")
        #expect(machine.top.scope.vars["activation"]?["epskc"] == "052183946712", "the cancel path itself can read it")
    }

    @Test func aRunResumesAtAJournaledPosition() throws {
        let waiting = RunCheckpoint(workflowPath: [place.model.name], state: "wait", inputs: [:], variables: ["session": ["sessionID": "s-7"]])
        var resumed = try RunMachine(
            place: place, resumingAt: ResumePoint(levels: [waiting], cancel: false),
            configuration: .init(runID: "run-1", structureID: "s", recordsCheckpoints: true, random: SeededRandomSource(seed: 3)))
        // No runStarted again; the state is entered anew, with its checkpoint.
        #expect(Self.lines(try resumed.start()) == ["stateEntered wait", "checkpoint wait", "proceed"])
        #expect(Self.lines(try resumed.proceed()).last == "waitForEvent epskcModeDeactivated 60.0 seconds")

        // A call whose outcome was journaled is not made again: its result is bound and the run moves on.
        let checking = RunCheckpoint(workflowPath: [place.model.name], state: "check", inputs: [:], variables: [:])
        var completed = try RunMachine(
            place: place, resumingAt: ResumePoint(levels: [checking], completedStep: ["sessionID": "s-8"], cancel: false),
            configuration: .init(runID: "run-1", structureID: "s", random: SeededRandomSource(seed: 3)))
        #expect(Self.lines(try completed.start()) == ["stateEntered check", "transition check → wait", "stateEntered wait", "proceed"])
        #expect(completed.top.scope.vars["session"]?["sessionID"] == "s-8")

        // Resumed to cancel: the state re-entered takes the cancel path before doing anything.
        var cancelling = try RunMachine(
            place: place, resumingAt: ResumePoint(levels: [waiting], cancel: true),
            configuration: .init(runID: "run-1", structureID: "s", random: SeededRandomSource(seed: 3)))
        _ = try cancelling.start()
        #expect(Self.lines(try cancelling.proceed()).prefix(2) == ["cancelRequested wait", "transition wait → release"])

        // A position the workflow cannot take is refused, not trapped on.
        let nowhere = RunCheckpoint(workflowPath: [place.model.name], state: "gone", inputs: [:], variables: [:])
        #expect(throws: FlowError.self) {
            try RunMachine(
                place: place, resumingAt: ResumePoint(levels: [nowhere], cancel: false),
                configuration: .init(runID: "run-1", structureID: "s", random: SeededRandomSource(seed: 3)))
        }
    }

    /// A run handed over after 50 s in its 60 s wait waits 10 s more there; but when a cancel arrives before that
    /// state does any work, the waits of its cancel path are not shortened by it: each waits its whole timeout.
    @Test func aResumedRunsWaitedTimeIsNotSpentOnItsCancelPath() throws {
        let waiting = RunCheckpoint(workflowPath: [place.model.name], state: "wait", inputs: [:], variables: [:])
        var point = ResumePoint(levels: [waiting], cancel: false)
        point.waited = .seconds(50)
        let configuration = RunMachine.Configuration(runID: "run-1", structureID: "s", random: SeededRandomSource(seed: 3))

        var waitingOn = try RunMachine(place: place, resumingAt: point, configuration: configuration)
        _ = try waitingOn.start()
        #expect(Self.lines(try waitingOn.proceed()).last == "waitForEvent epskcModeDeactivated 10.0 seconds")

        var cancelled = try RunMachine(place: place, resumingAt: point, configuration: configuration)
        #expect(Self.lines(cancelled.cancelRequested()).isEmpty, "noted before the run starts")
        _ = try cancelled.start()
        #expect(Self.lines(try cancelled.proceed()).contains("transition wait → release"))
        #expect(Self.lines(try cancelled.proceed()) == ["checkStatus release shielded"])
        _ = try cancelled.statusChecked(.finished(Self.passing))
        #expect(Self.lines(try cancelled.callEnded(.finished(["rooms": []]))).suffix(2) == ["stateEntered settle", "proceed"])
        #expect(Self.lines(try cancelled.proceed()).last == "waitForEvent epskcModeDeactivated 60.0 seconds shielded")
    }

    @Test func theTransitionTableListsEveryPhaseAndInput() {
        let table = RunMachine.transitionTable
        for phase in RunMachine.SpecimenPhase.allCases {
            #expect(RunMachine.specimen(phase) != nil, "the specimen reaches \(phase.name)")
            for input in RunMachine.Input.allCases {
                #expect(!table.transitions(from: phase.name, on: input.rawValue).isEmpty, "\(phase.name) × \(input.rawValue)")
            }
        }
        #expect(table.states.count == RunMachine.SpecimenPhase.allCases.count)
        #expect(table.events == RunMachine.Input.allCases.map(\.rawValue))
        // Every row names a phase the table lists, and no specimen failed to build.
        for row in table.transitions {
            switch row.outcome {
            case .moves(let to, _): #expect(table.states.contains(to), "\(row.from) × \(row.event) → \(to)")
            case .refused(let cause): #expect(cause.rawValue == "impossibleInput")
            }
        }
        #expect(table.transitions(from: "calling", on: "cancelRequested").first?.outcome == .moves(to: "calling", output: "interruptWork"))
        #expect(table.transitions(from: "waitingEvent", on: "cancelRequested").first?.outcome == .moves(to: "entered (cancel path)", output: "proceed"))
        #expect(table.transitions(from: "calling (cancel path)", on: "cancelRequested").first?.outcome == .moves(to: "calling (cancel path)", output: nil))
        #expect(table.transitions(from: "notStarted", on: "proceed").first?.outcome == .refused(ErrorCause(rawValue: "impossibleInput")))
        #expect(table.transitions(from: "retryDelay", on: "delayEnded").map(\.outcome) == [
            .moves(to: "checkingGuard", output: "checkStatus"), .moves(to: "entered (cancel path)", output: "proceed"),
        ])
    }
}

/// ``RunCancellation``: the supported way to cancel a run from its own observer, or from anywhere before a handle
/// exists.
@Suite struct RunCancellationTests {
    @Test func aCancelFromTheObserverOnEnteringAStateComesBeforeItsWork() async throws {
        let workflow = try loadWorkflow(#"""
            {"workflow": "t", "version": 1, "start": "rooms", "onCancel": "stop", "states": {
              "rooms": {"type": "action", "operation": "fetchRooms", "next": "again"},
              "again": {"type": "action", "operation": "fetchRooms", "next": "ok"},
              "ok": {"type": "succeed"},
              "stop": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "stopped"}
            }}
            """#)
        let hub = ScriptedHub()
        let cancellation = RunCancellation()
        var options = RunOptions(structureID: "s", clock: VirtualClock(), random: SeededRandomSource(seed: 1))
        options.cancellation = cancellation
        options.observer = { event in
            if case .stateEntered("again", _) = event.kind { cancellation.cancel() }
        }
        let result = try await WorkflowEngine().run(workflow, on: hub, options: options)
        #expect(result.outcome == .cancelled)
        #expect(result.visitedStates == ["rooms", "again", "stop"])
        // `again` was cancelled before it called the hub: one call, from `rooms`.
        #expect(hub.count("fetchRooms") == 1)
        #expect(result.error?.message.contains("cancelled in state again") == true)
        #expect(cancellation.isCancelled)
    }
}
