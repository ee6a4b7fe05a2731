import MatterFlowJSON

/// The entry point for embedding MatterFlow: load workflows, run them against a ``Hub``, observe and cancel runs.
///
/// The engine holds no mutable state but a cache of loaded workflow files (reused only while every file of a
/// workflow's tree is byte for byte unchanged), so one engine can run any number of workflows at once, each on
/// its own structure.
///
/// ```swift
/// let engine = WorkflowEngine()
/// let workflow = try engine.load(path: "Workflows/commission-device.json")
/// let result = try await engine.run(
///     workflow, inputs: ["onboardingPayload": "MT:...", "deviceName": "Lamp"],
///     on: myHub, options: RunOptions(structureID: "structure-1"))
/// ```
public struct WorkflowEngine: Sendable {
    /// The operations workflows may invoke.
    public var catalog: OperationCatalog {
        // What a workflow may call decides whether it is valid: outcomes loaded with another catalog do not apply.
        didSet { loadCache = WorkflowLoadCache() }
    }

    /// Earlier outcomes of ``load(path:)`` and ``validate(path:)``, shared by copies of this engine.
    private var loadCache = WorkflowLoadCache()

    /// An engine whose workflows may call the operations of `catalog` (the standard ones by default; a catalog
    /// with custom operations adds to them).
    public init(catalog: OperationCatalog = .standard) {
        self.catalog = catalog
    }

    /// Loads and validates a workflow file and the sub-workflows it names.
    ///
    /// Loading the same file again is quick while none of the files of its tree has changed: the engine keeps
    /// the outcome, and checks every file's bytes before reusing it.
    /// - Throws: ``DiagnosticsError`` with every finding when the workflow has errors.
    public func load(path: String) throws(DiagnosticsError) -> Workflow {
        let outcome = loadCache.outcome(path: path, loader: WorkflowLoader(catalog: catalog))
        guard let workflow = outcome.workflow else { throw DiagnosticsError(outcome.diagnostics) }
        return workflow
    }

    /// Loads and validates a workflow from JSON text; sub-workflow paths resolve from `baseDirectory`.
    public func load(text: String, file: String = "<workflow>", baseDirectory: String) throws(DiagnosticsError) -> Workflow {
        let outcome = WorkflowLoader(catalog: catalog).load(text: text, file: file, baseDirectory: baseDirectory)
        guard let workflow = outcome.workflow else { throw DiagnosticsError(outcome.diagnostics) }
        return workflow
    }

    /// Every finding about a workflow file (errors and warnings), without throwing.
    public func validate(path: String) -> [Diagnostic] {
        loadCache.outcome(path: path, loader: WorkflowLoader(catalog: catalog)).diagnostics
    }

    /// Validates a workflow built or changed in code (``Workflow/init(_:)``, ``Workflow/with(_:)``) as loading
    /// validates a file: references, routes, operations and their arguments against this engine's catalog, and the
    /// proofs (a session released on every path, bounded duration). Its sub-workflows are validated first, each once.
    /// Diagnostics name JSON pointers; having no text, they have no line and column.
    public func validate(_ workflow: Workflow) -> [Diagnostic] {
        let verification = VerificationContext(catalog: catalog)
        var diagnostics: [Diagnostic] = []
        var seen = Set<String>()
        func validate(_ workflow: Workflow, isTopLevel: Bool) {
            for child in workflow.subworkflows.sorted(by: { $0.key < $1.key }).map(\.value) where seen.insert(child.file).inserted {
                validate(child, isTopLevel: false)
            }
            let collector = DiagnosticCollector(document: JSONDocument(file: workflow.file, value: .null))
            WorkflowValidator(workflow: workflow, catalog: catalog, collector: collector, verification: verification, isTopLevel: isTopLevel)
                .validate()
            diagnostics += collector.diagnostics
        }
        validate(workflow, isTopLevel: true)
        return diagnostics
    }

