import Foundation
#if canImport(Glibc)
    import Glibc
#endif
@testable import MatterFlowCLI
import Testing

/// Signals are caught from the instant routing starts: none takes its default action or is lost meanwhile.
@Suite(.serialized) struct SignalRelayTests {
    @Test(.timeLimit(.minutes(1)))
    func aSignalRaisedTheInstantRoutingStartsIsCaughtAndRoutingGivesTheDispositionBack() async throws {
        var before = sigaction()
        sigaction(SIGHUP, nil, &before)
        let signals = InterruptSignals()
        // At once: with no handler yet in place, SIGHUP would end this process.
        kill(getpid(), SIGHUP)
        while signals.receivedSignal == nil { try await Task.sleep(for: .milliseconds(1)) }
        #expect(signals.receivedSignal == SIGHUP)
        #expect(signals.exitCode == 129)
        signals.restoreDispositions()
        var after = sigaction()
        sigaction(SIGHUP, nil, &after)
        let handler = { (action: sigaction) in unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self) }
        #expect(handler(after) == handler(before), "the former disposition is back")
    }
}
