import MatterFlow
import MatterFlowJSON
import Synchronization
import Testing

/// An event that arrives in the very instant a wait times out is kept for the run's next wait, not lost.
@Suite struct EventAtTimeoutTests {
    /// Two waits for the same event; the first one's timeout leads to the second. The output is the session ID of
    /// the event the run received.
    static let workflow = #"""
        {"workflow": "t", "version": 1, "start": "first", "states": {
          "first": {"type": "wait", "event": "commissioningSessionExpired", "timeoutSeconds": 5, "result": "e",
                    "on": {"leaseExpired": "got"}, "onTimeout": "second"},
          "second": {"type": "wait", "event": "commissioningSessionExpired", "timeoutSeconds": 5, "result": "e",
                     "on": {"leaseExpired": "got"}, "onTimeout": "none"},
          "got": {"type": "succeed", "output": "${vars.e.sessionID}"},
          "none": {"type": "fail", "code": "deadlineExceeded", "message": "no event came"}
        }}
        """#

    static func expiry(_ hub: ScriptedHub, session: String) {
        hub.emit("commissioningSessionExpired", value: "leaseExpired", fields: ["sessionID": .string(session), "phase": "requested"])
    }

    @Test func anEventDeliveredAsTheWaitTimesOutGoesToTheNextWait() async throws {
        let hub = ScriptedHub()
        let clock = TimeoutInstantClock()
        // The hub reports the expiry in the instant the first wait's timeout decides it, before the wait has let
        // go of its place in the inbox.
        clock.atTimeout { Self.expiry(hub, session: "at-timeout") }
        let handle = try WorkflowEngine().start(
            try loadWorkflow(Self.workflow), inputs: [:], on: hub,
            options: RunOptions(structureID: "s", clock: clock, random: SeededRandomSource(seed: 7)))
        for await event in handle.events {
            guard case .waitStarted(let state, _, _) = event.kind else { continue }
            if state == "first" {
                await clock.base.waitForSleepers(1)
                clock.base.advance(by: .seconds(5))
            } else {
                // A later event, so that a run that lost the first one still ends.
                Self.expiry(hub, session: "later")
            }
        }
        let result = await handle.result
        #expect(result.outcome == .succeeded)
        #expect(result.output == "at-timeout", "the event that came with the timeout was dropped")
        #expect(result.visitedStates == ["first", "second", "got"])
    }
}

/// A manual clock whose timers, once fired, run a one-shot hook when they are cancelled: that is the instant a
/// timeout has decided a race and the race is cleaning up after it.
final class TimeoutInstantClock: WorkflowClock {
    let base = ManualClock()
    private let hook = Mutex<(@Sendable () -> Void)?>(nil)

    /// Runs `action` once, in the instant the next timer that fires is cleaned up.
    func atTimeout(_ action: @escaping @Sendable () -> Void) {
        hook.withLock { $0 = action }
    }

    var now: Duration { base.now }

    func sleep(for duration: Duration) async throws {
        try await base.sleep(for: duration)
    }

    func scheduleTimer(after duration: Duration, _ action: @escaping @Sendable () -> Void) -> any ClockTimer {
        let fired = Flag()
        let inner = base.scheduleTimer(after: duration) {
            fired.set()
            action()
        }
        return HookedTimer(inner: inner, fired: fired) { [self] in
            hook.withLock { $0.take() }?()
        }
    }

    final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
    }

    struct HookedTimer: ClockTimer {
        let inner: any ClockTimer
        let fired: Flag
        let hook: @Sendable () -> Void

        func cancel() {
            inner.cancel()
            if fired.isSet { hook() }
        }
    }
}
