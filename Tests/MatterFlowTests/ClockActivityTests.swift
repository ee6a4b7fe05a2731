import MatterFlow
import Testing

/// The primitives that keep virtual time's bookkeeping: each keeps the count of working tasks balanced on every
/// path, and none lets time pass between a wake and the woken task running.
@Suite struct ClockActivityTests {
    struct Refusal: Error {}

    @Test func aTaskWokenOffTheClockRunsBeforeTimeMovesOn() async {
        let clock = VirtualClock()
        let hold = ClockHold(clock)
        // Another sleeper whose deadline comes one second after the wake: the woken task must see the wake's time.
        let later = clock.task { try? await clock.sleep(for: .seconds(3)) }
        let woken = clock.task { () -> (Int, Duration) in
            let value = await clock.waitOffClock { (waker: ClockWaker<Int>) in
                _ = clock.scheduleTimer(after: .seconds(2)) { waker.wake(42) }
            }
            return (value, clock.now)
        }
        hold.release()
        let (value, seenAt) = await woken.value
        await later.value
        #expect(value == 42)
        #expect(seenAt == .seconds(2))
        #expect(clock.now == .seconds(3))
        #expect(clock.activeTasks == 0)
    }

    @Test func aWakeFromInsideTheWaitsStartReturnsAtOnce() async {
        let clock = VirtualClock()
        let value = await clock.working {
            await clock.waitOffClock { (waker: ClockWaker<String>) in waker.wake("early") }
        }
        #expect(value == "early")
        #expect(clock.activeTasks == 0)
        #expect(clock.now == .zero)
    }

    @Test func aTasksEndPassesItsActivityToTheCallerWaitingThroughAHandover() async {
        let clock = VirtualClock()
        let later = clock.task { try? await clock.sleep(for: .milliseconds(1500)) }
        let seen = await clock.working { () -> [Duration] in
            let handover = ClockHandover()
            let task = clock.task(handingOverTo: handover) { () -> Duration in
                try? await clock.sleep(for: .seconds(1))
                return clock.now
            }
            let ended = await handover.wait(on: clock) { await task.value }
            // The caller runs at the task's end time, before the other sleeper's deadline: time could not move
            // between the task's end and the caller going on.
            return [ended, clock.now]
        }
        await later.value
        #expect(seen == [.seconds(1), .seconds(1)])
        #expect(clock.now == .milliseconds(1500))
        #expect(clock.activeTasks == 0)
    }

    @Test func aHandoverAwaitedAfterTheTaskEndedKeepsTheCallersOwnActivity() async {
        let clock = VirtualClock()
        let handover = ClockHandover()
        let task = clock.task(handingOverTo: handover) { 7 }
        _ = await task.value
        let value = await clock.working { await handover.wait(on: clock) { await task.value } }
        #expect(value == 7)
        #expect(clock.activeTasks == 0)
    }

    @Test func aGroupChildsEndPassesItsActivityToTheOwner() async {
        let clock = VirtualClock()
        let seen = await clock.working { () -> [Duration] in
            let later = clock.task { try? await clock.sleep(for: .milliseconds(1500)) }
            let times = await withTaskGroup(of: Duration.self, returning: [Duration].self) { group in
                clock.addTask(to: &group) {
                    try? await clock.sleep(for: .seconds(1))
                    return clock.now
                }
                var times: [Duration] = []
                while let ended = await clock.next(in: &group) {
                    // The owner runs at the child's end time, before the other sleeper's deadline.
                    times.append(ended)
                    times.append(clock.now)
                }
                return times
            }
            await later.value
            return times
        }
        #expect(seen == [.seconds(1), .seconds(1)])
        #expect(clock.activeTasks == 0)
    }

    @Test func workThatThrowsStillEndsItsActivity() {
        let clock = VirtualClock()
        #expect(throws: Refusal.self) {
            try clock.working { () throws(Refusal) -> Int in throw Refusal() }
        }
        #expect(clock.activeTasks == 0)
    }

    @Test func aHoldKeepsTimeStillUntilReleasedOnce() async {
        let clock = VirtualClock()
        let hold = ClockHold(clock)
        let sleeper = clock.task { try? await clock.sleep(for: .seconds(5)) }
        // The sleeper waits; time stays where it is while the hold is held.
        while clock.sleeperCount == 0 { await Task.yield() }
        #expect(clock.now == .zero)
        hold.release()
        hold.release()
        await sleeper.value
        #expect(clock.now == .seconds(5))
        #expect(clock.activeTasks == 0)
    }
}
