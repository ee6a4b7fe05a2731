import MatterFlowJSON

/// One run of a workflow as data: every level's position, bindings and attempt counts, and what the run has
/// recorded for its result. It performs no I/O and never waits.
///
/// Each input (``start()``, ``proceed()``, ``statusChecked(_:)``, ``callEnded(_:duration:)``, ``delayEnded(elapsed:)``,
/// ``waitEnded(_:)``, ``answerEnded(_:)``, ``elementEnded(_:)``, ``cancelRequested()``, ``warning(_:)``, ``lateSessionsSettled(_:)``) moves the machine and returns the actions its driver
/// performs, in order (see ``RunAction``): reports, checkpoints, then at most one piece of work whose end is the
/// next input. An input the current phase cannot take throws ``RunMachineError`` and changes nothing.
///
/// A sub-workflow state pushes its child's level, and a level's end pops it and becomes the outcome of its
/// parent's attempt. Guards, retries (Amazon States Language semantics, jitter from the run's random source),
/// error routes, wait states and cancel paths follow the workflow language reference.
struct RunMachine: Sendable {
    /// The inputs, by name (as errors and the transition table name them).
    enum Input: String, Sendable, CaseIterable {
        case start, proceed, statusChecked, callEnded, delayEnded, waitEnded, answerEnded, elementEnded, cancelRequested, warning
        case lateSessionsSettled
    }

    /// What a run is configured with, beyond its workflow and inputs.
    struct Configuration: Sendable {
        var runID: String
        var structureID: StructureID
        /// Show secret values in reports and checkpoints (only when a user asks explicitly).
        var showSecrets = false
        /// Whether the driver has an observer or a recording: without either, no report is built, nor a call's
        /// shown arguments.
        var reportsEvents = true
        /// Whether the driver records checkpoints: without it, none is built.
        var recordsCheckpoints = false
        /// Draws retry jitter.
        var random: any RandomSource
        /// Seconds since 1970 now, by the run's clock (a delay until a moment measures from it).
        var wallClock: @Sendable () -> Double = { 0 }
        /// Where the run's secrets are shared with text no run produced (``RunOptions/sharedSecrets``).
        var sharedSecrets: SharedSecrets?
    }

    let configuration: Configuration
    /// Secret values seen so far (secret inputs and arguments, secret result fields).
    let secrets: SecretValues
    /// The top-level workflow's name, as the result names it.
    let workflowName: String
    /// The levels waiting for their child, outermost first.
    var parents: [ParentLevel] = []
    /// The innermost level, which is running.
    var top: Level
    var phase: Phase
    /// Whether a cancel was requested; a level not on a cancel path takes its cancel path at its next chance.
    var isCancelRequested = false
    /// Why the run was cancelled, when whoever cancelled it said.
    var cancelReason: String?
    /// The innermost state the run was in when it was cancelled.
    var cancelledState: String?
    var warnings: [String] = []
    /// The sessions the run may leave open (each also one of ``warnings``), its concurrent elements' included.
    var sessionsInDoubt: [SessionInDoubt] = []
    var visited: [String] = []
    /// The session the run's last successful prepare opened (its calls inside the session expect it).
    var sessionID: String?
    /// The onboarding payloads the run has checked (its inputs', when they were resolved): a sub-workflow input or a
    /// call argument given one of them does not decode it again.
    var payloads = PayloadChecks()
    /// Whether the run holds ``sessionID``: its last session call that took effect opened it rather than releasing
    /// it (a failed release whose attempt suffices ends the hold, as the verifier counts it).
    var holdsSession = false
    /// A release of the session the run held that ended the hold without the hub confirming it (it failed, or went
    /// unanswered): the session it released, and why the release is in doubt, for the warning the run ends with.
    /// Nil once a release took effect.
    var unconfirmedRelease: (session: String?, reason: String)?
    /// A session-opening call ended without an answer the run took (timed out, or stopped by a cancel): the hub may
    /// still open a session for it, which the run settles before it ends (``Phase/ending(_:)``).
    var mayHaveLateSession = false
    /// The last session-opening call that failed with `hubFailure` (``LateSettlement/unreadOpen``).
    var unreadOpen: String?
    /// How many hub calls the run has prepared (an element machine: the element has).
    var callCount = 0
    /// The number of the last call any element of a concurrent map state made, by the map as its elements' names
    /// begin (``ElementLaunch/element`` without its last `[index]`): a later launch of an element of the same map
    /// (the map run again by a retried sub-workflow state) numbers its calls after it. One entry per map run in a
    /// way of its own (per iteration of a repeat around it, per element of a map around it), not per element.
    var elementCalls: [String: Int] = [:]
    /// For the machine of one element of a concurrent map state: the element (`<qualified map state>[<index>]`),
    /// which its calls' contexts name; nil for a run's own machine.
    var element: String?
    /// A resumed run: what it brings to the state it stood in, until that state's work begins or a cancel leaves it.
    var resumed: Resumed?
    /// Actions of the input being handled.
    var actions = RunActions()

