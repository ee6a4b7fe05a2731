import Foundation
import MatterFlowJSON
import Synchronization
import Testing

@testable import MatterFlow

/// A recorded pool run hands out its result only once its recording has its end.
@Suite struct RunPoolRecordingTests {
    /// A recording that, on the run's end, tells the test and then holds the thread until the test lets it go.
    final class HeldEnd: RunRecording {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let ends = Mutex(0)
        func record(_ event: RunEvent) {
            guard case .runFinished = event.kind else { return }
            ends.withLock { $0 += 1 }
            entered.signal()
            release.wait()
        }
        func record(_ checkpoint: RunCheckpoint) {}
        func callStarting(_ call: PreparedCall) async -> Result<JSONValue, FlowError>? { nil }
        func callEnded(_ call: PreparedCall, value: JSONValue?) async {}
        func lateResult(_ call: PreparedCall, value: JSONValue) {}
    }

    @Test func theResultWaitsUntilTheRecordingHasTheRunsEnd() async throws {
        let workflow = try loadWorkflow(#"{"workflow": "w", "version": 1, "start": "done", "states": {"done": {"type": "succeed"}}}"#)
        let pool = RunPool(hub: ScriptedHub(), clock: ManualClock(), random: SeededRandomSource(seed: 10))
        let recording = HeldEnd()
        // The run ends within submit, which records its end: on a thread of its own, held there.
        let submitted = Mutex<RunPool.Run?>(nil)
        let returned = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let run = try? pool.submit(workflow, structureID: "s1", recording: recording)
            submitted.withLock { $0 = run }
            returned.signal()
        }
        recording.entered.wait()
        // The end is being recorded: the run is not finished for the pool yet, so no result can be taken.
        #expect(pool.state.withLock { state in
            state.runs.values.allSatisfy { if case .recordingEnd = $0.waiting { true } else { false } } && state.runs.count == 1
        })
        recording.release.signal()
        returned.wait()
        let run = try #require(submitted.withLock { $0 })
        #expect(try #require(await pool.result(of: run)).outcome == .succeeded)
        #expect(recording.ends.withLock { $0 } == 1)
    }
}

/// A recording that keeps the events it is told of, and lets every call be made.
final class EventRecording: RunRecording {
    private let kept = Mutex<[RunEvent]>([])
    var events: [RunEvent] { kept.withLock { $0 } }
    func record(_ event: RunEvent) { kept.withLock { $0.append(event) } }
    func record(_ checkpoint: RunCheckpoint) {}
    func callStarting(_ call: PreparedCall) async -> Result<JSONValue, FlowError>? { nil }
    func callEnded(_ call: PreparedCall, value: JSONValue?) async {}
    func lateResult(_ call: PreparedCall, value: JSONValue) {}
}
