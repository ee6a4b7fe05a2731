import MatterFlowJSON
import Synchronization
import Testing

@testable import MatterFlow

/// What a run's handle keeps of its events for a reader (``RunOptions/eventBufferLimit``): a service that only
/// awaits results must not hold every event of every run.
@Suite struct EventBufferTests {
    static let workflow = #"""
        {"workflow": "w", "version": 1, "start": "a", "states": {
          "a": {"type": "assign", "set": {"x": 1}, "next": "b"},
          "b": {"type": "assign", "set": {"y": 2}, "next": "c"},
          "c": {"type": "action", "operation": "fetchRooms", "result": "rooms", "next": "done"},
          "done": {"type": "succeed"}}}
        """#

    func start(limit: Int?, observer: (@Sendable (RunEvent) -> Void)? = nil) throws -> RunHandle {
        var options = RunOptions(structureID: "s", clock: ManualClock(), random: SeededRandomSource(seed: 1), observer: observer)
        options.eventBufferLimit = limit
        return try WorkflowEngine().start(try loadWorkflow(Self.workflow), on: ScriptedHub(), options: options)
    }

    func read(_ handle: RunHandle) async -> [RunEvent] {
        var events: [RunEvent] = []
        for await event in handle.events { events.append(event) }
        return events
    }

    @Test("by default every event is kept for the reader; a limit keeps the newest; 0 keeps none, the observer still hears all")
    func limits() async throws {
        let all = try start(limit: nil)
        #expect(await all.result.outcome == .succeeded)
        let every = await read(all)
        #expect(every.count > 4)

        let newest = try start(limit: 2)
        #expect(await newest.result.outcome == .succeeded)
        let kept = await read(newest)
        #expect(kept.count == 2)
        #expect(kept.map { "\($0.kind)" } == every.suffix(2).map { "\($0.kind)" })
        if case .runFinished = kept.last?.kind {} else { Issue.record("the newest event is the run's end: \(kept)") }

        let heard = Mutex(0)
        let none = try start(limit: 0, observer: { _ in heard.withLock { $0 += 1 } })
        #expect(await none.result.outcome == .succeeded)
        #expect(await read(none).isEmpty)
        #expect(heard.withLock { $0 } == every.count)
    }
}