    /// A run from the workflow's start state, with inputs already resolved (``Workflow/resolveInputs(_:source:)``).
    ///
    /// A workflow whose start state is not defined (one built in code and not validated) fails at ``start()``.
    /// - Parameter payloads: The payloads checked as the inputs were resolved (``Workflow/resolveRunInputs(_:)``).
    init(
        place: LevelPlace, inputs: JSONObject, configuration: Configuration, secrets: SecretValues = SecretValues(),
        payloads: PayloadChecks = PayloadChecks()
    ) {
        self.configuration = configuration
        self.secrets = secrets
        configuration.sharedSecrets?.add(secrets)
        let model = place.model
        workflowName = model.name
        for name in model.secretInputs { inputs[name].map(secrets.add) }
        top = Level(
            place: place, shielded: false, scope: Scope(inputs: inputs, run: Self.runInfo(model, configuration)),
            state: model.start ?? 0)
        phase = .notStarted(.fresh)
        self.payloads = payloads
        visited.reserveCapacity(32)
    }

    static func runInfo(_ model: RunModel, _ configuration: Configuration) -> Scope.RunInfo {
        Scope.RunInfo(id: configuration.runID, workflow: model.name, structureID: configuration.structureID)
    }

    /// The phase's name, as errors and the transition table give it: `calling`, or `calling (cancel path)` while
    /// the innermost level is on a cancel path.
    var phaseName: String {
        let base: String
        switch phase {
        case .notStarted: return "notStarted"
        case .ending: return "ending"
        case .finished: return "finished"
        case .entered: base = "entered"
        case .checkingGuard: base = "checkingGuard"
        case .calling: base = "calling"
        case .retryDelay: base = "retryDelay"
        case .waitingEvent: base = "waitingEvent"
        case .waitingAnswer: base = "waitingAnswer"
        case .delaying: base = "delaying"
        case .mapping: base = "mapping"
        }
        return top.onCancelPath ? base + " (cancel path)" : base
    }

    /// Whether the run has ended.
    var isFinished: Bool {
        if case .finished = phase { true } else { false }
    }

    func refuse(_ input: Input) -> RunMachineError {
        RunMachineError(code: .impossibleInput, phase: phaseName, input: input.rawValue)
    }

    /// The actions gathered while handling an input, handed out once (moved out, not copied).
    mutating func takeActions() -> RunActions {
        var taken = RunActions()
        swap(&taken, &actions)
        return taken
    }

    /// The phase, moved out for an input that leaves it, so that its payload is held once and changes without
    /// being copied. The machine holds `.finished` until the input hands over its next phase (every path of
    /// ``drive(_:)`` sets one); an input that refuses puts the phase back first.
    mutating func leavePhase() -> Phase {
        var left = Phase.finished
        swap(&left, &phase)
        return left
    }

    // MARK: - Inputs

    /// Starts the run: reports it (a fresh run) and enters its state; a resumed run re-enters every level's state.
    mutating func start() throws(RunMachineError) -> RunActions {
        guard case .notStarted(let start) = phase else { throw refuse(.start) }
        switch start {
        case .fresh:
            if configuration.reportsEvents {
                report(top.path, .runStarted(inputs: configuration.showSecrets ? top.scope.inputs : top.model.redacting(top.scope.inputs)))
            }
            drive(top.model.start == nil ? .levelEnded(.failed(missingState(top.model.startName))) : .enterCurrent)
        case .resumed(let completed):
            drive(resumeEntries(completedStep: completed))
        case .element:
            drive(top.model.start == nil ? .levelEnded(.failed(missingState(top.model.startName))) : .enterCurrent)
        }
        return takeActions()
    }