    /// Runs a workflow to its end. Cancelling the calling task (or ``RunOptions/cancellation``) cancels the run:
    /// it takes its cancel path, which runs to completion (shielded from further cancellation), and the result's
    /// outcome is `cancelled`.
    ///
    /// The run leaves the caller's actor (`@concurrent`): its work between hub calls never holds up the caller's
    /// actor, such as the main actor of an app or a command-line tool.
    /// - Throws: ``DiagnosticsError`` when the inputs do not match the workflow's declarations.
    @concurrent public func run(
        _ workflow: Workflow, inputs: JSONObject = [:], on hub: any Hub, options: RunOptions
    ) async throws(DiagnosticsError) -> RunResult {
        let signal = options.cancellation?.signal ?? CancellationSignal()
        let driver = try makeDriver(workflow, inputs: inputs, hub: hub, options: options, signal: signal)
        // ``WorkflowClock/working(_:)-(()async throws(E)->T)``, written out: the run's frame holds no closure.
        options.clock.beginActivity()
        defer { options.clock.endActivity() }
        return await withTaskCancellationHandler {
            await execute(workflow, driver)
        } onCancel: {
            signal.cancel()
        }
    }

    /// Starts a run and returns at once with a handle to observe, cancel and await it.
    /// - Throws: ``DiagnosticsError`` when the inputs do not match the workflow's declarations.
    public func start(
        _ workflow: Workflow, inputs: JSONObject = [:], on hub: any Hub, options: RunOptions
    ) throws(DiagnosticsError) -> RunHandle {
        start(workflow, resolvedInputs: try workflow.resolveRunInputs(inputs), on: hub, options: options)
    }

    /// Starts a run whose inputs the caller has resolved already (``Workflow/resolveRunInputs(_:)``: defaults filled
    /// in, types checked), as ``start(_:inputs:on:options:)`` does after resolving them: for the journal, which
    /// resolves them first to digest the secret ones.
    package func start(_ workflow: Workflow, resolvedInputs resolved: ResolvedInputs, on hub: any Hub, options: RunOptions) -> RunHandle {
        // The handle's stream observes every run it starts, unless it keeps no event.
        let machine = RunMachine(
            place: workflow.model.topPlace(catalog: catalog), inputs: resolved.values,
            configuration: configuration(options, observed: Self.handleObserves(options)), payloads: resolved.payloads)
        return launch(workflow, machine: machine, on: hub, options: options, signal: options.cancellation?.signal ?? CancellationSignal())
    }

    /// Continues a run from a ``ResumePoint`` (normally rebuilt from a journal by recovery), or takes its cancel
    /// path from there when `point.cancel` is set, and returns at once with a handle, as ``start(_:inputs:on:options:)``
    /// does. The run keeps its ID (`options.runID`); it does not report `runStarted` again. Each level is restored
    /// from its checkpoint (inputs, variables, error, cancel path) and re-enters the state it was entering; an outer
    /// level re-enters its sub-workflow state without checking its guards again. A step continues the retry counts
    /// its checkpoint records (``RunCheckpoint/retry``), and a wait state waits what is left of ``ResumePoint/waited``.
    /// - Throws: ``FlowError`` `invalidArgumentValue` when the point does not fit the workflow (a level's state or
    ///   sub-workflow is not where the checkpoint says, or its retries are more than the state's retry rules allow).
    public func resume(
        _ workflow: Workflow, from point: ResumePoint, on hub: any Hub, options: RunOptions
    ) throws(FlowError) -> RunHandle {
        try point.check(against: workflow)
        let signal = options.cancellation?.signal ?? CancellationSignal()
        if point.cancel { signal.cancel() }
        // Built here, so that a point the plan cannot take is refused before anything runs.
        let machine = try RunMachine(
            place: workflow.model.topPlace(catalog: catalog), resumingAt: point,
            configuration: configuration(options, observed: Self.handleObserves(options)))
        return launch(workflow, machine: machine, on: hub, options: options, signal: signal)
    }

