@testable import MatterFlow
import MatterFlowJSON
import TestGates
import Testing

/// A run makes its hub calls on one task of its own while the hub answers without suspending, and each call on a
/// task of its own once a call has suspended, so that a call the hub keeps can be left behind.
@Suite(.timeLimit(.minutes(1))) struct CallSegmentTests {
    let engine = WorkflowEngine()

    /// A guard's status check, then three calls.
    static let workflow = #"""
        {"workflow": "t", "version": 1, "start": "first", "states": {
          "first": {"type": "action", "operation": "fetchRooms", "guards": ["hubReachable"], "next": "second"},
          "second": {"type": "action", "operation": "fetchRooms", "next": "third"},
          "third": {"type": "action", "operation": "fetchRooms", "next": "done"},
          "done": {"type": "succeed"}
        }}
        """#

    @Test func aHubThatNeverSuspendsServesTheWholeRunOnOneTask() async throws {
        let hub = ScriptedHub()
        let result = try await engine.run(
            try loadWorkflow(Self.workflow), on: hub, options: RunOptions(structureID: "s", clock: ManualClock()))
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(hub.calls == ["status", "fetchRooms", "fetchRooms", "fetchRooms"])
        // Every call on the run's own task (named after the run), none in a race of its own (unnamed) and none on
        // the caller's task, which must stay free.
        let runTask = RunDriver.segmentName(result.runID)
        #expect(hub.servingTasks == Array(repeating: runTask, count: 4), "\(hub.servingTasks)")
        #expect(Task.name != runTask)
    }

    @Test func aCallAfterTheFirstSuspensionThatOutlivesItsTimeoutIsLeftBehind() async throws {
        let hub = ScriptedHub()
        let clock = ManualClock()
        let gate = ScriptedHub.Gate()
        // The first fetchRooms suspends on the clock; the second ignores its cancellation until the gate opens.
        hub.script("fetchRooms", [.sleep(.seconds(1), clock), .afterGate(gate)])
        let workflow = try loadWorkflow(#"""
            {"workflow": "t", "version": 1, "start": "first", "states": {
              "first": {"type": "action", "operation": "fetchRooms", "guards": ["hubReachable"], "next": "second"},
              "second": {"type": "action", "operation": "fetchRooms", "timeoutSeconds": 5, "next": "ok",
                         "onError": [{"errors": ["*"], "next": "late"}]},
              "late": {"type": "fail", "code": "deadlineExceeded", "message": "the rooms did not come"},
              "ok": {"type": "succeed"}
            }}
            """#)
        let handle = try engine.start(workflow, inputs: [:], on: hub, options: RunOptions(structureID: "s", clock: clock))
        var fetches = 0
        for await event in handle.events {
            guard case .hubCallStarted(_, "fetchRooms", _, _) = event.kind else { continue }
            fetches += 1
            if fetches == 1 {
                // Its timeout's timer and the hub's sleep.
                await clock.waitForSleepers(2)
                clock.advance(by: .seconds(1))
            } else {
                await clock.passTimeoutAndGrace()
            }
        }
        let result = await handle.result
        #expect(result.outcome == .failed)
        #expect(result.error?.code == .deadlineExceeded)
        #expect(hub.calls == ["status", "fetchRooms", "fetchRooms"])
        // The status check and the first fetchRooms were made on the run's first task, the second in a race.
        let runTask = RunDriver.segmentName(result.runID)
        #expect(hub.servingTasks == [runTask, runTask, nil], "\(hub.servingTasks)")
        gate.open()
    }

    @Test func aCallThatSuspendedAndOutlivesItsTimeoutLeavesTheRunFreeToGoOn() async throws {
        let hub = ScriptedHub()
        let clock = ManualClock()
        let gate = ScriptedHub.Gate()
        hub.script("fetchRooms", [.afterGate(gate)])
        let workflow = try loadWorkflow(#"""
            {"workflow": "t", "version": 1, "start": "rooms", "states": {
              "rooms": {"type": "action", "operation": "fetchRooms", "timeoutSeconds": 5, "next": "ok",
                        "onError": [{"errors": ["*"], "next": "late"}]},
              "late": {"type": "fail", "code": "deadlineExceeded", "message": "the rooms did not come"},
              "ok": {"type": "succeed"}
            }}
            """#)
        async let result = engine.run(workflow, on: hub, options: RunOptions(structureID: "s", clock: clock))
        // The call's timeout, then its grace period: the hub still holds the call, which ignores cancellation, and
        // the caller gets the run's end all the same.
        await clock.passTimeoutAndGrace()
        let ended = try await result
        #expect(ended.outcome == .failed)
        #expect(ended.error?.code == .deadlineExceeded)
        gate.open()
    }

    // MARK: - The segment's protocol
    //
    // The segment's waits resume only when the protocol provides what they wait for; each is bounded (`bounded`), so
    // a broken protocol fails these tests after its limit (30 s) rather than holding the suite (the time limit cannot
    // end a wait that ignores cancellation).

    /// A segment's task, for the protocol's tests: one that does nothing (cancelling it, as a decision does, is harmless).
    static func idleTask() -> Task<Void, Never> { Task {} }

    @Test func aSegmentMakesCallsInlineOnlyUntilItsTaskSuspends() {
        let clock = ManualClock()
        let segment = CallSegment(clock: clock)
        #expect(segment.beginCall(timeout: .seconds(5), cancellable: true))
        #expect(segment.endCall(.success(.json(.null))))
        #expect(segment.suspended(task: Self.idleTask(), signal: CancellationSignal()) == nil)
        #expect(clock.sleeperCount == 0, "nothing in flight: nothing armed")
        #expect(!segment.beginCall(timeout: .seconds(5), cancellable: true), "once suspended, calls are raced")
    }

    @Test func aCallTheSegmentIsSuspendedInIsArmedAndDisarmedWhenItEnds() {
        let clock = ManualClock()
        let segment = CallSegment(clock: clock)
        #expect(segment.beginCall(timeout: .seconds(5), cancellable: true))
        #expect(segment.suspended(task: Self.idleTask(), signal: CancellationSignal()) == nil)
        #expect(clock.nextDeadline == .seconds(5), "the call's timeout is armed")
        #expect(segment.endCall(.success(.json(.null))), "a call that ends in time keeps the run")
        #expect(clock.sleeperCount == 0, "and its timer goes")
    }

    @Test func aTimeoutTakesTheRunOverAndTheLateEndGoesToTheTaker() async {
        let clock = ManualClock()
        let segment = CallSegment(clock: clock)
        #expect(segment.beginCall(timeout: .seconds(5), cancellable: true))
        #expect(segment.suspended(task: Self.idleTask(), signal: CancellationSignal()) == nil)
        clock.advance(by: .seconds(5))
        #expect(await bounded({ await segment.next() }) == .timedOut)
        #expect(!segment.endCall(.success(.json("late"))), "the segment must leave the run alone")
        guard case .success(.json(let value))? = await bounded({ await segment.lostCallEnd() }) else {
            Issue.record("the lost call's end did not reach the taker")
            return
        }
        #expect(value == "late")
    }

    @Test func aCancelTakesTheRunOverUnlessTheCallIsOnTheCancelPath() async {
        let signal = CancellationSignal()
        let segment = CallSegment(clock: ManualClock())
        #expect(segment.beginCall(timeout: .seconds(5), cancellable: true))
        #expect(segment.suspended(task: Self.idleTask(), signal: signal) == nil)
        signal.cancel()
        #expect(await bounded({ await segment.next() }) == .cancelled)

        let shielded = CallSegment(clock: ManualClock())
        #expect(shielded.beginCall(timeout: .seconds(5), cancellable: false))
        #expect(shielded.suspended(task: Self.idleTask(), signal: signal) == nil)
        #expect(shielded.endCall(.failure(FlowError(.hubFailure, "x"))), "a call on the cancel path is not taken over")
    }

    @Test func onceSuspendedTheSegmentHandsItsNextWorkOver() async {
        let segment = CallSegment(clock: ManualClock())
        #expect(!segment.handsOver(.checkStatus(GuardCheck(state: "a", cancellable: true))), "before: done inline")
        #expect(segment.handsOver(.delay(.seconds(1), cancellable: true)), "a wait is never the segment's")
        #expect(await bounded({ await segment.next() }) == .handedOver)
        guard case .delay(let duration, _)? = segment.takeWork() else {
            Issue.record("the handed-over work is not the delay")
            return
        }
        #expect(duration == .seconds(1))
    }

    @Test func aCallBegunJustBeforeTheSuspensionIsKnownIsArmedAndACancelAlreadyGivenWins() async {
        // The segment suspended elsewhere (a journal write), and went on to its next call before the task that
        // started it learnt of the suspension; the run's cancel came meanwhile.
        let signal = CancellationSignal()
        signal.cancel()
        let segment = CallSegment(clock: ManualClock())
        #expect(segment.beginCall(timeout: .seconds(5), cancellable: true))
        #expect(segment.suspended(task: Self.idleTask(), signal: signal) == nil)
        #expect(await bounded({ await segment.next() }) == .cancelled)
        #expect(!segment.endCall(.failure(FlowError(.runCancelled, "stopped"))))
    }
}
