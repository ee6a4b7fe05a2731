import MatterFlow
import Testing

@testable import MatterFlowBenchmarks

/// The waiting-runs benchmark at a small scale: every run waits, then ends as its own event says.
@Suite struct WaitingRunsBenchmarkTests {
    @Test func everyRunEndsAsItsEventSays() async throws {
        let report = try await WaitingRunsBenchmark(runs: 1_000).run()
        #expect(report.mismatched == 0)
        #expect(report.outcomes[.succeeded] == 900)
        #expect(report.outcomes[.failed] == 100)
        #expect(report.outcomes[.cancelled] == nil)
        #expect(report.text.contains("bytes per run"))
    }
}