    /// Starts a run's task, its events forwarded to the handle's stream.
    private func launch(
        _ workflow: Workflow, machine: RunMachine, on hub: any Hub, options: RunOptions, signal: CancellationSignal
    ) -> RunHandle {
        let buffering: AsyncStream<RunEvent>.Continuation.BufferingPolicy =
            options.eventBufferLimit.map { .bufferingNewest(max(0, $0)) } ?? .unbounded
        let (events, continuation) = AsyncStream<RunEvent>.makeStream(bufferingPolicy: buffering)
        var observed = options
        let outer = options.observer
        // With a limit of 0 nothing is kept for the handle: the observer alone hears the events.
        if options.eventBufferLimit.map({ $0 > 0 }) ?? true {
            observed.observer = { event in
                outer?(event)
                continuation.yield(event)
            }
        }
        let runOptions = observed
        let desk = AnswerDesk(answers: options.answers)
        let driver = makeDriver(machine, hub: hub, options: runOptions, signal: signal, desk: desk)
        let handover = ClockHandover()
        let task = options.clock.task(handingOverTo: handover) {
            let result = await execute(workflow, driver)
            desk.close()
            continuation.finish()
            return result
        }
        return RunHandle(events: events, task: task, signal: signal, desk: desk, handover: handover)
    }

    /// Whether the handle's stream takes the run's events (``RunOptions/eventBufferLimit`` is not 0), or the
    /// observer wants them.
    private static func handleObserves(_ options: RunOptions) -> Bool {
        options.eventBufferLimit.map { $0 > 0 } ?? true || options.observer != nil
    }

    /// What a run's machine is configured with.
    private func configuration(_ options: RunOptions, observed: Bool) -> RunMachine.Configuration {
        RunMachine.Configuration(
            runID: options.runID ?? "run-" + options.random.hexDigits(12), structureID: options.structureID,
            showSecrets: options.showSecrets, reportsEvents: observed || options.recording != nil,
            recordsCheckpoints: options.checkpoints != nil || options.recording != nil,
            random: options.random, wallClock: WallClock.reading(options.clock, origin: options.wallClockOrigin),
            sharedSecrets: options.sharedSecrets)
    }

    /// The driver of a run from the workflow's start, its inputs resolved (``Workflow/resolveInputs(_:source:)``)
    /// and its machine built. Never inlined: the machine is built here, on the thread's stack, so that the async
    /// frame of ``run(_:inputs:on:options:)``, which a run holds until it ends, has no room for it (928 bytes with
    /// it, 432 without).
    @inline(never)
    private func makeDriver(
        _ workflow: Workflow, inputs: JSONObject, hub: any Hub, options: RunOptions, signal: CancellationSignal
    ) throws(DiagnosticsError) -> RunDriver {
        let resolved = try workflow.resolveRunInputs(inputs)
        let machine = RunMachine(
            place: workflow.model.topPlace(catalog: catalog), inputs: resolved.values,
            configuration: configuration(options, observed: options.observer != nil), payloads: resolved.payloads)
        return makeDriver(machine, hub: hub, options: options, signal: signal, desk: AnswerDesk(answers: options.answers))
    }

    /// The driver of a run, which owns its machine from here on.
    private func makeDriver(
        _ machine: consuming RunMachine, hub: any Hub, options: RunOptions, signal: CancellationSignal, desk: AnswerDesk
    ) -> RunDriver {
        let runID = machine.configuration.runID
        return RunDriver(machine: machine, hub: hub, options: options, runID: runID, signal: signal, inbox: EventInbox(), desk: desk)
    }

    /// Subscribes to the hub's events when the workflow waits for any, then drives the run to its end.
    private func execute(_ workflow: Workflow, _ driver: RunDriver) async -> RunResult {
        let subscription =
            workflow.waitsForEvents
            ? await RunSubscription.subscribe(
                on: driver.hub, structure: driver.options.structureID, inbox: driver.inbox, signal: driver.signal,
                clock: driver.options.clock)
            : nil
        defer { subscription?.cancel() }
        return await driver.run()
    }
}

