import MatterFlow
import MatterFlowJSON
import Synchronization
import TestGates
import Testing

/// A hub call the run abandoned but the hub keeps running: the run's next hub call waits for it (bounded), so the
/// `Hub` contract "never two calls for one run at once" holds for any hub that ends the call within the limit.
@Suite struct AbandonedCallTests {
    let engine = WorkflowEngine()

    /// `rooms` times out after 5 s and its error is routed to `release`, which calls the hub again.
    static let workflow = #"""
        {"workflow": "t", "version": 1, "start": "rooms", "states": {
          "rooms": {"type": "action", "operation": "fetchRooms", "timeoutSeconds": 5, "next": "ok",
                    "onError": [{"errors": ["*"], "next": "release"}]},
          "release": {"type": "action", "operation": "cancelCommissioning", "next": "failed",
                      "onError": [{"errors": ["*"], "next": "failed"}]},
          "ok": {"type": "succeed"},
          "failed": {"type": "fail", "code": "deadlineExceeded", "message": "the rooms did not come"}
        }}
        """#

    /// Runs the workflow against a hub whose `fetchRooms` ignores cancellation until `gate` opens: the clock is
    /// moved through the call's timeout and its grace period; `whileWaiting` runs when the run reports that it
    /// waits for the abandoned call.
    func run(
        hub: ScriptedHub, gate: ScriptedHub.Gate, clock: ManualClock, recording: (any RunRecording)? = nil,
        whileWaiting: @Sendable () async -> Void
    ) async throws -> RunResult {
        hub.script("fetchRooms", [.afterGate(gate)])
        var options = RunOptions(structureID: "s", clock: clock, random: SeededRandomSource(seed: 7))
        options.recording = recording
        let handle = try engine.start(try loadWorkflow(Self.workflow), inputs: [:], on: hub, options: options)
        for await event in handle.events {
            switch event.kind {
            case .hubCallStarted(_, "fetchRooms", _, _):
                await clock.passTimeoutAndGrace()
            case .warning(_, let message) where message.contains("has not ended fetchRooms"):
                await whileWaiting()
            default:
                break
            }
        }
        let result = await handle.result
        gate.open()
        return result
    }

    @Test func theNextCallWaitsForAnAbandonedCallTheHubStillRuns() async throws {
        let hub = ScriptedHub()
        let gate = ScriptedHub.Gate()
        let result = try await run(hub: hub, gate: gate, clock: ManualClock()) {
            // The hub ends the abandoned call only now; the release must not have started before.
            #expect(hub.calls == ["fetchRooms"])
            gate.open()
        }
        #expect(hub.calls == ["fetchRooms", "cancelCommissioning"])
        #expect(hub.overlapping == [], "the release started while the abandoned fetchRooms still ran")
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .workflowFailed)
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.contains("fetchRooms in state rooms") == true)
    }

    @Test func aTimedOutCallTheHubStillCompletesReachesTheRecordingAsALateResult() async throws {
        let hub = ScriptedHub()
        let gate = ScriptedHub.Gate()
        let recording = CallLog()
        _ = try await run(hub: hub, gate: gate, clock: ManualClock(), recording: recording) {
            #expect(recording.late.withLock { $0 }.isEmpty, "nothing is late before the hub ends the call")
            gate.open()
        }
        let started = recording.started.withLock { $0 }
        let late = recording.late.withLock { $0 }
        #expect(started.map(\.operation) == ["fetchRooms", "cancelCommissioning"])
        #expect(late.map(\.key) == [started.first?.key], "the timed-out fetchRooms, under its own key")
        #expect(late.first?.value["rooms"] != nil)
    }

    @Test func aCallTheHubNeverEndsIsGivenUpAfterTheLimitAndReported() async throws {
        let hub = ScriptedHub()
        let gate = ScriptedHub.Gate()
        let clock = ManualClock()
        let result = try await run(hub: hub, gate: gate, clock: clock) {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(29))
            #expect(hub.calls == ["fetchRooms"], "the run waits the whole limit")
            clock.advance(by: .seconds(1))
        }
        #expect(hub.calls == ["fetchRooms", "cancelCommissioning"], "the release still happens")
        #expect(hub.overlapping == ["cancelCommissioning"])
        #expect(result.outcome == .failed)
        #expect(result.warnings.count == 2)
        #expect(result.warnings.last?.contains("Hub contract (one call at a time per run) is not kept") == true)
        #expect(clock.now == .seconds(40))
    }

    @Test func theCancelPathWaitsForTheCallTheCancelAbandoned() async throws {
        let workflow = try loadWorkflow(#"""
            {"workflow": "t", "version": 1, "start": "rooms", "onCancel": "release", "states": {
              "rooms": {"type": "action", "operation": "fetchRooms", "next": "ok"},
              "ok": {"type": "succeed"},
              "release": {"type": "action", "operation": "cancelCommissioning", "next": "cancelled",
                          "onError": [{"errors": ["*"], "next": "cancelled"}]},
              "cancelled": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "released"}
            }}
            """#)
        let hub = ScriptedHub()
        let gate = ScriptedHub.Gate()
        hub.script("fetchRooms", [.afterGate(gate)])
        let clock = TimerLogClock()
        let handle = try engine.start(
            workflow, on: hub, options: RunOptions(structureID: "s", clock: clock, random: SeededRandomSource(seed: 7)))
        for await event in handle.events {
            switch event.kind {
            case .hubCallStarted(_, "fetchRooms", _, _):
                handle.cancel()
                // The cancelled call's 5 s grace period (the call's own timeout is 10 s): the hub still runs it after.
                await clock.waitForTimer(of: .seconds(5))
                clock.base.advance(by: .seconds(5))
            case .warning(_, let message) where message.contains("has not ended fetchRooms"):
                #expect(hub.calls == ["fetchRooms"], "the release started before the abandoned call ended")
                gate.open()
            default:
                break
            }
        }
        let result = await handle.result
        gate.open()
        #expect(result.outcome == .cancelled)
        #expect(hub.calls == ["fetchRooms", "cancelCommissioning"])
        #expect(hub.overlapping == [], "the cancel path's release ran while the abandoned fetchRooms still ran")
        #expect(result.warnings.count == 1)
    }
}

/// A manual clock that lets a test wait until a timer of a given duration has been scheduled.
final class TimerLogClock: WorkflowClock {
    let base = ManualClock()
    private let state = Mutex<(scheduled: [Duration], waiters: [(Duration, CheckedContinuation<Void, Never>)])>(([], []))

    var now: Duration { base.now }

    func sleep(for duration: Duration) async throws {
        try await base.sleep(for: duration)
    }

    func scheduleTimer(after duration: Duration, _ action: @escaping @Sendable () -> Void) -> any ClockTimer {
        let timer = base.scheduleTimer(after: duration, action)
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let index = state.waiters.firstIndex(where: { $0.0 == duration }) { return state.waiters.remove(at: index).1 }
            state.scheduled.append(duration)
            return nil
        }
        waiter?.resume()
        return timer
    }

    /// Returns once a timer of `duration` has been scheduled that no earlier call of this method returned for.
    func waitForTimer(of duration: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if let index = state.scheduled.firstIndex(of: duration) {
                    state.scheduled.remove(at: index)
                    return true
                }
                state.waiters.append((duration, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

/// A recording that keeps which calls started and which results came late.
final class CallLog: RunRecording {
    struct Call: Sendable {
        var operation: String
        var key: String
        var value: JSONValue = .null
    }

    let started = Mutex<[Call]>([])
    let late = Mutex<[Call]>([])

    func record(_ event: RunEvent) {}
    func record(_ checkpoint: RunCheckpoint) {}
    func callStarting(_ call: PreparedCall) async -> Result<JSONValue, FlowError>? {
        started.withLock { $0.append(Call(operation: call.operation.name, key: call.context.idempotencyKey)) }
        return nil
    }
    func callEnded(_ call: PreparedCall, value: JSONValue?) async {}
    func lateResult(_ call: PreparedCall, value: JSONValue) {
        late.withLock { $0.append(Call(operation: call.operation.name, key: call.context.idempotencyKey, value: value)) }
    }
}
