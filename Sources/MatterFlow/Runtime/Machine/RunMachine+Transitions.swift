import MatterFlowJSON

extension RunMachine {
    /// Every input in every phase, with what it does, produced by feeding the inputs to machines brought into each
    /// phase through inputs alone (so the table is the code's behaviour, not a copy of it).
    ///
    /// The machines run a specimen workflow with one state of each kind that waits (an action with a guard and a
    /// retrier, a wait state, an ask state, a delay state, a map state running its two elements at once), and a
    /// cancel path with the same kinds. A row's condition tells the variants of an
    /// input apart (a guard that passed or failed, a call that succeeded, failed or was cancelled); its output is
    /// the work the driver is handed next (`proceed`, `checkStatus`, `call`, `delay`, `waitForEvent`,
    /// `interruptWork`, `finish`), if any. A refused input names ``RunMachineError/Code/impossibleInput``.
    static let transitionTable: StateMachineDescription = {
        var rows: [StateMachineDescription.Transition] = []
        let phases = SpecimenPhase.allCases
        for phase in phases {
            for input in Input.allCases {
                for variant in variants(of: input) {
                    let outcome: StateMachineDescription.Outcome
                    if var machine = specimen(phase) {
                        do throws(RunMachineError) {
                            let actions = try variant.apply(&machine)
                            outcome = .moves(to: machine.phaseName, output: actions.last(where: \.isWork).map(workName) ?? actions.last.map(workName))
                        } catch {
                            outcome = .refused(ErrorCause(rawValue: error.code.rawValue))
                        }
                    } else {
                        outcome = .refused(.engineMisconfigured)
                    }
                    rows.append(.init(from: phase.name, event: input.rawValue, condition: variant.condition, outcome: outcome))
                }
            }
        }
        return StateMachineDescription(
            name: "run", states: phases.map(\.name), initialStates: [SpecimenPhase.notStarted.name],
            events: Input.allCases.map(\.rawValue), transitions: rows)
    }()

    /// The phases the table lists: each waiting phase on the main path and on a cancel path.
    enum SpecimenPhase: CaseIterable {
        case notStarted, entered, checkingGuard, calling, retryDelay, waitingEvent, waitingAnswer, delaying, mapping, ending, finished
        case enteredOnCancelPath, checkingGuardOnCancelPath, callingOnCancelPath, retryDelayOnCancelPath
        case waitingEventOnCancelPath, waitingAnswerOnCancelPath, delayingOnCancelPath, mappingOnCancelPath

        /// The name ``RunMachine/phaseName`` gives a machine in this phase.
        var name: String {
            switch self {
            case .notStarted: "notStarted"
            case .entered: "entered"
            case .checkingGuard: "checkingGuard"
            case .calling: "calling"
            case .retryDelay: "retryDelay"
            case .waitingEvent: "waitingEvent"
            case .waitingAnswer: "waitingAnswer"
            case .delaying: "delaying"
            case .mapping: "mapping"
            case .ending: "ending"
            case .finished: "finished"
            case .enteredOnCancelPath: "entered (cancel path)"
            case .checkingGuardOnCancelPath: "checkingGuard (cancel path)"
            case .callingOnCancelPath: "calling (cancel path)"
            case .retryDelayOnCancelPath: "retryDelay (cancel path)"
            case .waitingEventOnCancelPath: "waitingEvent (cancel path)"
            case .waitingAnswerOnCancelPath: "waitingAnswer (cancel path)"
            case .delayingOnCancelPath: "delaying (cancel path)"
            case .mappingOnCancelPath: "mapping (cancel path)"
            }
        }
    }

    /// One way of feeding an input, and the condition that selects it.
    private struct Variant {
        var condition: String?
        var apply: (inout RunMachine) throws(RunMachineError) -> RunActions
    }

    private static func workName(_ action: RunAction) -> String {
        switch action {
        case .report: "report"
        case .checkpoint: "checkpoint"
        case .proceed: "proceed"
        case .checkStatus: "checkStatus"
        case .call: "call"
        case .delay: "delay"
        case .waitForEvent: "waitForEvent"
        case .askQuestion: "askQuestion"
        case .interruptWork: "interruptWork"
        case .startElement: "startElement"
        case .cancelElement: "cancelElement"
        case .awaitElements: "awaitElements"
        case .settleLateSessions: "settleLateSessions"
        case .finish: "finish"
        }
    }