/// A run in progress: its events, a way to cancel it, and its result.
public struct RunHandle: Sendable {
    /// The run's events, in order, as many as ``RunOptions/eventBufferLimit`` keeps for a reader (every one by
    /// default); the sequence ends when the run does. One reader takes them: two `for await` loops over it share the
    /// events between them, each seeing some, so a second observer uses ``RunOptions/observer`` instead.
    public let events: AsyncStream<RunEvent>
    private let task: Task<RunResult, Never>
    private let signal: CancellationSignal
    private let desk: AnswerDesk
    private let handover: ClockHandover

    init(
        events: AsyncStream<RunEvent>, task: Task<RunResult, Never>, signal: CancellationSignal, desk: AnswerDesk,
        handover: ClockHandover
    ) {
        self.events = events
        self.task = task
        self.signal = signal
        self.desk = desk
        self.handover = handover
    }

    /// The question the run waits for an answer to now, if any (as its `questionAsked` event published it).
    public var pendingQuestion: Question? {
        desk.pendingQuestion
    }

    /// Answers the question the run waits for, named by its question name or its ask state's name. A string that
    /// does not fit as it is reads as typed text (a choice's number or label, `yes`/`no`).
    /// - Throws: ``AnswerError``: `invalidAnswer` when the answer does not fit the question's schema (the reason
    ///   says why), `noPendingQuestion` when no question of that name waits. The run keeps waiting either way.
    public func answer(_ value: JSONValue, to question: String) throws(AnswerError) {
        try desk.answer(value, to: question)
    }

    /// Gives the answer to the question `question` (its question name or its ask state's name) whether or not the
    /// run waits for it now: the waiting question takes it at once, checked as ``answer(_:to:)-(JSONValue,_)`` checks
    /// it; otherwise it is kept, as an answer given in advance (``RunOptions/answers``) is, and used when the question
    /// is asked (one that does not fit is then reported as `answerRejected`, and the question waits on). For answers
    /// that may come before their question, as a fleet's do (`matterflow answer`).
    /// - Throws: ``AnswerError`` `invalidAnswer` when the question waits now and the answer does not fit (the run
    ///   keeps waiting), `noPendingQuestion` when the run has ended (or the question stopped waiting while the
    ///   answer was checked).
    @discardableResult
    public func give(_ value: JSONValue, to question: String) throws(AnswerError) -> AnswerDelivery {
        try desk.give(value, to: question)
    }

    /// Answers the question the run waits for with a typed value.
    /// - Throws: ``AnswerError``, as ``answer(_:to:)-(JSONValue,_)`` does.
    public func answer(_ value: AnswerValue, to question: String) throws(AnswerError) {
        try desk.answer(value.jsonValue, to: question)
    }

    /// Cancels the run: it takes its cancel path (releasing what it holds) and ends as `cancelled`. `reason` says
    /// why; the run's `cancelRequested` event (and so its journal) and its cancellation error carry it.
    public func cancel(reason: String? = nil) {
        signal.cancel(reason: reason)
    }

    /// The run's result, once it has ended. Cancelling the task that awaits it does not cancel the run (a handle is
    /// not tied to a task): call ``cancel(reason:)`` for that; ``WorkflowEngine/run(_:inputs:on:options:)`` does
    /// cancel its run with its task.
    public var result: RunResult {
        get async { await task.value }
    }

    /// The run's result, awaited by a task that works on `clock` (the run's, in virtual time): it does not hold the
    /// clock while it waits, and the run's activity passes to it when the run ends, so virtual time cannot move
    /// between the run's end and the caller going on.
    public func result(workingOn clock: any WorkflowClock) async -> RunResult {
        await handover.wait(on: clock) { await task.value }
    }
}
