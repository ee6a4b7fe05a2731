import MatterFlow
import MatterFlowSimulator

/// Whether the fixture's scenario took place: every scripted event happened and did what it says, every fault and
/// mock changed the run, every answer was asked for and taken (or refused, when the fixture says so). A part of the
/// scenario that did not take place is a mismatch: the fixture would otherwise pass without testing what it says,
/// for instance once the workflow stops making the call a fault is written for.
extension ExpectationChecker {
    func scenarioMismatches() -> [FixtureMismatch] {
        eventMismatches() + faultMismatches() + mockMismatches() + answerMismatches()
    }

    private var endedAt: String { "the run ended at \(FixtureFormat.seconds(observation.elapsed)) s" }

    private func eventMismatches() -> [FixtureMismatch] {
        var found: [FixtureMismatch] = []
        for (index, event) in fixture.events.enumerated() {
            let subject = "events[\(index)]"
            let expected = "\(event.action) \(event.trigger)"
            if !observation.firedEvents.contains(index) {
                found.append(FixtureMismatch(subject: subject, expected: expected, actual: "it never happened (\(why(event.trigger)))"))
            } else if let refusal = observation.refusedEvents[index] {
                found.append(FixtureMismatch(subject: subject, expected: expected, actual: "the simulator refused it: \(refusal)"))
            } else if event.action == .cancelRun, observation.result.outcome != .cancelled {
                found.append(
                    FixtureMismatch(
                        subject: subject, expected: expected,
                        actual: "it changed nothing: the run ended \(observation.result.outcome.rawValue) (a cancel on entering a final state, or within the cancel path, comes too late)"))
            }
        }
        return found
    }

    private func faultMismatches() -> [FixtureMismatch] {
        var found: [FixtureMismatch] = []
        if let applied = observation.appliedFaults {
            for (index, rule) in fixture.faults.enumerated() where !applied.contains(index) {
                let position = fixture.faultPositions.indices.contains(index) ? fixture.faultPositions[index] : index
                let calls = observation.calls.count { $0.operation == rule.operation }
                found.append(
                    FixtureMismatch(
                        subject: "faults[\(position)]",
                        expected: "a fault on \(Self.attempts(rule.attempts))\(rule.element.map { " by element \($0)" } ?? "") of \(rule.operation.rawValue)",
                        actual: "no call it names was made (\(rule.operation.rawValue) was called \(Self.times(calls))), or an earlier fault ended the call"))
            }
        }
        if let applied = observation.appliedCustomOperationRules {
            for (index, rule) in fixture.customOperations.enumerated() where !applied.contains(index) {
                let position = fixture.customOperationPositions.indices.contains(index)
                    ? fixture.customOperationPositions[index] : fixture.faults.count + index
                let calls = observation.events.count { event in
                    if case .hubCallStarted(_, let operation, _, _) = event.kind { operation == rule.operation } else { false }
                }
                found.append(
                    FixtureMismatch(
                        subject: "faults[\(position)]", expected: "a rule for \(Self.attempts(rule.attempts)) of \(rule.operation)",
                        actual: "no call it names was made (\(rule.operation) was called \(Self.times(calls))), or an earlier rule ended the call"))
            }
        }
        return found
    }

    private func mockMismatches() -> [FixtureMismatch] {
        fixture.mocks.enumerated().compactMap { index, mock in
            guard !observation.result.visitedStates.contains(mock.state) else { return nil }
            return FixtureMismatch(
                subject: "mocks[\(index)]", expected: "state \(mock.state) entered, with its stand-in", actual: "it never was (\(endedAt))")
        }
    }

    private func answerMismatches() -> [FixtureMismatch] {
        var asked: Set<String> = []
        var rejections: [String: String] = [:]
        for event in observation.events {
            switch event.kind {
            case .questionAsked(let state, let question):
                asked.formUnion([state, question.name])
            case .answerRejected(let state, let question, let reason):
                for name in [question, state] where rejections[name] == nil { rejections[name] = reason }
            default:
                break
            }
        }
        var found: [FixtureMismatch] = []
        for (name, answer) in fixture.answers.sorted(by: { $0.key < $1.key }) {
            let subject = "answers[\(name)]"
            guard asked.contains(name) else {
                found.append(FixtureMismatch(subject: subject, expected: "question \(name) asked", actual: "it never was (\(endedAt))"))
                continue
            }
            switch answer {
            case .answer:
                if let reason = rejections[name] {
                    found.append(
                        FixtureMismatch(
                            subject: subject, expected: "the answer taken",
                            actual: "the question refused it: \(reason) (write {\"rejectedAnswer\": ...} to test a refusal)"))
                }
            case .rejectedAnswer:
                if rejections[name] == nil {
                    found.append(FixtureMismatch(subject: subject, expected: "the answer refused", actual: "the question took it"))
                }
            case .cancel:
                if observation.result.outcome != .cancelled {
                    found.append(
                        FixtureMismatch(
                            subject: subject, expected: "the run cancelled while the question waits",
                            actual: "it ended \(observation.result.outcome.rawValue)"))
                }
            case .noAnswer:
                break
            }
        }
        return found
    }

    /// What tells why an event's trigger never came: how often its operation was called, or what the run entered,
    /// and when the run ended.
    private func why(_ trigger: FixtureEvent.Trigger) -> String {
        let called: (String) -> String = { operation in
            let calls = observation.events.count { event in
                if case .hubCallStarted(_, let name, _, _) = event.kind { name == operation } else { false }
            }
            return "\(operation) was called \(Self.times(calls)); "
        }
        switch trigger {
        case .at: return endedAt
        case .after(let operation, _): return called(operation.rawValue) + endedAt
        case .afterCustom(let operation, _): return called(operation) + endedAt
        case .entering: return "the run never entered it; " + endedAt
        }
    }

    /// `every call`, `call 2`, `calls 2-3`, `calls 2 and later`.
    static func attempts(_ range: ClosedRange<Int>) -> String {
        if range.lowerBound == 1, range.upperBound == Int.max { return "every call" }
        if range.upperBound == Int.max { return "calls \(range.lowerBound) and later" }
        return range.count == 1 ? "call \(range.lowerBound)" : "calls \(range.lowerBound)-\(range.upperBound)"
    }

    static func times(_ count: Int) -> String {
        count == 0 ? "never" : count == 1 ? "once" : "\(count) times"
    }
}
