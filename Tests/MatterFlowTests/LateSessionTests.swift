import MatterFlow
import MatterFlowJSON
import Synchronization
import TestGates
import Testing

/// A session-opening call that times out (or that a cancel stops) but that the hub still serves: the workflow never
/// sees the session, so the run releases it itself before it ends, naming it, unless the run holds one of its own.
@Suite struct LateSessionTests {
    let engine = WorkflowEngine()

    /// The shipped `prepare.json`, whose prepare routes every error, its timeout too, to a fail state.
    static func prepareWorkflow() throws -> Workflow {
        try WorkflowEngine().load(path: Repository.workflow("prepare.json"))
    }

    /// Moves the clock through prepare's 30 s timeout; `thenOpen` opens the hub's gate during the 5 s grace period
    /// that follows (the call ends late but in time for its race), otherwise the grace period passes too and the
    /// call is kept as abandoned, still running on the hub.
    static func passPrepareTimeout(_ clock: ManualClock, gate: ScriptedHub.Gate, openDuringGrace: Bool) async {
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        await clock.waitForSleepers(1)
        if openDuringGrace {
            gate.open()
        } else {
            clock.advance(by: .seconds(5))
        }
    }

    static let released = "the hub opened commissioning session \"session-1\" for prepareCommissioning in state prepare after "
        + "the run had stopped waiting for it; the run released it (cancelCommissioning) before ending"

    /// Runs `prepare.json` on a hub whose prepare answers when `gate` opens; `onPrepare` runs when the prepare
    /// starts, `onWarning` on each warning. Returns the result and the warnings as they were reported.
    func runPrepare(
        on hub: ScriptedHub, gate: ScriptedHub.Gate, clock: ManualClock, onPrepare: () async -> Void,
        onWarning: (String) -> Void = { _ in }
    ) async throws -> (RunResult, [String]) {
        hub.script("prepareCommissioning", [.afterGate(gate)])
        let handle = try engine.start(
            try Self.prepareWorkflow(), on: hub, options: RunOptions(structureID: "s", clock: clock, random: SeededRandomSource(seed: 7)))
        var warnings: [String] = []
        for await event in handle.events {
            switch event.kind {
            case .hubCallStarted(_, "prepareCommissioning", _, _):
                await onPrepare()
            case .warning(_, let message):
                warnings.append(message)
                onWarning(message)
            default:
                break
            }
        }
        return (await handle.result, warnings)
    }

    /// Runs `workflow` (`prepare.json` by default) with `engine` on `hub`, in front of `scripted`, whose prepare
    /// answers during the grace period after its timeout, having opened a session: a late session for the run's end.
    /// With `point`, the run is resumed there instead of started.
    func runWithLateSession(
        on hub: any Hub, scripted: ScriptedHub, clock: ManualClock, engine: WorkflowEngine? = nil, workflow: Workflow? = nil,
        resumingAt point: ResumePoint? = nil
    ) async throws -> RunResult {
        let gate = ScriptedHub.Gate()
        scripted.script("prepareCommissioning", [.afterGate(gate)])
        let engine = engine ?? self.engine
        let workflow = try workflow ?? Self.prepareWorkflow()
        let options = RunOptions(structureID: "s", clock: clock, random: SeededRandomSource(seed: 7))
        let handle = try point.map { point throws(FlowError) in try engine.resume(workflow, from: point, on: hub, options: options) }
            ?? engine.start(workflow, on: hub, options: options)
        for await event in handle.events {
            if case .hubCallStarted(_, "prepareCommissioning", _, _) = event.kind {
                await Self.passPrepareTimeout(clock, gate: gate, openDuringGrace: true)
            }
        }
        return await handle.result
    }