    private static let passing = HubStatus(online: true, reachable: true, permissionGranted: true, activeSession: false)
    private static let unreachable = FlowError(.hubUnreachable, "the hub is not reachable")
    private static let keyUsed = HubEvent(
        name: "epskcModeDeactivated", structureID: "specimen", value: "keyUsed", fields: [:], time: .zero)

    private static func variants(of input: Input) -> [Variant] {
        switch input {
        case .start:
            return [Variant { machine throws(RunMachineError) in try machine.start() }]
        case .proceed:
            return [Variant { machine throws(RunMachineError) in try machine.proceed() }]
        case .statusChecked:
            return [
                Variant(condition: "passed") { machine throws(RunMachineError) in try machine.statusChecked(.finished(passing)) },
                Variant(condition: "failed") { machine throws(RunMachineError) in try machine.statusChecked(.failed(unreachable)) },
                Variant(condition: "cancelled") { machine throws(RunMachineError) in try machine.statusChecked(.cancelled(late: nil)) },
            ]
        case .callEnded:
            return [
                Variant(condition: "succeeded") { machine throws(RunMachineError) in
                    try machine.callEnded(.finished(["sessionID": "session-1"]))
                },
                Variant(condition: "failed") { machine throws(RunMachineError) in try machine.callEnded(.failed(unreachable)) },
                Variant(condition: "cancelled") { machine throws(RunMachineError) in try machine.callEnded(.cancelled(late: nil)) },
            ]
        case .delayEnded:
            return [
                Variant(condition: "elapsed") { machine throws(RunMachineError) in try machine.delayEnded(elapsed: true) },
                Variant(condition: "cut short") { machine throws(RunMachineError) in try machine.delayEnded(elapsed: false) },
            ]
        case .waitEnded:
            return [
                Variant(condition: "event") { machine throws(RunMachineError) in try machine.waitEnded(.event(keyUsed)) },
                Variant(condition: "timeout") { machine throws(RunMachineError) in try machine.waitEnded(.timedOut) },
                Variant(condition: "cancelled") { machine throws(RunMachineError) in try machine.waitEnded(.cancelled) },
            ]
        case .answerEnded:
            return [
                Variant(condition: "answered") { machine throws(RunMachineError) in try machine.answerEnded(.answered("yes")) },
                Variant(condition: "timeout") { machine throws(RunMachineError) in try machine.answerEnded(.timedOut) },
                Variant(condition: "cancelled") { machine throws(RunMachineError) in try machine.answerEnded(.cancelled) },
            ]
        case .elementEnded:
            return [
                Variant(condition: "succeeded") { machine throws(RunMachineError) in try machine.elementEnded(ElementEnd(index: 0, end: .succeeded("ok"), visited: [], warnings: [])) },
                Variant(condition: "failed") { machine throws(RunMachineError) in try machine.elementEnded(ElementEnd(index: 0, end: .failed(unreachable), visited: [], warnings: [])) },
            ]
        case .cancelRequested:
            return [Variant { machine throws(RunMachineError) in machine.cancelRequested() }]
        case .warning:
            return [Variant { machine throws(RunMachineError) in try machine.warning("the hub has not ended a call") }]
        case .lateSessionsSettled:
            return [
                Variant(condition: "none opened") { machine throws(RunMachineError) in try machine.lateSessionsSettled([]) },
                Variant(condition: "released") { machine throws(RunMachineError) in
                    try machine.lateSessionsSettled([LateSession(sessionID: "session-1", call: "prepareCommissioning", release: .released)])
                },
            ]
        }
    }

