import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// Delay states: fixed seconds and moments on the run's clock, malformed or too distant moments routed as
/// errors, cancel during a delay, what the loader refuses, and the time bound.
@Suite struct DelayStateTests {
    static let workflow = #"""
        {"workflow": "d", "version": 1, "inputs": {"when": {"type": "any", "required": true}}, "start": "settle",
         "onCancel": "stopped", "states": {
          "settle": {"type": "delay", "seconds": 30, "next": "window"},
          "window": {"type": "delay", "until": "${input.when}", "maxSeconds": 600, "next": "done",
                     "onError": [{"errors": ["invalidArgumentValue"], "next": "bad"}]},
          "done": {"type": "succeed", "output": "done"},
          "bad": {"type": "succeed", "output": "${error.message}"},
          "stopped": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "stopped"}
        }}
        """#

    /// 2026-12-01T20:00:00Z.
    static let origin = 1_796_155_200.0

    func run(_ when: JSONValue, clock: ManualClock, cancelAt: String? = nil) async throws -> (RunResult, [String]) {
        var options = RunOptions(structureID: "s", clock: clock)
        options.wallClockOrigin = Self.origin
        let handle = try WorkflowEngine().start(try loadWorkflow(Self.workflow), inputs: ["when": when], on: ScriptedHub(), options: options)
        var delays: [String] = []
        for await event in handle.events {
            guard case .delayStarted(let state, let seconds) = event.kind else { continue }
            delays.append("\(state) \(seconds)")
            if state == cancelAt { handle.cancel() } else { clock.advance(by: .seconds(seconds)) }
        }
        return (await handle.result, delays)
    }

    @Test func aDelayWaitsItsSecondsAndAMomentWhatIsLeftOnTheRunsClock() async throws {
        let clock = ManualClock()
        // 30 s of the first delay have passed when the second starts: 90 s are left until 20:02:00.
        let (result, delays) = try await run("2026-12-01T20:02:00Z", clock: clock)
        #expect(result.output == "done")
        #expect(delays == ["settle 30.0", "window 90.0"])
        #expect(clock.now == .seconds(120))
        let offset = try await run("2026-12-01T21:01:30+01:00", clock: ManualClock())
        #expect(offset.1 == ["settle 30.0", "window 60.0"])
        let epoch = try await run(.double(Self.origin + 45.5), clock: ManualClock())
        #expect(epoch.1 == ["settle 30.0", "window 15.5"])
        let past = try await run("2020-01-01T00:00:00Z", clock: ManualClock())
        #expect(past.1 == ["settle 30.0", "window 0.0"])
    }

    @Test func aMomentThatCannotBeWaitedForIsARoutedErrorNamingWhatIsWrong() async throws {
        let malformed = try await run("tomorrow", clock: ManualClock())
        #expect(malformed.0.output?.stringValue?.contains("\"tomorrow\" is not an ISO-8601 timestamp") == true)
        let badDate = try await run("2026-02-30T10:00:00Z", clock: ManualClock())
        #expect(badDate.0.output?.stringValue?.contains("not an ISO-8601 timestamp") == true)
        let distant = try await run("2026-12-02T20:00:00Z", clock: ManualClock())
        #expect(distant.0.output?.stringValue?.contains("more than its \"maxSeconds\"") == true)
        let wrongType = try await run(true, clock: ManualClock())
        #expect(wrongType.0.output?.stringValue?.contains("not boolean") == true)
        #expect(malformed.1 == ["settle 30.0"], "no delay starts for a moment that cannot be waited for")
    }

    @Test func aCancelDuringADelayTakesTheCancelPath() async throws {
        let (result, _) = try await run("2026-12-01T20:02:00Z", clock: ManualClock(), cancelAt: "settle")
        #expect(result.outcome == .cancelled)
        #expect(result.visitedStates == ["settle", "stopped"])
    }

    @Test func theLoaderWantsSecondsOrABoundedMoment() {
        func variant(_ original: String, _ replacement: String) -> [Diagnostic] {
            diagnose(Self.workflow.replacingOccurrences(of: original, with: replacement))
        }
        #expect(diagnose(Self.workflow).filter { $0.severity == .error }.isEmpty)
        #expect(variant(#""maxSeconds": 600, "#, "").contains { $0.code == "missingKey" && $0.message.contains("maxSeconds") })
        #expect(variant(#""seconds": 30, "#, "").contains { $0.code == "invalidValue" && $0.pointer == "/states/settle" })
        #expect(variant(#""seconds": 30, "#, #""seconds": 30, "until": "x", "#).contains { $0.pointer == "/states/settle" })
        #expect(variant(#""seconds": 30, "#, #""seconds": 30, "maxSeconds": 5, "#).contains { $0.pointer == "/states/settle/maxSeconds" })
        #expect(variant(#""seconds": 30, "#, #""seconds": 90000, "#).contains { $0.code == "numberOutOfRange" })
        // A literal moment that no run could wait for is refused where it is written; a valid one, or a template, is not.
        for literal in [#""2026-13-01T00:00:00Z""#, #""tomorrow""#, "1e300", "-5", "true"] {
            let found = variant(#""${input.when}""#, literal)
            #expect(found.contains { $0.code == "invalidValue" && $0.pointer == "/states/window/until" && $0.message.hasPrefix("\"until\" is not a moment") }, "\(literal): \(found)")
        }
        for literal in [#""2026-12-01T20:30:00Z""#, "1796472000"] {
            #expect(variant(#""${input.when}""#, literal).filter { $0.severity == .error }.isEmpty, "\(literal)")
        }
    }

    @Test func theTimeBoundCountsSecondsAndMaxSeconds() throws {
        let budget = TimeBudget(workflow: try loadWorkflow(Self.workflow))
        let done = try #require(budget.ends.first { $0.state == "done" })
        #expect(done.worstSeconds == 630)
    }

    @Test func timestampsParseExactlyAndRefuseWhatIsNotOne() throws {
        #expect(try Timestamp.epochSeconds(of: "1970-01-01T00:00:00Z").get() == 0)
        #expect(try Timestamp.epochSeconds(of: "2000-02-29T12:00:00.25Z").get() == 951_825_600.25)
        #expect(try Timestamp.epochSeconds(of: "2026-12-01T21:00:00+01:00").get() == Self.origin)
        for text in ["2026-12-01", "2026-12-01T20:00:00", "2026-13-01T20:00:00Z", "2026-12-01T24:00:00Z", "2026-12-01T20:00:00Zjunk",
                     "2026-12-01T20:00:00.Z", "1900-02-29T00:00:00Z", "", String(repeating: "9", count: 10_000)] {
            #expect(throws: TimestampError.self, "\(text.prefix(30))") { try Timestamp.epochSeconds(of: .string(text)).get() }
        }
        #expect(throws: TimestampError.self) { try Timestamp.epochSeconds(of: .double(-1)).get() }
    }
}