    @Test func aPrepareThatAnswersAfterItsTimeoutIsReleasedBeforeTheRunEnds() async throws {
        let hub = ScriptedHub()
        let gate = ScriptedHub.Gate()
        let clock = ManualClock()
        let (result, warnings) = try await runPrepare(on: hub, gate: gate, clock: clock) {
            await Self.passPrepareTimeout(clock, gate: gate, openDuringGrace: true)
        }
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .actionTimedOut, "the run's error is still its timeout")
        #expect(hub.calls.filter { $0 != "status" } == ["prepareCommissioning", "cancelCommissioning"])
        #expect(hub.contexts.last??.expectedSessionID == "session-1", "the release names the late session")
        #expect(!hub.session.isActive, "the structure is free again")
        #expect(result.warnings == [Self.released])
        #expect(warnings == [Self.released], "the warning is reported before the run's end")
    }

    @Test func theRunWaitsForAPrepareTheHubStillRunsAfterItsGracePeriodThenReleasesIt() async throws {
        let hub = ScriptedHub()
        let gate = ScriptedHub.Gate()
        let clock = ManualClock()
        let (result, _) = try await runPrepare(on: hub, gate: gate, clock: clock) {
            await Self.passPrepareTimeout(clock, gate: gate, openDuringGrace: false)
        } onWarning: { message in
            guard message.contains("has not ended prepareCommissioning in state prepare") else { return }
            #expect(hub.calls.filter { $0 != "status" } == ["prepareCommissioning"], "nothing is released before the call ends")
            gate.open()
        }
        #expect(hub.calls.filter { $0 != "status" } == ["prepareCommissioning", "cancelCommissioning"])
        #expect(hub.overlapping == [])
        #expect(!hub.session.isActive)
        #expect(result.warnings.count == 2)
        #expect(result.warnings.last == Self.released)
    }

    @Test func aPrepareThatEndsWithoutASessionLeavesNothingToRelease() async throws {
        let hub = ScriptedHub()
        hub.script("prepareCommissioning", [.hang])
        let clock = ManualClock()
        let handle = try engine.start(
            try Self.prepareWorkflow(), on: hub, options: RunOptions(structureID: "s", clock: clock, random: SeededRandomSource(seed: 7)))
        for await event in handle.events {
            if case .hubCallStarted(_, "prepareCommissioning", _, _) = event.kind {
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(30))
            }
        }
        let result = await handle.result
        #expect(result.error?.cause == .actionTimedOut)
        #expect(!hub.calls.contains("cancelCommissioning"))
        #expect(result.warnings.isEmpty)
    }

    /// A pool on a manual clock whose hub's prepare answers when the gate opens.
    static func poolWithGatedPrepare() -> (pool: RunPool, hub: ScriptedHub, gate: ScriptedHub.Gate, clock: ManualClock) {
        let hub = ScriptedHub()
        let gate = ScriptedHub.Gate()
        hub.script("prepareCommissioning", [.afterGate(gate)])
        let clock = ManualClock()
        return (RunPool(hub: hub, clock: clock, random: SeededRandomSource(seed: 2)), hub, gate, clock)
    }

    @Test func aPoolsRunReleasesALateSessionToo() async throws {
        let (pool, hub, gate, clock) = Self.poolWithGatedPrepare()
        let run = try pool.submit(try Self.prepareWorkflow(), structureID: "s")
        await Self.passPrepareTimeout(clock, gate: gate, openDuringGrace: true)
        let result = try #require(await pool.result(of: run))
        #expect(result.error?.cause == .actionTimedOut)
        #expect(hub.calls.filter { $0 != "status" } == ["prepareCommissioning", "cancelCommissioning"])
        #expect(hub.contexts.last??.expectedSessionID == "session-1")
        #expect(!hub.session.isActive)
        #expect(result.warnings == [Self.released])
    }

    @Test func aPoolsLateReleaseIsKeyedByItsOwnRunWhateverTaskStartedIt() async throws {
        let (pool, hub, gate, clock) = Self.poolWithGatedPrepare()
        // Submitted, and its timeout's clock moved, from inside another run's call.
        let foreign = HubCallContext(runID: "other-run", idempotencyKey: "other-run/3")
        let run = try HubCallContext.$current.withValue(foreign) {
            try pool.submit(try Self.prepareWorkflow(), structureID: "s", runID: "pooled")
        }
        await HubCallContext.$current.withValue(foreign) {
            await Self.passPrepareTimeout(clock, gate: gate, openDuringGrace: true)
        }
        let result = try #require(await pool.result(of: run))
        #expect(result.warnings == [Self.released])
        let release = try #require(hub.contexts.last ?? nil)
        #expect(release.runID == "pooled")
        #expect(release.idempotencyKey == HubCallContext.lateReleaseKey(runID: "pooled", sessionID: "session-1"))
    }

    @Test func theReleaseIsTheCatalogsOwnSoAServicesWrappingOfItApplies() async throws {
        let releases = MutexBox(0)
        var catalog = OperationCatalog.standard
        let original = try #require(catalog["cancelCommissioning"])
        catalog.add(
            original.invoking { hub, structure, arguments in
                releases.mutate { $0 += 1 }
                return try await original.call(hub: hub, structure: structure, arguments: arguments)
            })
        let engine = WorkflowEngine(catalog: catalog)
        let workflow = try engine.load(path: Repository.workflow("prepare.json"))
        let hub = ScriptedHub()
        let result = try await runWithLateSession(on: hub, scripted: hub, clock: ManualClock(), engine: engine, workflow: workflow)
        #expect(releases.value == 1, "the late release went through the run's catalog")
        #expect(result.warnings == [Self.released])
    }

    @Test func aPrepareACancelStoppedThatTheHubServesAfterItsGracePeriodIsReleasedBeforeTheRunEnds() async throws {
        let hub = ScriptedHub()
        let gate = ScriptedHub.Gate()
        hub.script("prepareCommissioning", [.afterGate(gate)])
        let clock = ManualClock()
        let handle = try engine.start(
            try Self.prepareWorkflow(), on: hub, options: RunOptions(structureID: "s", clock: clock, random: SeededRandomSource(seed: 7)))
        for await event in handle.events {
            switch event.kind {
            case .hubCallStarted(_, "prepareCommissioning", _, _):
                handle.cancel()
                // The call's 5 s grace period passes; the hub still runs it after.
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(5))
            case .warning(_, let message) where message.contains("has not ended prepareCommissioning"):
                #expect(message.hasSuffix("before the run ends"), "\(message)")
                gate.open()
            default:
                break
            }
        }
        let result = await handle.result
        #expect(result.outcome == .cancelled)
        #expect(hub.calls.filter { $0 != "status" } == ["prepareCommissioning", "cancelCommissioning"])
        #expect(!hub.session.isActive)
        #expect(result.warnings.last == Self.released)
    }

    /// A resumed run that opened a session before it stopped but no longer holds it (its workflow completed it)
    /// releases a session its hub opens late, as a fresh run does; one still holding its session keeps the hold.
    @Test(arguments: [false, true])
    func aResumedRunReleasesALateSessionUnlessItHoldsItsOwn(holding: Bool) async throws {
        let scripted = ScriptedHub()
        let prepare = RunCheckpoint(workflowPath: ["prepare"], state: "prepare", inputs: [:], variables: [:])
        let point = ResumePoint(levels: [prepare], cancel: false, callsBefore: 4, sessionID: "session-0", holdsSession: holding)
        let result = try await runWithLateSession(on: scripted, scripted: scripted, clock: ManualClock(), resumingAt: point)
        #expect(result.error?.cause == .actionTimedOut)
        if holding {
            #expect(!scripted.calls.contains("cancelCommissioning"), "the run holds a session of its own: \(scripted.calls)")
            #expect(result.warnings.isEmpty, "\(result.warnings)")
        } else {
            #expect(scripted.calls.filter { $0 != "status" } == ["prepareCommissioning", "cancelCommissioning"])
            #expect(scripted.contexts.last??.expectedSessionID == "session-1", "the release names the late session")
            #expect(!scripted.session.isActive, "the structure is free again")
            #expect(result.warnings == [Self.released])
        }
    }

    @Test func aSessionTheHubNoLongerHoldsIsNotReleasedAgain() async throws {
        let scripted = ScriptedHub()
        let result = try await runWithLateSession(on: NoActiveSession(base: scripted), scripted: scripted, clock: ManualClock())
        #expect(!scripted.calls.contains("cancelCommissioning"), "the hub shows no such session: nothing is called")
        #expect(result.warnings.first?.hasSuffix("the hub had already ended it when the run was to release it before ending") == true)
    }
}