    /// The specimen workflow: `check` (a guarded, retried call) → `wait` (an event) → `confirm` (a question) →
    /// `pause` (a delay) → `each` (a map, two elements at once) → `done`; its cancel path `release` (a guarded,
    /// retried call) → `settle` (an event) → `acknowledge` (a question) → `linger` (a delay) → `eachAgain` (a map) →
    /// `cancelled`. The maps' body (``specimenElementText``) reads a device.
    static let specimenText = """
        {
          "workflow": "run-machine-specimen", "version": 1, "start": "check", "onCancel": "release",
          "states": {
            "check": {
              "type": "action", "operation": "fetchRooms", "guards": ["hubReachable"],
              "retry": [{ "errors": ["hubUnreachable"], "maxRetries": 1, "intervalSeconds": 1 }],
              "result": "session", "next": "wait", "onError": [{ "errors": ["*"], "next": "failed" }]
            },
            "wait": {
              "type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 60,
              "on": { "keyUsed": "confirm" }, "otherwise": "failed", "onTimeout": "failed"
            },
            "confirm": {
              "type": "ask", "prompt": "Go on?", "answer": { "choice": { "from": ["yes", "no"] } },
              "timeoutSeconds": 60, "next": "pause", "onTimeout": "failed"
            },
            "pause": { "type": "delay", "seconds": 5, "next": "each" },
            "each": {
              "type": "map", "items": ["a", "b"], "as": "id", "maxItems": 2, "concurrency": 2, "path": "element.json",
              "inputs": { "deviceID": "${vars.id}" }, "next": "done", "onError": [{ "errors": ["*"], "next": "failed" }]
            },
            "done": { "type": "succeed" },
            "failed": { "type": "fail", "code": "unavailable", "message": "the check failed" },
            "release": {
              "type": "action", "operation": "fetchRooms", "guards": ["hubReachable"],
              "retry": [{ "errors": ["hubUnreachable"], "maxRetries": 1, "intervalSeconds": 1 }],
              "next": "settle", "onError": [{ "errors": ["*"], "next": "cancelled" }]
            },
            "settle": {
              "type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 60,
              "on": { "keyUsed": "acknowledge" }, "otherwise": "cancelled", "onTimeout": "cancelled"
            },
            "acknowledge": {
              "type": "ask", "prompt": "Cancelled; go on?", "answer": { "choice": { "from": ["yes", "no"] } },
              "timeoutSeconds": 60, "next": "linger", "onTimeout": "cancelled"
            },
            "linger": { "type": "delay", "seconds": 5, "next": "eachAgain" },
            "eachAgain": {
              "type": "map", "items": ["a", "b"], "as": "id", "maxItems": 2, "concurrency": 2, "path": "element.json",
              "inputs": { "deviceID": "${vars.id}" }, "next": "cancelled", "onError": [{ "errors": ["*"], "next": "cancelled" }]
            },
            "cancelled": { "type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "cancelled" }
          }
        }
        """

    /// The body of the specimen's map states.
    static let specimenElementText = """
        {
          "workflow": "run-machine-specimen-element", "version": 1, "start": "read",
          "inputs": { "deviceID": { "type": "string", "required": true } },
          "states": {
            "read": {
              "type": "action", "operation": "readBasicInformation", "arguments": { "deviceID": "${input.deviceID}" },
              "next": "read-done", "onError": [{ "errors": ["*"], "next": "read-failed" }]
            },
            "read-done": { "type": "succeed" },
            "read-failed": { "type": "fail", "error": "${error}" }
          }
        }
        """

    /// The specimen of the `ending` phase: a prepare whose timeout routes to a fail state, so that the run reaches its
    /// end with a session-opening call unanswered.
    static let endingSpecimenText = """
        {
          "workflow": "run-machine-ending-specimen", "version": 1, "start": "prepare", "onCancel": "abandon",
          "states": {
            "prepare": {
              "type": "action", "operation": "prepareCommissioning", "result": "session", "next": "release",
              "onError": [{ "errors": ["*"], "next": "failed" }]
            },
            "release": {
              "type": "action", "operation": "cancelCommissioning", "next": "done", "onError": [{ "errors": ["*"], "next": "done" }]
            },
            "abandon": {
              "type": "action", "operation": "cancelCommissioning", "next": "cancelled",
              "onError": [{ "errors": ["*"], "next": "cancelled" }]
            },
            "done": { "type": "succeed" },
            "failed": { "type": "fail", "code": "unavailable", "message": "prepare did not answer" },
            "cancelled": { "type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "cancelled" }
          }
        }
        """

    private static let endingSpecimenPlace: LevelPlace? = WorkflowLoader(catalog: .standard)
        .load(text: endingSpecimenText, file: "/<run machine ending specimen>", baseDirectory: "/").workflow
        .map { $0.model.topPlace(catalog: .standard) }

    /// The specimen workflow, with its maps' body; nil if it does not load.
    static let specimenWorkflow: Workflow? = WorkflowLoader(catalog: .standard)
        .load(text: specimenText, file: "/<run machine specimen>", baseDirectory: "/", files: ["/element.json": specimenElementText])
        .workflow

    private static let specimenPlace: LevelPlace? = specimenWorkflow.map { $0.model.topPlace(catalog: .standard) }

