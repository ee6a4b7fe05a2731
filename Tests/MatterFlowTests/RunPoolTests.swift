import Foundation
import MatterFlowJSON
import Synchronization
import TestGates
import Testing

@testable import MatterFlow

/// Runs held as data in a ``RunPool``: every waiting run ends as its own event says, a cancelled waiting run takes
/// its cancel path, timeouts come from the pool's one timer queue, and hub calls are made for the runs.
@Suite struct RunPoolTests {
    static let waiting = #"""
        {"workflow": "w", "version": 1, "start": "wait", "onCancel": "withdraw", "states": {
          "wait": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 60, "result": "ended",
                   "on": {"keyUsed": "done", "expired": "expired"}, "otherwise": "expired", "onTimeout": "timedOut"},
          "done": {"type": "succeed", "output": {"device": "${vars.ended.deviceID}"}},
          "expired": {"type": "fail", "code": "deadlineExceeded", "message": "the key expired"},
          "timedOut": {"type": "fail", "code": "deadlineExceeded", "message": "no event"},
          "withdraw": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "withdrawn"}
        }}
        """#

    static func event(_ index: Int, _ value: String) -> HubEvent {
        HubEvent(name: "epskcModeDeactivated", structureID: "s\(index)", value: value, fields: ["deviceID": .string("router-\(index)")], time: .zero)
    }

    @Test func everyWaitingRunEndsAsItsOwnEventSays() async throws {
        let workflow = try loadWorkflow(Self.waiting)
        let pool = RunPool(hub: ScriptedHub(), random: SeededRandomSource(seed: 2))
        let runs = try (0..<300).map { index in try pool.submit(workflow, structureID: "s\(index)") }
        #expect(pool.waitingForEvents == 300)
        // An event for another structure wakes nobody.
        pool.deliver(HubEvent(name: "epskcModeDeactivated", structureID: "elsewhere", value: "keyUsed", fields: [:], time: .zero))
        #expect(pool.waitingForEvents == 300)
        for index in (0..<300).reversed() { pool.deliver(Self.event(index, index % 3 == 0 ? "expired" : "keyUsed")) }
        #expect(pool.waitingForEvents == 0)
        for (index, run) in runs.enumerated() {
            let result = try #require(await pool.result(of: run))
            if index % 3 == 0 {
                #expect(result.outcome == .failed)
                #expect(result.visitedStates == ["wait", "expired"])
            } else {
                #expect(result.outcome == .succeeded)
                #expect(result.output?["device"] == .string("router-\(index)"))
            }
        }
        // Results are handed out once; the pool then holds nothing.
        #expect(pool.runCount == 0)
        #expect(await pool.result(of: runs[0]) == nil)
    }

    @Test("callers waiting for one run's result at once all get it; a cancelled caller gets nil and the run goes on")
    func severalCallersWaitForOneResult() async throws {
        let workflow = try loadWorkflow(Self.waiting)
        let pool = RunPool(hub: ScriptedHub(), random: SeededRandomSource(seed: 2))
        let run = try pool.submit(workflow, structureID: "s1")
        func waiters() -> Int { pool.state.withLock { $0.runs[run.number]?.resultWaiters.count ?? -1 } }
        func waitForWaiters(_ count: Int) async {
            for _ in 0..<100_000 where waiters() != count { await Task.yield() }
        }
        let first = Task { await pool.result(of: run) }
        let second = Task { await pool.result(of: run) }
        let cancelled = Task { await pool.result(of: run) }
        await waitForWaiters(3)
        try #require(waiters() == 3)
        cancelled.cancel()
        #expect(await cancelled.value == nil)
        #expect(waiters() == 2, "the cancelled caller no longer waits")
        #expect(pool.waitingForEvents == 1, "the run goes on")
        pool.deliver(Self.event(1, "keyUsed"))
        #expect(await first.value?.outcome == .succeeded)
        #expect(await second.value?.output?["device"] == .string("router-1"))
        #expect(pool.runCount == 0)
        #expect(await pool.result(of: run) == nil, "a run whose result was taken is no longer held")
        // A caller already cancelled when it asks gets nil at once, without waiting; the run goes on.
        let other = try pool.submit(workflow, structureID: "s2")
        let late = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await pool.result(of: other)
        }
        #expect(await late.value == nil)
        pool.deliver(Self.event(2, "expired"))
        #expect(await pool.result(of: other)?.outcome == .failed)
    }

    @Test func aCancelledWaitingRunTakesItsCancelPath() async throws {
        let workflow = try loadWorkflow(Self.waiting)
        let pool = RunPool(hub: ScriptedHub(), random: SeededRandomSource(seed: 2))
        let kept = try pool.submit(workflow, structureID: "s1")
        let cancelled = try pool.submit(workflow, structureID: "s2")
        pool.cancel(cancelled)
        pool.deliver(Self.event(1, "keyUsed"))
        // An event after the cancel changes nothing for the cancelled run.
        pool.deliver(Self.event(2, "keyUsed"))
        let result = try #require(await pool.result(of: cancelled))
        #expect(result.outcome == .cancelled)
        #expect(result.visitedStates == ["wait", "withdraw"])
        #expect(result.error?.message.contains("cancelled in state wait") == true)
        #expect(try #require(await pool.result(of: kept)).outcome == .succeeded)
    }

    @Test func anEventBeforeTheWaitIsKeptForIt() async throws {
        let workflow = try loadWorkflow(#"""
            {"workflow": "c", "version": 1, "start": "rooms", "states": {
              "rooms": {"type": "action", "operation": "fetchRooms", "next": "wait"},
              "wait": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 60,
                       "on": {"keyUsed": "done"}, "otherwise": "failed", "onTimeout": "failed"},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "code": "deadlineExceeded", "message": "no key"}
            }}
            """#)
        let hub = ScriptedHub()
        let gate = ScriptedHub.Gate()
        hub.script("fetchRooms", [.afterGate(gate)])
        let pool = RunPool(hub: hub, random: SeededRandomSource(seed: 2), maxConcurrentWork: 1)
        let run = try pool.submit(workflow, structureID: "s7")
        // The run is still calling the hub when its event comes: the event waits in its inbox.
        pool.deliver(Self.event(7, "keyUsed"))
        gate.open()
        let result = try #require(await pool.result(of: run))
        #expect(result.outcome == .succeeded)
        #expect(result.visitedStates == ["rooms", "wait", "done"])
        #expect(hub.count("fetchRooms") == 1)
    }

    @Test func aPoolListeningToAStructureWakesItsRunsWithTheHubsEvents() async throws {
        let workflow = try loadWorkflow(Self.waiting)
        let hub = ScriptedHub()
        let pool = RunPool(hub: hub, clock: ManualClock(), random: SeededRandomSource(seed: 2))
        let subscription = await pool.listen(to: "s")
        defer { subscription.cancel() }
        #expect(hub.subscriberCount == 1)
        let runs = try (0..<2).map { _ in try pool.submit(workflow, structureID: "s") }
        #expect(pool.waitingForEvents == 2)
        // Every run on the structure sees its events, as a run with a subscription of its own does.
        hub.emit("epskcModeDeactivated", value: "keyUsed", fields: ["deviceID": "router-1"])
        #expect(pool.waitingForEvents == 0)
        for run in runs {
            let result = try #require(await pool.result(of: run))
            #expect(result.outcome == .succeeded)
            #expect(result.output?["device"] == .string("router-1"))
        }
    }

    /// A subscription whose connection the test loses.
    final class LosableSubscription: HubEventSubscription {
        private let handler = Mutex<(@Sendable (String) -> Void)?>(nil)
        func cancel() {}
        func whenLost(_ handler: @escaping @Sendable (String) -> Void) { self.handler.withLock { $0 = handler } }
        func lose(_ reason: String) { handler.withLock { $0 }?(reason) }
    }

    /// The scripted hub, its subscriptions losable.
    struct LosingHub: ForwardingHub {
        let base: any Hub
        let subscription = LosableSubscription()
        func subscribe(structure: StructureID, _ handler: @escaping @Sendable (HubEvent) -> Void) async -> any HubEventSubscription {
            subscription
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aPoolWhoseSubscriptionIsLostEndsItsWaitsByTheirTimeoutPathsAtOnce() async throws {
        let workflow = try loadWorkflow(Self.waiting)
        let hub = LosingHub(base: ScriptedHub())
        // The clock never moves: only the loss can end the waits.
        let pool = RunPool(hub: hub, clock: ManualClock(), random: SeededRandomSource(seed: 2))
        _ = await pool.listen(to: "s")
        let runs = try (0..<2).map { _ in try pool.submit(workflow, structureID: "s") }
        let elsewhere = try pool.submit(workflow, structureID: "other")
        #expect(pool.waitingForEvents == 3)
        hub.subscription.lose("the connection to the hub was lost: it exited")
        let warning = "the hub's events stopped reaching this run (the connection to the hub was lost: it exited): the wait for epskcModeDeactivated ends by its timeout path"
        for run in runs + [try pool.submit(workflow, structureID: "s")] {
            let result = try #require(await pool.result(of: run))
            #expect(result.visitedStates == ["wait", "timedOut"], "\(result.visitedStates)")
            #expect(result.warnings == [warning], "\(result.warnings)")
        }
        #expect(pool.waitingForEvents == 1, "the other structure's run still waits")
        pool.cancel(elsewhere)
        _ = await pool.result(of: elsewhere)
    }

    @Test func aWaitTimesOutOnThePoolsTimerQueue() async throws {
        let workflow = try loadWorkflow(Self.waiting)
        let clock = VirtualClock()
        let pool = RunPool(hub: ScriptedHub(), clock: clock, random: SeededRandomSource(seed: 2))
        // On virtual time nothing else is working, so the 60 s pass at once.
        let run = try pool.submit(workflow, structureID: "s1")
        let result = try #require(await pool.result(of: run))
        #expect(result.visitedStates == ["wait", "timedOut"])
        #expect(clock.now == .seconds(60))
    }
}

/// A pool's runs that ask: each waits as data for its own answer, checked against its question before the run
/// sees it, or for its timeout.
@Suite struct RunPoolAnswerTests {
    static let asking = #"""
        {"workflow": "a", "version": 1, "start": "name", "onCancel": "withdraw", "states": {
          "name": {"type": "ask", "question": "deviceName", "prompt": "Name?", "answer": {"text": {"minLength": 1, "maxLength": 12}},
                   "result": "deviceName", "timeoutSeconds": 300, "next": "done", "onTimeout": "noAnswer"},
          "done": {"type": "succeed", "output": {"name": "${vars.deviceName}"}},
          "noAnswer": {"type": "fail", "code": "deadlineExceeded", "message": "nobody answered"},
          "withdraw": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "withdrawn"}
        }}
        """#

    @Test func eachWaitingRunTakesItsOwnAnswer() async throws {
        let workflow = try loadWorkflow(Self.asking)
        let pool = RunPool(hub: ScriptedHub(), clock: ManualClock(), random: SeededRandomSource(seed: 3))
        let runs = try (0..<50).map { index in try pool.submit(workflow, structureID: "s\(index)") }
        #expect(pool.waitingForAnswers == 50)
        #expect(pool.pendingQuestion(of: runs[7])?.name == "deviceName")
        #expect(pool.pendingQuestion(of: runs[7])?.state == "name")
        for (index, run) in runs.enumerated().reversed() {
            // By question name or by ask state name.
            try pool.answer(.string("lamp-\(index)"), to: index.isMultiple(of: 2) ? "deviceName" : "name", of: run)
        }
        #expect(pool.waitingForAnswers == 0)
        for (index, run) in runs.enumerated() {
            let result = try #require(await pool.result(of: run))
            #expect(result.outcome == .succeeded)
            #expect(result.output?["name"] == .string("lamp-\(index)"))
        }
    }

    @Test func aWrongAnswerIsRefusedAndTheRunKeepsWaiting() async throws {
        let workflow = try loadWorkflow(Self.asking)
        let pool = RunPool(hub: ScriptedHub(), clock: ManualClock(), random: SeededRandomSource(seed: 3))
        let run = try pool.submit(workflow, structureID: "s1")
        let tooLong = #expect(throws: AnswerError.self) { try pool.answer(.string("a name far too long"), to: "deviceName", of: run) }
        #expect(tooLong?.code == .invalidAnswer)
        let unknown = #expect(throws: AnswerError.self) { try pool.answer(.string("lamp"), to: "room", of: run) }
        #expect(unknown?.code == .noPendingQuestion)
        #expect(unknown?.message.contains("waits for an answer to \"deviceName\"") == true)
        #expect(pool.pendingQuestion(of: run)?.name == "deviceName")
        try pool.answer(AnswerValue.text("lamp"), to: "deviceName", of: run)
        #expect(try #require(await pool.result(of: run)).output?["name"] == .string("lamp"))
        // The run has ended: nothing waits any more.
        let late = #expect(throws: AnswerError.self) { try pool.answer(.string("lamp"), to: "deviceName", of: run) }
        #expect(late?.message.contains("the run asks nothing now") == true)
    }

    @Test func anAnswerGivenBeforeItsQuestionWaitsForItAndOneForTheWaitingQuestionIsTakenAtOnce() async throws {
        let settling = try loadWorkflow(
            Self.asking.replacingOccurrences(of: #""start": "name""#, with: #""start": "settle""#)
                .replacingOccurrences(
                    of: #""done": {"#, with: #""settle": {"type": "delay", "seconds": 30, "next": "name"}, "done": {"#))
        let clock = ManualClock()
        let pool = RunPool(hub: ScriptedHub(), clock: clock, random: SeededRandomSource(seed: 3))
        let early = try pool.submit(settling, structureID: "s1")
        let waiting = try pool.submit(try loadWorkflow(Self.asking), structureID: "s2")
        // Still in its delay: the answer is kept, unchecked, for the question.
        #expect(try pool.give(.string("lamp"), to: "deviceName", of: early) == .kept)
        #expect(pool.pendingQuestion(of: early) == nil)
        // The waiting question checks at once, and keeps waiting after a misfit.
        let tooLong = #expect(throws: AnswerError.self) { try pool.give(.string("a name far too long"), to: "name", of: waiting) }
        #expect(tooLong?.code == .invalidAnswer)
        #expect(try pool.give(.string("plug"), to: "name", of: waiting) == .answered)
        #expect(try #require(await pool.result(of: waiting)).output?["name"] == .string("plug"))
        clock.advance(by: .seconds(30))
        #expect(try #require(await pool.result(of: early)).output?["name"] == .string("lamp"))
        // An ended run takes no answer, kept or not.
        let late = #expect(throws: AnswerError.self) { try pool.give(.string("lamp"), to: "deviceName", of: early) }
        #expect(late?.code == .noPendingQuestion)
    }

    @Test func answersGivenInAdvanceAreCheckedWhenAsked() async throws {
        let workflow = try loadWorkflow(Self.asking)
        let events = EventLog()
        let clock = ManualClock()
        let pool = RunPool(hub: ScriptedHub(), clock: clock, random: SeededRandomSource(seed: 3), observer: events.observer)
        let fits = try pool.submit(workflow, structureID: "s1", answers: ["deviceName": .string("lamp")])
        let recording = EventRecording()
        let misfit = try pool.submit(workflow, structureID: "s2", answers: ["name": .string("")], recording: recording)
        #expect(try #require(await pool.result(of: fits)).output?["name"] == .string("lamp"))
        // The answer that does not fit is reported and dropped; the question waits, then times out.
        #expect(pool.waitingForAnswers == 1)
        let rejected = { (event: RunEvent) -> Bool in
            if case .answerRejected(let state, let question, _) = event.kind { state == "name" && question == "deviceName" } else { false }
        }
        #expect(events.all.contains(where: rejected))
        // A recorded run's recording hears of it too, as a single run's does.
        #expect(recording.events.contains(where: rejected), "\(recording.events.map(\.name))")
        clock.advance(by: .seconds(300))
        let result = try #require(await pool.result(of: misfit))
        #expect(result.outcome == .failed)
        #expect(result.visitedStates == ["name", "noAnswer"])
    }

    @Test("a cancel interrupts the hub call in flight, the one the run makes when the cancel is fed (not one read before)")
    func aCancelInterruptsTheCallInFlight() async throws {
        let workflow = try loadWorkflow(AbandonedCallTests.workflow)
        let hub = ScriptedHub()
        hub.script("fetchRooms", [.hang])
        let clock = ManualClock()
        let pool = RunPool(hub: hub, clock: clock, random: SeededRandomSource(seed: 4))
        let run = try pool.submit(workflow, structureID: "s1")
        for _ in 0..<100_000 where hub.calls.isEmpty { await Task.yield() }
        try #require(hub.calls == ["fetchRooms"])
        pool.cancel(run)
        // Bounded: were the call not interrupted, it would end only at its 5 s timeout, which this moves the clock past.
        let timedOut = Mutex(false)
        let limit = Task {
            guard (try? await Task.sleep(for: .seconds(30))) != nil else { return }
            timedOut.withLock { $0 = true }
            clock.advance(by: .seconds(10))
        }
        let result = try #require(await pool.result(of: run))
        limit.cancel()
        #expect(!timedOut.withLock { $0 }, "the call ended only at its timeout")
        #expect(result.outcome == .cancelled)
        #expect(result.visitedStates == ["rooms"])
    }

    @Test func aCancelledQuestionTakesTheCancelPath() async throws {
        let workflow = try loadWorkflow(Self.asking)
        let pool = RunPool(hub: ScriptedHub(), clock: ManualClock(), random: SeededRandomSource(seed: 3))
        let run = try pool.submit(workflow, structureID: "s1")
        pool.cancel(run)
        let result = try #require(await pool.result(of: run))
        #expect(result.outcome == .cancelled)
        #expect(result.visitedStates == ["name", "withdraw"])
        #expect(throws: AnswerError.self) { try pool.answer(.string("lamp"), to: "deviceName", of: run) }
    }
}

/// A pool's run keeps the `Hub` contract as a single run does: a call it abandoned at its timeout, which the hub
/// still runs after the grace period, ends before the run calls the hub again.
@Suite struct RunPoolAbandonedCallTests {
    @Test func theNextCallWaitsForTheAbandonedOne() async throws {
        let workflow = try loadWorkflow(AbandonedCallTests.workflow)
        let hub = ScriptedHub()
        let gate = ScriptedHub.Gate()
        hub.script("fetchRooms", [.afterGate(gate)])
        let clock = ManualClock()
        let (events, reported) = AsyncStream<RunEvent>.makeStream()
        let pool = RunPool(hub: hub, clock: clock, random: SeededRandomSource(seed: 4), observer: { reported.yield($0) })
        let run = try pool.submit(workflow, structureID: "s1")
        await clock.passTimeoutAndGrace()
        // The run says it waits for the abandoned call (before its next call, whose start it has reported), and has
        // not called the hub again.
        let warning = try #require(await firstWarning(in: events), "the run ended without waiting for the abandoned fetchRooms")
        #expect(warning.message.contains("has not ended fetchRooms in state rooms"), "\(warning.message)")
        #expect(hub.calls == ["fetchRooms"])
        gate.open()
        let result = try #require(await pool.result(of: run))
        #expect(hub.calls == ["fetchRooms", "cancelCommissioning"])
        #expect(hub.overlapping == [])
        #expect(result.outcome == .failed)
        #expect(result.visitedStates == ["rooms", "release", "failed"])
        #expect(result.warnings.count == 1)
    }
}