extension LateSessionTests {
    @Test(arguments: [false, true])
    func aSessionTheHubCannotAnswerForIsNotReleasedBlind(hangs: Bool) async throws {
        let scripted = ScriptedHub()
        let hub = UnanswerableActiveSession(base: scripted, hangs: hangs)
        let clock = ManualClock()
        // Once the question is asked, it waits out the release's own timeout (cancelCommissioning's) and is given up.
        let giveUp = Task {
            for await _ in hub.asked.stream where hangs {
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(30))
            }
        }
        defer { giveUp.cancel() }
        let result = try await runWithLateSession(on: hub, scripted: scripted, clock: clock)
        #expect(!scripted.calls.contains("cancelCommissioning"), "released blind: \(scripted.calls)")
        #expect(scripted.session.isActive, "left to the hub's session lease")
        let reason = hangs ? "no answer within 30 s" : "the hub is not reachable"
        #expect(
            result.warnings.first?.contains("the hub could not say whether it still holds it (\(reason)), and it is not released blind") == true,
            "\(result.warnings)")
    }
}

/// A hub whose prepare opens the session, then answers in a form the run cannot read (`hubFailure`, in doubt), and
/// which tells its active session with the run that opened it as owner (or another owner, or cannot tell at all).
final class UnreadablePrepareHub: ForwardingHub, RecoverableHub {
    let base: any Hub
    let scripted: ScriptedHub
    let ownerOverride: String?
    let recoverable: Bool
    private let owner = Mutex<String?>(nil)

    init(_ scripted: ScriptedHub, ownerOverride: String? = nil, recoverable: Bool = true) {
        self.base = scripted
        self.scripted = scripted
        self.ownerOverride = ownerOverride
        self.recoverable = recoverable
    }