    /// The entered state's work begins: a cancel requested since it was entered has already taken effect.
    mutating func proceed() throws(RunMachineError) -> RunActions {
        guard case .entered(let state) = phase else { throw refuse(.proceed) }
        drive(work(of: state))
        return takeActions()
    }

    /// A guard's status check ended (`.cancelled` when a cancel stopped it).
    mutating func statusChecked(_ outcome: RaceOutcome<HubStatus>) throws(RunMachineError) -> RunActions {
        let left = leavePhase()
        guard case .checkingGuard(let progress, let index) = left, let statusGuard = progress.state.statusGuard(index) else {
            phase = left
            throw refuse(.statusChecked)
        }
        if case .cancelled = outcome { noteCancel() }
        drive(guardEnded(progress, index: index, statusGuard, outcome))
        return takeActions()
    }

    /// The hub call ended (the state's own, or a custom guard's read), after `duration` on the run's clock
    /// (`.cancelled` when a cancel stopped it, with its late result if it still succeeded).
    mutating func callEnded(_ outcome: RaceOutcome<JSONValue>, duration: Duration = .zero) throws(RunMachineError) -> RunActions {
        let left = leavePhase()
        if case .checkingGuard(let progress, let index) = left, progress.state.plannedGuards.indices.contains(index),
            case .operation(let descriptor, let call) = progress.state.plannedGuards[index]
        {
            if case .cancelled = outcome { noteCancel() }
            drive(guardCallEnded(progress, index: index, descriptor, call, outcome, duration: duration))
            return takeActions()
        }
        guard case .calling(let progress, let call) = left else {
            phase = left
            throw refuse(.callEnded)
        }
        if case .cancelled = outcome { noteCancel() }
        drive(callEnded(progress, call, outcome, duration: duration))
        return takeActions()
    }

    /// The delay before a retry, or a delay state's, has ended: the next attempt starts (or the delay state's `next`
    /// follows) when it `elapsed`; when a cancel cut it short, the level takes its cancel path.
    mutating func delayEnded(elapsed: Bool = true) throws(RunMachineError) -> RunActions {
        let left = leavePhase()
        if case .delaying(let delay) = left {
            if !elapsed { noteCancel() }
            drive(.move(delayStateEnded(delay, elapsed: elapsed)))
            return takeActions()
        }
        guard case .retryDelay(var progress) = left else {
            phase = left
            throw refuse(.delayEnded)
        }
        if elapsed {
            progress.attempt += 1
            drive(beginAttempt(progress))
        } else {
            noteCancel()
            drive(.move(stepEnded(progress.state, .cancelled(late: nil))))
        }
        return takeActions()
    }

    /// The wait state's event arrived, its timeout passed, or a cancel ended it.
    mutating func waitEnded(_ end: WaitEnd) throws(RunMachineError) -> RunActions {
        let left = leavePhase()
        guard case .waitingEvent(let wait) = left else {
            phase = left
            throw refuse(.waitEnded)
        }
        if case .cancelled = end { noteCancel() }
        drive(.move(waitEnded(end, wait)))
        return takeActions()
    }

    /// The run is asked to cancel. A level not on a cancel path takes its cancel path now when nothing is in
    /// flight (a state just entered, a retry delay, a wait), or asks the driver to stop its hub work, whose end is
    /// then fed as cancelled. A cancel path is never interrupted; a second cancel, or one after the end, changes
    /// nothing.
    mutating func cancelRequested(reason: String? = nil) -> RunActions {
        guard !isCancelRequested else { return RunActions() }
        noteCancel(reason: reason)
        switch phase {
        case .notStarted, .ending, .finished:
            break
        case .entered(let state):
            if !top.onCancelPath, !state.isTerminal {
                // The state a resumed run stood in is left before its work began: what it had done or waited there
                // belongs to it, not to the cancel path's states.
                resumed = nil
                drive(.move(.cancel))
            }
        case .checkingGuard, .calling:
            if !top.onCancelPath { actions.append(.interruptWork) }
        case .retryDelay(let progress):
            if !top.onCancelPath { drive(.move(stepEnded(progress.state, .cancelled(late: nil)))) }
        case .waitingEvent, .waitingAnswer, .delaying:
            if !top.onCancelPath { drive(.move(.cancel)) }
        case .mapping(var runs):
            // Each running element's cancel signal is tied to the run's (``RunDriver/runElements(_:orders:)``), so
            // the run's cancel has reached them already: the map takes its cancel path once none runs.
            if !top.onCancelPath {
                runs.cancelled = true
                phase = .mapping(runs)
            }
        }
        return takeActions()
    }