    /// A machine on the specimen workflow in a phase, reached from its start through inputs alone; nil if the
    /// specimen does not load (the table then refuses every input of the phase).
    static func specimen(_ phase: SpecimenPhase) -> RunMachine? {
        guard let place = phase == .ending ? endingSpecimenPlace : specimenPlace else { return nil }
        var machine = RunMachine(
            place: place, inputs: [:],
            configuration: Configuration(runID: "run-specimen", structureID: "specimen", reportsEvents: false, random: SeededRandomSource(seed: 1)))
        let script: [(inout RunMachine) throws(RunMachineError) -> RunActions]
        let start: (inout RunMachine) throws(RunMachineError) -> RunActions = { machine throws(RunMachineError) in try machine.start() }
        let proceed: (inout RunMachine) throws(RunMachineError) -> RunActions = { machine throws(RunMachineError) in try machine.proceed() }
        let pass: (inout RunMachine) throws(RunMachineError) -> RunActions = { machine throws(RunMachineError) in try machine.statusChecked(.finished(passing)) }
        let fail: (inout RunMachine) throws(RunMachineError) -> RunActions = { machine throws(RunMachineError) in try machine.callEnded(.failed(unreachable)) }
        let succeed: (inout RunMachine) throws(RunMachineError) -> RunActions = { machine throws(RunMachineError) in
            try machine.callEnded(.finished(["sessionID": "session-1"]))
        }
        let event: (inout RunMachine) throws(RunMachineError) -> RunActions = { machine throws(RunMachineError) in try machine.waitEnded(.event(keyUsed)) }
        let answer: (inout RunMachine) throws(RunMachineError) -> RunActions = { machine throws(RunMachineError) in try machine.answerEnded(.answered("yes")) }
        let elapse: (inout RunMachine) throws(RunMachineError) -> RunActions = { machine throws(RunMachineError) in try machine.delayEnded(elapsed: true) }
        let timeout: (inout RunMachine) throws(RunMachineError) -> RunActions = { machine throws(RunMachineError) in try machine.callEnded(.timedOut) }
        let cancel: (inout RunMachine) throws(RunMachineError) -> RunActions = { machine throws(RunMachineError) in machine.cancelRequested() }
        let element: (Int) -> (inout RunMachine) throws(RunMachineError) -> RunActions = { index in
            { machine throws(RunMachineError) in try machine.elementEnded(ElementEnd(index: index, end: .succeeded(nil), visited: [], warnings: [])) }
        }
        switch phase {
        case .notStarted: script = []
        case .entered: script = [start]
        case .checkingGuard: script = [start, proceed]
        case .calling: script = [start, proceed, pass]
        case .retryDelay: script = [start, proceed, pass, fail]
        case .waitingEvent: script = [start, proceed, pass, succeed, proceed]
        case .waitingAnswer: script = [start, proceed, pass, succeed, proceed, event, proceed]
        case .delaying: script = [start, proceed, pass, succeed, proceed, event, proceed, answer, proceed]
        case .mapping: script = [start, proceed, pass, succeed, proceed, event, proceed, answer, proceed, elapse, proceed]
        case .ending: script = [start, proceed, timeout, proceed]
        case .finished:
            script = [start, proceed, pass, succeed, proceed, event, proceed, answer, proceed, elapse, proceed, element(0), element(1), proceed]
        case .enteredOnCancelPath: script = [start, cancel]
        case .checkingGuardOnCancelPath: script = [start, cancel, proceed]
        case .callingOnCancelPath: script = [start, cancel, proceed, pass]
        case .retryDelayOnCancelPath: script = [start, cancel, proceed, pass, fail]
        case .waitingEventOnCancelPath: script = [start, cancel, proceed, pass, succeed, proceed]
        case .waitingAnswerOnCancelPath: script = [start, cancel, proceed, pass, succeed, proceed, event, proceed]
        case .delayingOnCancelPath: script = [start, cancel, proceed, pass, succeed, proceed, event, proceed, answer, proceed]
        case .mappingOnCancelPath: script = [start, cancel, proceed, pass, succeed, proceed, event, proceed, answer, proceed, elapse, proceed]
        }
        do throws(RunMachineError) {
            for step in script { _ = try step(&machine) }
        } catch {
            return nil
        }
        return machine.phaseName == phase.name ? machine : nil
    }
}
