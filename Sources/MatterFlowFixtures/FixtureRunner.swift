import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization

/// Runs fixtures deterministically: each on its own virtual clock, simulated hub and seeded random source, so a
/// fixture gives the same run on every machine, in milliseconds, however much simulated time it spans.
///
/// ```swift
/// let outcome = FixtureLoader().load(path: "Workflows/fixtures/commission/retry.fixture.json")
/// if let fixture = outcome.fixture {
///     let result = await FixtureRunner().run(fixture)
///     print(result.passed ? "pass" : result.mismatches.map(\.description).joined(separator: "\n"))
/// }
/// ```
public struct FixtureRunner: Sendable {
    /// Runs the workflows.
    public var engine: WorkflowEngine
    /// What the run talks to the fixture's hub through; nil: it calls the hub directly.
    public var transport: FixtureHubTransport?

    /// A runner using `engine` (its catalog must be the one the fixtures were loaded with).
    public init(engine: WorkflowEngine = WorkflowEngine(), transport: FixtureHubTransport? = nil) {
        self.engine = engine
        self.transport = transport
    }

    /// Runs fixtures, several at once (each has its own clock and hub), and returns their results in the order
    /// given.
    public func run(_ fixtures: [Fixture], maxConcurrency: Int = 4) async -> [FixtureResult] {
        await withTaskGroup(of: (Int, FixtureResult).self) { group in
            var results = [FixtureResult?](repeating: nil, count: fixtures.count)
            var next = 0
            func startNext() {
                guard next < fixtures.count else { return }
                let index = next
                let fixture = fixtures[index]
                next += 1
                group.addTask { (index, await self.run(fixture)) }
            }
            for _ in 0..<max(1, maxConcurrency) { startNext() }
            for await (index, result) in group {
                results[index] = result
                startNext()
            }
            return results.compactMap { $0 }
        }
    }

    /// Runs one fixture and checks its expectations.
    public func run(_ fixture: Fixture) async -> FixtureResult {
        if let refusal = fixture.expectations.inputRefused {
            return FixtureResult(fixture: fixture, observation: nil, mismatches: InputRefusalCheck.mismatches(fixture, refusal))
        }
        do {
            let observation = try await observe(fixture)
            return FixtureResult(
                fixture: fixture, observation: observation,
                mismatches: ExpectationChecker(fixture: fixture, observation: observation).mismatches())
        } catch {
            return FixtureResult(
                fixture: fixture, observation: nil,
                mismatches: [FixtureMismatch(subject: error.subject, expected: error.expected, actual: error.actual)])
        }
    }

