import MatterFlow
@testable import MatterFlowStore
import Testing

/// A worker whose claims keep failing (a read-only or full server) waits longer and longer between them and says
/// so at the 1st, 2nd, 4th, 8th ... failure, not at each.
@Suite struct ClaimFailuresTests {
    @Test("waits 0.25 s after one failure, doubling to at most 5 s; a claim that works ends the wait and says so")
    func backOff() {
        var failures = ClaimFailures()
        #expect(failures.wait == .zero && failures.succeeded() == nil)
        var waits: [Double] = []
        var said: [Int] = []
        for count in 1...40 {
            if failures.failed("cannot execute SELECT in a read-only transaction") != nil { said.append(count) }
            waits.append(failures.wait.secondsValue)
        }
        #expect(waits.prefix(7) == [0.25, 0.5, 1, 2, 4, 5, 5] && waits.allSatisfy { $0 <= 5 })
        #expect(said == [1, 2, 4, 8, 16, 32])
        #expect(failures.succeeded() == "claiming works again after 40 failed claims")
        #expect(failures.wait == .zero && failures.inARow == 0 && failures.succeeded() == nil)
        // Forty failures in a row took about three minutes of waits, where a claim every 20 ms took under one second.
        #expect(waits.reduce(0, +) > 180)
    }

    @Test("the lines name the failure, the count and the wait")
    func lines() {
        var failures = ClaimFailures()
        #expect(failures.failed("disk full") == "claiming failed: disk full; trying again in 0.25 s")
        #expect(failures.failed("disk full") == "claiming failed 2 times in a row: disk full; trying again every 0.5 s or less")
        #expect(failures.failed("disk full") == nil)
        #expect(failures.failed("disk full") == "claiming failed 4 times in a row: disk full; trying again every 2 s or less")
    }
}