    /// The driver reports a warning about the state's hub work (an abandoned call it waits for before the next
    /// one, or before the run ends; a wait for an event no subscription delivers): it is reported and kept for the
    /// result.
    mutating func warning(_ message: String) throws(RunMachineError) -> RunActions {
        switch phase {
        case .checkingGuard, .calling, .ending, .waitingEvent: break
        case .notStarted, .entered, .retryDelay, .waitingAnswer, .delaying, .mapping, .finished: throw refuse(.warning)
        }
        warn(message, in: top.current)
        return takeActions()
    }

    /// The run's end waited for its unanswered session-opening calls, and the driver released each session the hub
    /// opened late (``RunAction/settleLateSessions(_:)``): each is a warning, and the run ends.
    mutating func lateSessionsSettled(_ sessions: [LateSession]) throws(RunMachineError) -> RunActions {
        let left = leavePhase()
        guard case .ending(let end) = left else {
            phase = left
            throw refuse(.lateSessionsSettled)
        }
        for session in sessions {
            warnings.append(session.message)
            if case .failed = session.release {
                sessionsInDoubt.append(SessionInDoubt(sessionID: session.sessionID.isEmpty ? nil : session.sessionID, reason: session.message))
            }
            report(top.path, .warning(state: top.current, message: session.message))
        }
        finish(end)
        return takeActions()
    }

    mutating func noteCancel(reason: String? = nil) {
        isCancelRequested = true
        if let reason { cancelReason = reason }
    }

    // MARK: - Reports

    /// Adds a report, redacted unless the run shows secrets; dropped when the driver has no observer. The inputs
    /// every run takes (its start, entering a state or taking a transition, a call's or a guard's check and end) check
    /// ``Configuration/reportsEvents`` before building their report too, so that a run nobody observes builds none
    /// of those; rarer reports are built and dropped here. (An `@autoclosure` kind would spare the callers the check,
    /// but most reports read the machine's own state, which a closure passed to this mutating method may not.)
    mutating func report(_ path: [String], _ kind: RunEvent.Kind) {
        guard configuration.reportsEvents else { return }
        actions.append(.report(path: path, shown(kind)))
    }

    /// Reports an event whose texts are already as observers get them (a call's arguments as ``RunCall/shownArguments``
    /// shows them), without redacting them again.
    mutating func reportShown(_ path: [String], _ kind: RunEvent.Kind) {
        guard configuration.reportsEvents else { return }
        actions.append(.report(path: path, kind))
    }

    /// An event a driver reports of its own about the innermost level (a warning about an abandoned call, an answer
    /// given in advance that does not fit), shown as the machine's reports are; nil when the run reports no events.
    func driverEvent(_ kind: RunEvent.Kind, at time: Duration) -> RunEvent? {
        guard configuration.reportsEvents else { return nil }
        return RunEvent(runID: configuration.runID, time: time, workflowPath: top.path, kind: shown(kind))
    }

    /// A report's kind as observers and recordings get it: secrets redacted unless the run shows them.
    private func shown(_ kind: RunEvent.Kind) -> RunEvent.Kind {
        configuration.showSecrets ? kind : secrets.redacting(kind)
    }

    /// Hands work to the driver.
    mutating func handOver(_ phase: Phase, _ action: RunAction) -> Continuation {
        self.phase = phase
        actions.append(action)
        return .waiting
    }

