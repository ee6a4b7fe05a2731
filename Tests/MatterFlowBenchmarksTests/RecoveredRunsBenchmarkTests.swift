import MatterFlow
import Testing

@testable import MatterFlowBenchmarks

/// The recovered-runs benchmark at a small scale: every journaled run left waiting by a dead process is put into the
/// new pool, waits there, and ends as its event says with its journal ended by recovery.
@Suite struct RecoveredRunsBenchmarkTests {
    @Test func everyRecoveredRunWaitsInThePoolThenEnds() async throws {
        let report = try await RecoveredRunsBenchmark(runs: 200).run()
        #expect(report.handedOver == 200)
        #expect(report.waiting == 200)
        #expect(report.finished == 200)
        #expect(report.passed)
        #expect(report.text.contains("bytes per run"))
    }
}