    /// Runs a fixture's scenario and records what happened, without checking expectations.
    /// - Throws: ``FixtureSetupError`` when the run cannot start (a home the simulator refuses, inputs the
    ///   workflow refuses); ``FixtureLoader`` checks both, so only hand-built fixtures meet this.
    public func observe(_ fixture: Fixture) async throws(FixtureSetupError) -> RunObservation {
        let clock = VirtualClock()
        let hub: SimulatedHub
        do {
            hub = try SimulatedHub(home: fixture.home, clock: clock)
        } catch {
            throw FixtureSetupError(subject: "home", expected: "a home the simulator can load", actual: "\(error)")
        }
        let structure = fixture.home.structure.id
        await hub.setFaultPlan(FaultPlan(fixture.faults), structure: structure)
        await hub.setEpskcRandomSource(SeededRandomSource(seed: fixture.seed))
        let world = FixtureWorld(hub: hub, structure: structure, events: fixture.events, clock: clock)
        var runHub: any Hub = FixtureHub(world: world, customRules: fixture.customOperations)
        var closeTransport: (@Sendable () async -> Void)?
        if let transport {
            // The connection is set up as work of the simulated world, so no virtual time passes during it.
            let fixtureHub = runHub
            do {
                (runHub, closeTransport) = try await clock.working { try await transport.connect(fixtureHub, clock) }
            } catch {
                throw FixtureSetupError(subject: "transport", expected: "a connection to the fixture's hub", actual: "\(error)")
            }
        }
        let recorder = RunRecorder(root: fixture.runnableWorkflow)
        let cancellation = RunCancellation()
        var options = RunOptions(
            structureID: structure, clock: clock, random: SeededRandomSource(seed: fixture.seed),
            observer: { event in
                let entered = recorder.record(event)
                switch event.kind {
                case .runStarted: world.releaseStartActivity()
                case .runFinished: world.markFinished()
                default: break
                }
                // A cancel from the observer of a state's entry takes effect before the state does any work,
                // exactly as a cancel arriving between two states.
                if let entered, world.entering(entered) { cancellation.cancel(reason: "the fixture cancels on entering \(entered)") }
                // A question the fixture cancels at is cancelled while it waits for its answer.
                if case .questionAsked(let state, let question) = event.kind,
                    (fixture.answers[question.name] ?? fixture.answers[state]) == .cancel
                {
                    cancellation.cancel(reason: "the fixture cancels at question \(question.name)")
                }
            })
        options.cancellation = cancellation
        for (name, answer) in fixture.answers {
            switch answer {
            case .answer(let value), .rejectedAnswer(let value): options.answers[name] = value
            case .noAnswer, .cancel: break
            }
        }
        // Virtual time is held from before the events' task and the run's task are created until the engine accounts
        // for the run (at runStarted), so no time passes before the run has started: the events' first sleep would
        // otherwise find the clock idle and move it to their times.
        world.holdUntilStarted()
        let scheduler = Self.schedule(world, clock: clock)
        let engine = self.engine
        let workflow = fixture.runnableWorkflow
        let inputs = fixture.inputs
        let connectedHub = runHub
        let runTask = Task { () -> Result<RunResult, DiagnosticsError> in
            do throws(DiagnosticsError) {
                return .success(try await engine.run(workflow, inputs: inputs, on: connectedHub, options: options))
            } catch {
                world.releaseStartActivity()
                return .failure(error)
            }
        }
        world.setCanceller { cancellation.cancel(reason: "the fixture's cancelRun event") }
        let outcome = await runTask.value
        await closeTransport?()
        // Virtual time is frozen from the end of the run (or never started moving) until the home has been read.
        if !world.isFinished { world.markFinished() }
        defer { world.thaw() }
        scheduler.cancel()
        await scheduler.value
        await world.enteringActionsApplied()
        let result: RunResult
        switch outcome {
        case .success(let value): result = value
        case .failure(let error):
            throw FixtureSetupError(
                subject: "inputs", expected: "inputs the workflow accepts", actual: error.description)
        }
        let events = recorder.events
        let finished = events.last { if case .runFinished = $0.kind { true } else { false } }
        let finalHome = (try? await hub.snapshot(structure: structure)) ?? fixture.home
        var phases: [String: EpskcSession.Phase] = [:]
        for router in finalHome.thread.borderRouters {
            phases[router.deviceID] = await hub.epskcPhase(structure: structure, deviceID: router.deviceID)
        }
        return RunObservation(
            result: result, events: events, calls: await hub.calls(structure: structure), initialHome: fixture.home,
            finalHome: finalHome, elapsed: finished?.time ?? clock.now, firedEvents: world.firedEvents,
            refusedEvents: world.refusals, epskcPhases: phases,
            appliedFaults: await hub.appliedFaultRules(structure: structure),
            appliedCustomOperationRules: world.appliedCustomRules)
    }

    /// Starts the task that runs the `at` events at their times (in file order for equal times).
    private static func schedule(_ world: FixtureWorld, clock: any WorkflowClock) -> Task<Void, Never> {
        let timed = world.events.enumerated()
            .compactMap { index, event -> (index: Int, time: Duration)? in
                guard case .at(let time) = event.trigger else { return nil }
                return (index, time)
            }
            .sorted { ($0.time, $0.index) < ($1.time, $1.index) }
        return clock.task {
            for (index, time) in timed {
                let wait = time - clock.now
                if wait > .zero {
                    do { try await clock.sleep(for: wait) } catch { break }
                }
                await world.fireScheduled(index)
            }
        }
    }
}

/// Puts a fixture's hub behind something before the run sees it: the hub protocol, to show that a transport carries
/// every fixture unchanged. `connect` gets the fixture's hub and the run's (virtual) clock, and returns the hub the
/// run uses and what to do once the run has ended.
public struct FixtureHubTransport: Sendable {
    /// Gets the fixture's hub and the run's clock; returns the hub the run uses, and what to do once the run has
    /// ended.
    public var connect: @Sendable (_ hub: any Hub, _ clock: any WorkflowClock) async throws -> (any Hub, @Sendable () async -> Void)

    /// A transport that puts the fixture's hub behind `connect`.
    public init(connect: @escaping @Sendable (any Hub, any WorkflowClock) async throws -> (any Hub, @Sendable () async -> Void)) {
        self.connect = connect
    }
}

/// Collects a run's events and names each state entered as `visitedStates` does.
final class RunRecorder: Sendable {
    private struct State {
        var events: [RunEvent] = []
        var stack: WorkflowStack
    }

    private let state: Mutex<State>

    init(root: Workflow) {
        state = Mutex(State(stack: WorkflowStack(root: root)))
    }

    /// Records an event; for `stateEntered`, returns the qualified state.
    func record(_ event: RunEvent) -> String? {
        state.withLock { state in
            state.events.append(event)
            _ = state.stack.locate(event)
            if case .stateEntered = event.kind { return state.stack.qualifiedState }
            return nil
        }
    }

    var events: [RunEvent] { state.withLock { $0.events } }
}

/// Why a fixture's run could not start.
public struct FixtureSetupError: Error, Sendable, Hashable {
    /// What was wrong: `home` or `inputs`.
    public var subject: String
    /// What a run needs, in words.
    public var expected: String
    /// What the fixture gave, in words.
    public var actual: String
}
