import MatterFlow
import Testing

@testable import MatterFlowBenchmarks

/// The waiting-runs benchmark at a small scale: every run waits (for an event, an answer or a delay), then ends as
/// what woke it says.
@Suite struct WaitingRunsBenchmarkTests {
    @Test func everyRunWaitsThenEndsAsWhatWokeItSays() async throws {
        let report = try await WaitingRunsBenchmark(runs: 3_000).run()
        #expect(report.waited == ["event": 1_000, "answer": 1_000, "delay": 1_000])
        #expect(report.notWaiting == 0)
        #expect(report.mismatched == 0)
        #expect(report.passed)
        // Every tenth run waiting for an event gets `expired`.
        #expect(report.outcomes[.succeeded] == 2_900)
        #expect(report.outcomes[.failed] == 100)
        #expect(report.outcomes[.cancelled] == nil)
        #expect(report.text.contains("bytes per run"))
    }
}