    /// Runs the machine until it hands work to the driver or the run ends.
    mutating func drive(_ first: Continuation) {
        var next = first
        while true {
            switch next {
            case .waiting:
                return
            case .move(let move):
                if let end = advance(move) { next = .levelEnded(end) } else { next = .enterCurrent }
            case .enterCurrent:
                let state = top.planned
                enter(state)
                phase = .entered(state)
                actions.append(.proceed)
                return
            case .levelEnded(let end):
                guard var parent = parents.popLast() else {
                    finish(end)
                    return
                }
                // Swapped rather than copied, so that the parent's level is held once and binding the child's
                // result to it changes its variables in place.
                swap(&top, &parent.level)
                if let map = parent.map {
                    next = elementEnded(parent.step, map, end)
                    continue
                }
                switch end {
                case .succeeded(let output): next = attemptEnded(parent.step, .finished(output ?? .null))
                case .failed(let error): next = attemptEnded(parent.step, .failed(error))
                case .cancelled: next = attemptEnded(parent.step, .cancelled(late: nil))
                }
            }
        }
    }

    /// Records and reports the innermost level's entry into its current state, with the level's checkpoint (and,
    /// for a map state, the map's progress; for a repeat state, the iteration running).
    mutating func enter(_ state: PlannedState, map: MapCheckpoint? = nil, step: StepProgress? = nil, retryDelay: Double? = nil) {
        visited.append(top.qualifiedCurrent)
        if configuration.reportsEvents {
            report(top.path, .stateEntered(state: state.name, type: state.typeName))
        }
        if configuration.recordsCheckpoints {
            actions.append(.checkpoint(checkpoint(top, map: map, step: step, retryDelay: retryDelay)))
        }
    }

    /// Ends the run with its result; first, when a session-opening call ended unanswered, the driver settles what
    /// it did on the hub (``Phase/ending(_:)``).
    private mutating func finish(_ end: LevelEnd) {
        if mayHaveLateSession {
            mayHaveLateSession = false
            phase = .ending(end)
            actions.append(
                .settleLateSessions(
                    LateSettlement(
                        holding: holdsSession ? sessionID : nil, own: sessionID, element: element,
                        release: top.model.catalog["cancelCommissioning"].map {
                            PlannedCall($0, arguments: [], timeoutSeconds: $0.defaultTimeoutSeconds)
                        }, unreadOpen: unreadOpen)))
            unreadOpen = nil
            return
        }
        if let unconfirmed = unconfirmedRelease {
            unconfirmedRelease = nil
            let warning =
                "the commissioning session\(unconfirmed.session.map { " \($0)" } ?? "") may still be open on the hub: its release was "
                + "not confirmed (\(unconfirmed.reason)); if the hub shows it active, release it (Workflows/cancel.json on the "
                + "structure, or `matterflow recover` for a journaled run)"
            warnings.append(warning)
            sessionsInDoubt.append(SessionInDoubt(sessionID: unconfirmed.session, reason: warning))
            report(top.path, .warning(state: top.current, message: warning))
        }
        var result = RunResult(
            runID: configuration.runID, workflow: workflowName, outcome: .succeeded, output: nil, error: nil,
            warnings: warnings, visitedStates: visited, holdsSession: holdsSession, sessionsInDoubt: sessionsInDoubt)
        switch end {
        case .succeeded(let output):
            result.output = output
        case .failed(let error):
            result.outcome = .failed
            result.error = error
        case .cancelled(let error):
            result.outcome = .cancelled
            result.error = error
        }
        guard element == nil else {
            // An element's end goes to its map state's machine, which records it (redacted where it is shown).
            phase = .finished
            actions.append(.finish(result))
            return
        }
        // An element's output goes to its map state; only the run's own is kept beyond the caller.
        if !configuration.showSecrets {
            result.redaction = secrets
            result.warnings = result.warnings.map(secrets.redacting)
            for index in result.sessionsInDoubt.indices {
                result.sessionsInDoubt[index].reason = secrets.redacting(result.sessionsInDoubt[index].reason)
            }
            result.error = secrets.redacting(result.error)
        }
        report(top.path, .runFinished(outcome: result.outcome, error: result.error, holdsSession: result.holdsSession))
        phase = .finished
        actions.append(.finish(result))
    }
}