    func prepareCommissioning(structure: StructureID) async throws -> String {
        _ = try await scripted.prepareCommissioning(structure: structure)
        owner.withLock { $0 = ownerOverride ?? HubCallContext.current?.runID }
        throw FlowError(.hubFailure, "the hub's answer to prepareCommissioning: member \"sessionID\" must be a string; got integer")
    }

    func activeSession(structure: StructureID) async throws -> HubSessionInfo? {
        guard recoverable else { throw FlowError(.hubFailure, "the hub does not offer activeSession") }
        let active = try await scripted.status(structure: structure).activeSession
        return active ? HubSessionInfo(sessionID: "session-1", phase: .prepared, owner: owner.withLock { $0 }, pendingDeviceIDs: []) : nil
    }
}

/// The same prepare on a hub that cannot tell its active session at all (no ``RecoverableHub``).
struct UnreadablePrepareOnPlainHub: ForwardingHub {
    let base: any Hub
    let scripted: ScriptedHub

    init(_ scripted: ScriptedHub) {
        self.base = scripted
        self.scripted = scripted
    }

    func prepareCommissioning(structure: StructureID) async throws -> String {
        _ = try await scripted.prepareCommissioning(structure: structure)
        throw FlowError(.hubFailure, "the hub's answer to prepareCommissioning could not be read")
    }
}

extension LateSessionTests {
    func runUnreadablePrepare(_ hub: any Hub) async throws -> RunResult {
        let handle = try engine.start(
            try Self.prepareWorkflow(), on: hub, options: RunOptions(structureID: "s", clock: ManualClock(), random: SeededRandomSource(seed: 7)))
        for await _ in handle.events {}
        return await handle.result
    }

    @Test("a prepare the hub served but answered unreadably: the session the hub holds for the run is released before it ends")
    func anUnreadablePrepareAnswerIsReleased() async throws {
        let scripted = ScriptedHub()
        let result = try await runUnreadablePrepare(UnreadablePrepareHub(scripted))
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .hubFailure)
        #expect(scripted.count("cancelCommissioning") == 1)
        #expect(try await scripted.status(structure: "s").activeSession == false)
        #expect(result.sessionsInDoubt.isEmpty, "released")
        #expect(
            result.warnings == [
                "the hub holds commissioning session \"session-1\" for this run, opened by prepareCommissioning in state prepare, "
                    + "whose answer the run could not read; the run released it (cancelCommissioning) before ending"
            ])
    }

    @Test("another client's session is left alone; a hub that cannot be asked gets a warning saying what to do")
    func anUnreadablePrepareAnswerOfAnotherOwnerOrUnaskableHub() async throws {
        let other = ScriptedHub()
        let foreign = try await runUnreadablePrepare(UnreadablePrepareHub(other, ownerOverride: "run-someone-else"))
        #expect(other.count("cancelCommissioning") == 0)
        #expect(foreign.warnings.isEmpty, "\(foreign.warnings)")
        let unaskable = ScriptedHub()
        let blind = try await runUnreadablePrepare(UnreadablePrepareHub(unaskable, recoverable: false))
        #expect(unaskable.count("cancelCommissioning") == 0)
        #expect(blind.warnings.count == 1)
        #expect(blind.sessionsInDoubt == blind.warnings.map { SessionInDoubt(sessionID: nil, reason: $0) })
        #expect(
            blind.warnings.first?.hasPrefix(
                "the run could not read the answer to prepareCommissioning in state prepare, so the hub may hold a commissioning session opened for it, and it could not find out (asking the hub for its active session failed: the hub does not offer activeSession)") == true,
            "\(blind.warnings)")
        let plain = ScriptedHub()
        let unasked = try await runUnreadablePrepare(UnreadablePrepareOnPlainHub(plain))
        #expect(plain.count("cancelCommissioning") == 0)
        #expect(
            unasked.warnings.first?.contains("it could not find out (the hub cannot tell its active session (it offers no activeSession))") == true,
            "\(unasked.warnings)")
    }
}

/// A hub whose answer about the active session fails, or never comes.
struct UnanswerableActiveSession: ForwardingHub, RecoverableHub {
    let base: any Hub
    let hangs: Bool
    /// Told each time the hub is asked.
    let asked = AsyncStream<Void>.makeStream()

    func activeSession(structure: StructureID) async throws -> HubSessionInfo? {
        asked.continuation.yield()
        if hangs {
            // Never answers: waits until its task is cancelled.
            let (never, continuation) = AsyncStream<Void>.makeStream()
            for await _ in never {}
            continuation.finish()
        }
        throw FlowError(.hubUnreachable, "the hub is not reachable")
    }
}

/// A hub that tells recovery no session is active, whatever its base holds.
struct NoActiveSession: ForwardingHub, RecoverableHub {
    let base: any Hub

    func activeSession(structure: StructureID) async throws -> HubSessionInfo? { nil }
}
