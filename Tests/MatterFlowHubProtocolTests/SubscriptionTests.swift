import Foundation
import MatterFlow
@testable import MatterFlowHubProtocol
import MatterFlowJSON
import Synchronization
import Testing

/// What a run does when the hub will not subscribe it to its events, or has not answered yet when it is cancelled.
@Suite struct SubscriptionTests {
    /// One wait for an event; its timeout fails the run.
    static let workflow = #"""
        {"workflow": "t", "version": 1, "start": "wait", "states": {
          "wait": {"type": "wait", "event": "commissioningSessionExpired", "timeoutSeconds": 5, "result": "e",
                   "on": {"leaseExpired": "got"}, "onTimeout": "none"},
          "got": {"type": "succeed"},
          "none": {"type": "fail", "code": "deadlineExceeded", "message": "no event came"}
        }}
        """#

    /// A client of a scripted hub that lists events and answers `subscribe` with `answer` (nil: never).
    static func remote(answeringSubscribe answer: (@Sendable (JSONValue) -> JSONValue)?) async throws -> (RemoteHub, ScriptedPeer) {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        let peer = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message, events: true) { return }
            guard message["method"]?.stringValue == "subscribe", let id = message["id"], let answer else { return }
            peer.send(answer(id))
        }
        let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: nil))
        try await remote.initialize()
        return (remote, peer)
    }

    /// The id of the `subscribe` request a scripted hub holds unanswered, once it came.
    final class HeldSubscribe: Sendable {
        private let request = Mutex<JSONValue?>(nil)
        var id: JSONValue? { request.withLock { $0 } }
        func hold(_ id: JSONValue?) { request.withLock { $0 = id } }
    }

    /// A client of a scripted hub that lists events and leaves `subscribe` for the test to answer.
    static func remoteHoldingSubscribe(_ options: RemoteHub.Options) async throws -> (RemoteHub, ScriptedPeer, HeldSubscribe) {
        let held = HeldSubscribe()
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        let peer = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message, events: true) { return }
            if message["method"]?.stringValue == "subscribe" { held.hold(message["id"]) }
        }
        let remote = RemoteHub(channel: clientEnd, options: options)
        try await remote.initialize()
        return (remote, peer, held)
    }

    @Test func aSubscriptionTheHubRefusesIsAWarningAtTheRunsFirstWaitNotASilentTimeout() async throws {
        let (remote, _) = try await Self.remote { id in
            ["jsonrpc": "2.0", "id": id, "error": WireError.json(FlowError(.hubFailure, "events are switched off"))]
        }
        let subscription = await remote.subscribe(structure: "s") { _ in }
        #expect(subscription.failure == "the hub did not subscribe: events are switched off [hubFailure]")
        let clock = ManualClock()
        let workflow = try WorkflowEngine().load(text: Self.workflow, baseDirectory: "/")
        let handle = try WorkflowEngine().start(workflow, inputs: [:], on: remote, options: RunOptions(structureID: "s", clock: clock))
        var kinds: [String] = []
        for await event in handle.events {
            switch event.kind {
            case .warning(let state, let message): kinds.append("warning \(state): \(message)")
            case .waitStarted(let state, _, _):
                kinds.append("waitStarted \(state)")
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(5))
            default: continue
            }
        }
        let result = await handle.result
        let warning =
            "no hub events reach this run (the hub did not subscribe: events are switched off [hubFailure]): waits for commissioningSessionExpired can only time out"
        #expect(kinds == ["waitStarted wait", "warning wait: \(warning)"])
        #expect(result.warnings == [warning])
        #expect(result.error?.code == .deadlineExceeded)
        await remote.close()
    }

    @Test func anAnswerWithoutASubscriptionNameIsAFailedSubscription() async throws {
        let (remote, _) = try await Self.remote { id in ["jsonrpc": "2.0", "id": id, "result": [:]] }
        let subscription = await remote.subscribe(structure: "s") { _ in }
        #expect(subscription.failure == "the hub's answer to subscribe names no subscription")
        await remote.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aRunCancelledBeforeTheHubAnswersSubscribeDoesNotWaitForItAndItsEndCancelsTheCall() async throws {
        let (remote, peer) = try await Self.remote(answeringSubscribe: nil)
        let workflow = try WorkflowEngine().load(text: Self.workflow, baseDirectory: "/")
        let handle = try WorkflowEngine().start(
            workflow, inputs: [:], on: remote, options: RunOptions(structureID: "s", clock: ManualClock()))
        while !peer.received.contains(where: { $0.contains(#""method":"subscribe""#) }) { await Task.yield() }
        handle.cancel()
        let result = await handle.result
        #expect(result.outcome == .cancelled, "\(String(describing: result.error))")
        // The call the run no longer needs is cancelled on the hub.
        while !peer.received.contains(where: { $0.contains(#""method":"$/cancelRequest""#) }) { await Task.yield() }
        await remote.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aSubscriptionAnsweredAfterTheRunsCancelStillFeedsItsCancelPath() async throws {
        let (remote, peer, subscribe) = try await Self.remoteHoldingSubscribe(.init(silenceLimit: nil))
        let workflow = try WorkflowEngine().load(
            text: #"""
                {"workflow": "t", "version": 1, "start": "wait", "onCancel": "cleanup", "states": {
                  "wait": {"type": "wait", "event": "commissioningSessionExpired", "timeoutSeconds": 5, "result": "e",
                           "on": {"leaseExpired": "done"}, "onTimeout": "done"},
                  "cleanup": {"type": "wait", "event": "commissioningSessionExpired", "timeoutSeconds": 5, "result": "c",
                              "on": {"leaseExpired": "cleaned"}, "onTimeout": "done"},
                  "cleaned": {"type": "succeed"},
                  "done": {"type": "succeed"}
                }}
                """#, baseDirectory: "/")
        let handle = try WorkflowEngine().start(
            workflow, inputs: [:], on: remote, options: RunOptions(structureID: "s", clock: ManualClock()))
        while subscribe.id == nil { await Task.yield() }
        handle.cancel()
        for await event in handle.events {
            guard case .waitStarted("cleanup", _, _) = event.kind else { continue }
            // The run waits on its cancel path: the hub answers the subscription now, and reports an event.
            peer.send(["jsonrpc": "2.0", "id": try #require(subscribe.id), "result": ["subscription": "sub-1"]])
            peer.send([
                "jsonrpc": "2.0", "method": "event",
                "params": [
                    "subscription": "sub-1", "structure": "s",
                    "event": ["name": "commissioningSessionExpired", "value": "leaseExpired", "fields": ["sessionID": "x"], "time": 1],
                ],
            ])
        }
        let result = await handle.result
        #expect(result.outcome == .cancelled)
        #expect(result.visitedStates == ["wait", "cleanup", "cleaned"], "the cancel path heard the event")
        await remote.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func aSubscriptionTheHubMakesAfterTheClientGaveUpOnItIsEnded() async throws {
        let (remote, peer, subscribe) = try await Self.remoteHoldingSubscribe(
            .init(silenceLimit: nil, cancelGrace: .milliseconds(50)))
        let subscribing = Task { await remote.subscribe(structure: "s") { _ in } }
        while subscribe.id == nil { await Task.yield() }
        subscribing.cancel()
        // The hub answers neither the cancel nor, within the grace, the call: the client gives it up.
        #expect(await subscribing.value.failure != nil)
        peer.send(["jsonrpc": "2.0", "id": try #require(subscribe.id), "result": ["subscription": "sub-9"]])
        while !peer.received.contains(where: { $0.contains(#""method":"unsubscribe""#) && $0.contains(#""sub-9""#) }) {
            await Task.yield()
        }
        #expect(!remote.connectionLost, "a late answer to a call given up on is no protocol error")
        await remote.close()
    }

    /// The wait of ``workflow`` with a timeout of 660 s, as epskc-share's wait for the key's end has.
    static let longWait = workflow.replacingOccurrences(of: #""timeoutSeconds": 5"#, with: #""timeoutSeconds": 660"#)

    @Test(.timeLimit(.minutes(1)))
    func aConnectionLostWhileTheRunWaitsEndsTheWaitByItsTimeoutPathAtOnceWithAWarning() async throws {
        let (remote, peer) = try await Self.remote { id in ["jsonrpc": "2.0", "id": id, "result": ["subscription": "sub-1"]] }
        let workflow = try WorkflowEngine().load(text: Self.longWait, baseDirectory: "/")
        // The clock never moves: only the lost connection can end the wait.
        let handle = try WorkflowEngine().start(
            workflow, inputs: [:], on: remote, options: RunOptions(structureID: "s", clock: ManualClock()))
        var warnings: [String] = []
        for await event in handle.events {
            switch event.kind {
            case .waitStarted: peer.sendRaw("the hub's process died here")
            case .warning(_, let message): warnings.append(message)
            default: continue
            }
        }
        let result = await handle.result
        #expect(result.visitedStates == ["wait", "none"], "\(result.visitedStates)")
        #expect(result.error?.code == .deadlineExceeded)
        #expect(warnings.count == 1, "\(warnings)")
        #expect(
            warnings.first?.hasPrefix(
                "the hub's events stopped reaching this run (the connection to the hub was lost: the hub sent a line that is not JSON") == true,
            "\(warnings)")
        #expect(warnings.first?.hasSuffix("): the wait for commissioningSessionExpired ends by its timeout path") == true, "\(warnings)")
        // A wait that starts after the loss ends at once too.
        let later = try WorkflowEngine().start(
            workflow, inputs: [:], on: remote, options: RunOptions(structureID: "s", clock: ManualClock()))
        #expect(await later.result.visitedStates == ["wait", "none"])
        await remote.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func anEventStampedWithUnixTimeIsDeliveredAndOnePastTheYear3000BreaksTheProtocol() async throws {
        let (remote, peer) = try await Self.remote { id in ["jsonrpc": "2.0", "id": id, "result": ["subscription": "sub-1"]] }
        let received = Mutex<[HubEvent]>([])
        let subscription = await remote.subscribe(structure: "s") { event in received.withLock { $0.append(event) } }
        func event(at time: Double) -> JSONValue {
            [
                "jsonrpc": "2.0", "method": "event",
                "params": [
                    "subscription": "sub-1", "structure": "s",
                    "event": ["name": "commissioningSessionExpired", "value": "leaseExpired", "fields": [:], "time": .double(time)],
                ],
            ]
        }
        peer.send(event(at: 1_796_641_200.25))
        while received.withLock({ $0.isEmpty }) { await Task.yield() }
        let time = try #require(received.withLock { $0.first?.time })
        let expected = Duration.milliseconds(1_796_641_200_250)
        #expect(time - expected < .microseconds(1) && expected - time < .microseconds(1), "\(time)")
        let lost = Mutex<String?>(nil)
        subscription.whenLost { reason in lost.withLock { $0 = reason } }
        peer.send(event(at: 40_000_000_000))
        while lost.withLock({ $0 == nil }) { await Task.yield() }
        #expect(lost.withLock { $0 }?.contains(#"member "time" must be a number of seconds in 0"#) == true, "\(String(describing: lost.withLock { $0 }))")
        await remote.close()
    }
}
