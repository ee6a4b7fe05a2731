@testable import MatterFlowCLI
import Testing

/// How often an idle `matterflow watch` reads the store between notifications.
@Suite struct WatchPauseTests {
    @Test("250 ms after the run was heard of, doubling while nothing is heard, never past 5 s; hearing of the run starts again")
    func pauses() {
        var pause = WatchCommand.WatchPause()
        var waits: [Int] = []
        for _ in 0..<8 {
            waits.append(pause.milliseconds)
            pause.next(heard: false)
        }
        #expect(waits == [250, 500, 1000, 2000, 4000, 5000, 5000, 5000])
        pause.next(heard: true)
        #expect(pause.milliseconds == 250)
    }
}
