import MatterFlowJSON
import Testing

@testable import MatterFlow

/// A run keeps the hub's events no wait has taken up to a limit, the newest: a long wait for an answer while the
/// hub reports other devices' events does not grow without bound, and the latest events are still there to take.
@Suite struct EventInboxLimitTests {
    static func event(_ number: Int) -> HubEvent {
        HubEvent(name: "epskcModeDeactivated", structureID: "s", value: "keyUsed", fields: ["n": .int(number)], time: .zero)
    }

    @Test func theOldestGoPastTheLimit() {
        var events: [HubEvent] = []
        for number in 0..<(EventInbox.keptLimit + 5) { EventInbox.keep(Self.event(number), in: &events) }
        #expect(events.count == EventInbox.keptLimit)
        #expect(events.first?.fields["n"] == .int(5))
        #expect(events.last?.fields["n"] == .int(EventInbox.keptLimit + 4))
    }

    @Test func aWaitTakesAKeptEventAfterThousandsOfOthers() async {
        let inbox = EventInbox()
        for number in 0..<5_000 { inbox.deliver(Self.event(number)) }
        let outcome = await inbox.wait(for: { $0.fields["n"] == .int(4_999) }, timeout: .seconds(1), clock: VirtualClock(), signal: nil)
        guard case .finished(let event) = outcome else {
            Issue.record("the newest event was not kept: \(outcome)")
            return
        }
        #expect(event.fields["n"] == .int(4_999))
    }
}
