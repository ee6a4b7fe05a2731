@testable import MatterFlow
import Testing

/// A pause switch shared by the branches of a concurrent map: parked only when no branch has a call in flight, and
/// released for every parked branch.
@Suite struct RunPauseTests {
    @Test(.timeLimit(.minutes(1))) func aRunIsNotParkedWhileAnyBranchHasACallInFlight() async {
        let pause = RunPause()
        pause.request()
        pause.callBegan()
        let parkedBranch = Task { await pause.parkIfRequested() }
        // The other branch waits for an event too: still not parked while the call runs.
        pause.waitBegan()
        #expect(!pause.isParked)
        pause.callEnded()
        #expect(pause.isParked)
        await pause.parked()
        pause.release()
        await parkedBranch.value
        #expect(!pause.isParked)
    }

    @Test(.timeLimit(.minutes(1))) func releaseLetsEveryParkedBranchGoOn() async {
        let pause = RunPause()
        pause.request()
        let branches = (0..<3).map { _ in Task { await pause.parkIfRequested() } }
        await pause.parked()
        pause.release()
        for branch in branches { await branch.value }
        #expect(!pause.isParked)
        // Released: a branch that reaches a checkpoint later does not park.
        await pause.parkIfRequested()
    }

    @Test(.timeLimit(.minutes(1))) func aWaitThatEndsWhileAPauseIsRequestedStaysParkedUntilItsBranchParks() async {
        let pause = RunPause()
        pause.waitBegan()
        pause.request()
        #expect(pause.isParked)
        pause.waitEnded(parking: true)
        #expect(pause.isParked)
        let branch = Task { await pause.parkIfRequested() }
        pause.release()
        await branch.value
        #expect(!pause.isParked)
    }
}
