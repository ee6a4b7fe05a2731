@testable import MatterFlow
import Testing

/// A pause switch shared by the branches of a concurrent map: parked only when no branch has a call in flight, and
/// released for every parked branch.
@Suite struct RunPauseTests {
    /// The switch of a run asked to pause while it waits for `elements` elements of a map.
    static func mapAskedToPause(elements: Int) -> RunPause {
        let pause = RunPause()
        pause.request()
        pause.branchEnded()
        for _ in 0..<elements { pause.branchBegan() }
        return pause
    }

    /// Returns once `count` branches are suspended at their checkpoint, so that what a test checks next is checked
    /// with them there.
    static func untilAtCheckpoint(_ pause: RunPause, _ count: Int) async {
        while pause.branchesAtCheckpoint < count { await Task.yield() }
    }

    @Test(.timeLimit(.minutes(1))) func aRunIsNotParkedWhileAnyBranchHasACallInFlight() async {
        // Two elements of a map: one has a call in flight.
        let pause = Self.mapAskedToPause(elements: 2)
        pause.callBegan()
        let parkedBranch = Task { await pause.parkIfRequested() }
        await Self.untilAtCheckpoint(pause, 1)
        #expect(!pause.isParked)
        // The call ends; its branch goes on, neither parked nor waiting yet.
        pause.callEnded()
        #expect(!pause.isParked)
        // It waits for an event: parked once the other branch has parked too.
        pause.waitBegan()
        await pause.parked()
        #expect(pause.isParked)
        pause.release()
        await parkedBranch.value
        #expect(!pause.isParked)
    }

    @Test(.timeLimit(.minutes(1))) func aBranchNeitherParkedNorWaitingKeepsTheRunFromBeingParked() async {
        let pause = Self.mapAskedToPause(elements: 2)
        let parked = Task { await pause.parkIfRequested() }
        // The other element is in a retry's delay: neither parked nor waiting.
        await Self.untilAtCheckpoint(pause, 1)
        #expect(!pause.isParked)
        pause.waitBegan()
        await pause.parked()
        #expect(pause.isParked)
        pause.release()
        await parked.value
    }

    @Test(.timeLimit(.minutes(1))) func releaseLetsEveryParkedBranchGoOn() async {
        let pause = Self.mapAskedToPause(elements: 3)
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
