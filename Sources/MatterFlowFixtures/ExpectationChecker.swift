import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator

/// Compares a fixture's expectations with what its run produced.
struct ExpectationChecker {
    let fixture: Fixture
    let observation: RunObservation

    typealias Expectations = FixtureExpectations

    private var expect: FixtureExpectations { fixture.expectations }
    private var result: RunResult { observation.result }

    func mismatches() -> [FixtureMismatch] {
        var found: [FixtureMismatch] = []
        if let outcome = expect.outcome, outcome != result.outcome {
            found.append(FixtureMismatch(subject: "outcome", expected: outcome.rawValue, actual: Self.describe(result)))
        }
        found += errorMismatches()
        found += PathComparison.mismatches(expect: expect, visited: result.visitedStates)
        found += callMismatches()
        found += callOrderMismatches()
        if let output = expect.output {
            found += JSONSubset.differences(
                expected: output, actual: result.output ?? .null, described: result.redactedOutput ?? .null, at: "output",
                redacting: result.redacting
            ).map {
                FixtureMismatch(subject: $0.path, expected: $0.expected, actual: $0.actual)
            }
        }
        found += warningMismatches()
        found += shownMismatches()
        if let hub = expect.hub {
            // The home after the run may hold a secret (a device named after its code): redacted below.
            found += HubComparison(expect: hub, observation: observation).mismatches()
        }
        if let seconds = expect.elapsedSeconds {
            let elapsed = observation.elapsed.secondsValue
            if abs(elapsed - seconds) > 0.0005 {
                found.append(
                    FixtureMismatch(
                        subject: "elapsedSeconds", expected: FixtureFormat.seconds(seconds),
                        actual: FixtureFormat.seconds(elapsed)))
            }
        }
        found += scenarioMismatches()
        // What an expectation says may be one of the run's secrets in another spelling (the manual code of the QR
        // code it was given): a report holds none of them, whoever wrote them.
        let redacted = found.map { mismatch in
            var redacted = mismatch
            redacted.expected = result.redacting(mismatch.expected)
            redacted.actual = result.redacting(mismatch.actual)
            redacted.details = mismatch.details.map(result.redacting)
            return redacted
        }
        return FixtureMismatch.located(redacted, in: fixture.sourceMap)
    }

    /// The run's calls, by operation, in the order it made them, against `callsInOrder`.
    private func callOrderMismatches() -> [FixtureMismatch] {
        guard let order = expect.callsInOrder else { return [] }
        let made = observation.events.compactMap { event -> String? in
            if case .hubCallStarted(_, let operation, _, _) = event.kind { operation } else { nil }
        }
        var position = made.startIndex
        for (number, operation) in order.enumerated() {
            guard let match = made[position...].firstIndex(of: operation) else {
                let after = number == 0 ? "" : " after \(order[number - 1])"
                return [
                    FixtureMismatch(
                        subject: "callsInOrder", expected: "a call of \(operation)\(after)",
                        actual: "none\(after.isEmpty ? "" : " there")",
                        details: ["expected in order: " + order.joined(separator: " → "), "actual: " + made.joined(separator: " → ")])
                ]
            }
            position = made.index(after: match)
        }
        return []
    }

    /// `failed: unavailable (hubOffline) in commission/commission`.
    static func describe(_ result: RunResult) -> String {
        guard let error = result.error else { return result.outcome.rawValue }
        return "\(result.outcome.rawValue): \(error.code.rawValue) (\(error.cause.rawValue)) in \(error.state ?? "?")"
    }

    private func errorMismatches() -> [FixtureMismatch] {
        guard let expected = expect.error else { return [] }
        guard let expected else {
            return result.error.map { [FixtureMismatch(subject: "error", expected: "none", actual: "\($0)")] } ?? []
        }
        guard let error = result.error else {
            return [
                FixtureMismatch(subject: "error", expected: "an error", actual: "none (\(result.outcome.rawValue))")
            ]
        }
        var found: [FixtureMismatch] = []
        func check(_ subject: String, _ expected: String?, _ actual: String?) {
            if let expected, expected != actual {
                found.append(
                    FixtureMismatch(
                        subject: subject, expected: Self.quoted(expected), actual: actual.map(Self.quoted) ?? "none"))
            }
        }
        check("error.code", expected.code?.rawValue, error.code.rawValue)
        check("error.cause", expected.cause, error.cause.rawValue)
        check("error.state", expected.state, error.state)
        check("error.message", expected.message, error.message)
        if let part = expected.messageContains, !error.message.contains(part) {
            found.append(
                FixtureMismatch(
                    subject: "error.message", expected: "text containing \(Self.quoted(part))",
                    actual: Self.quoted(error.message)))
        }
        return found
    }

    private func callMismatches() -> [FixtureMismatch] {
        var found: [FixtureMismatch] = []
        for (operation, expected) in expect.calls.sorted(by: { $0.key < $1.key }) {
            let calls = observation.calls.filter { $0.operation == operation }
            let succeeded = calls.filter { $0.outcome == .succeeded }.count
            let subject = "calls.\(operation.rawValue)"
            let summary =
                calls.isEmpty ? "0" : "\(calls.count) (\(succeeded) succeeded, \(calls.count - succeeded) failed)"
            let details = calls.map { "#\($0.attempt) at \(FixtureFormat.seconds($0.startedAt)) s: \($0.outcome)" }
            func check(_ what: String, _ holds: Bool) {
                if !holds {
                    found.append(FixtureMismatch(subject: subject, expected: what, actual: summary, details: details))
                }
            }
            if let count = expected.count { check("\(count) call\(count == 1 ? "" : "s")", calls.count == count) }
            if let atLeast = expected.atLeast { check("at least \(atLeast)", calls.count >= atLeast) }
            if let atMost = expected.atMost { check("at most \(atMost)", calls.count <= atMost) }
            if let number = expected.succeeded { check("\(number) succeeded", succeeded == number) }
            if let number = expected.failed { check("\(number) failed", calls.count - succeeded == number) }
            found += argumentMismatches(operation.rawValue, expected.arguments)
        }
        found += customCallMismatches()
        return found
    }

    /// The arguments of an operation's calls, from the run's `hubCallStarted` events, against `arguments`.
    private func argumentMismatches(_ operation: String, _ expected: Expectations.ArgumentsExpectation?) -> [FixtureMismatch] {
        guard let expected else { return [] }
        let made = observation.events.compactMap { event -> JSONObject? in
            if case .hubCallStarted(_, let name, _, let arguments) = event.kind, name == operation { arguments } else { nil }
        }
        let subject = "calls.\(operation).arguments"
        let shown = made.enumerated().map { "call \($0.offset + 1): " + JSONWriter.compact(.object($0.element)) }
        func differences(_ wanted: JSONObject, _ arguments: JSONObject, at path: String) -> [FixtureMismatch] {
            JSONSubset.differences(expected: .object(wanted), actual: .object(arguments), at: path, redacting: result.redacting).map {
                FixtureMismatch(subject: $0.path, expected: $0.expected, actual: $0.actual, details: shown)
            }
        }
        switch expected {
        case .every(let wanted):
            guard !made.isEmpty else {
                return [FixtureMismatch(subject: subject, expected: "calls with \(JSONWriter.compact(.object(wanted)))", actual: "no call")]
            }
            // A difference is reported once per member, with the first call that had it.
            var found: [FixtureMismatch] = []
            var reported: Set<String> = []
            for (index, arguments) in made.enumerated() {
                for mismatch in differences(wanted, arguments, at: subject) where reported.insert(mismatch.subject).inserted {
                    var numbered = mismatch
                    numbered.actual += " (call \(index + 1))"
                    found.append(numbered)
                }
            }
            return found
        case .each(let calls):
            guard calls.count == made.count else {
                return [
                    FixtureMismatch(
                        subject: subject, expected: "\(calls.count) call\(calls.count == 1 ? "" : "s")", actual: "\(made.count)", details: shown)
                ]
            }
            return zip(calls, made).enumerated().flatMap { index, pair in differences(pair.0, pair.1, at: subject + "[\(index)]") }
        }
    }

    /// Calls of custom operations, counted from the run's `hubCallFinished` events (the simulated home records
    /// only its own operations).
    private func customCallMismatches() -> [FixtureMismatch] {
        var found: [FixtureMismatch] = []
        for (operation, expected) in expect.customCalls.sorted(by: { $0.key < $1.key }) {
            var outcomes: [Bool] = []
            for event in observation.events {
                if case .hubCallFinished(_, let name, _, _, let error) = event.kind, name == operation {
                    outcomes.append(error == nil)
                }
            }
            let succeeded = outcomes.filter { $0 }.count
            let summary = outcomes.isEmpty ? "0" : "\(outcomes.count) (\(succeeded) succeeded, \(outcomes.count - succeeded) failed)"
            func check(_ what: String, _ holds: Bool) {
                if !holds { found.append(FixtureMismatch(subject: "calls.\(operation)", expected: what, actual: summary)) }
            }
            if let count = expected.count { check("\(count) call\(count == 1 ? "" : "s")", outcomes.count == count) }
            if let atLeast = expected.atLeast { check("at least \(atLeast)", outcomes.count >= atLeast) }
            if let atMost = expected.atMost { check("at most \(atMost)", outcomes.count <= atMost) }
            if let number = expected.succeeded { check("\(number) succeeded", succeeded == number) }
            if let number = expected.failed { check("\(number) failed", outcomes.count - succeeded == number) }
            found += argumentMismatches(operation, expected.arguments)
        }
        return found
    }

    private func warningMismatches() -> [FixtureMismatch] {
        guard let expected = expect.warnings else { return [] }
        let actual = result.warnings
        let matches = expected.count == actual.count && zip(expected, actual).allSatisfy { $1.contains($0) }
        guard !matches else { return [] }
        return [
            FixtureMismatch(
                subject: "warnings", expected: "\(expected.count) warning\(expected.count == 1 ? "" : "s")",
                actual: "\(actual.count)",
                details: expected.map { "expected one containing \(Self.quoted($0))" }
                    + actual.map { "got \(Self.quoted($0))" })
        ]
    }

    private func shownMismatches() -> [FixtureMismatch] {
        guard let expected = expect.shown else { return [] }
        // Matched against what the person saw; reported with its secrets redacted, as the report may go to a log.
        let actual = observation.events.compactMap { event -> (value: JSONValue, revealed: JSONValue)? in
            if case .shown(_, let value, let revealed) = event.kind { (value, revealed) } else { nil }
        }
        guard expected.count == actual.count else {
            return [
                FixtureMismatch(
                    subject: "shown", expected: "\(expected.count) value\(expected.count == 1 ? "" : "s") shown",
                    actual: "\(actual.count)", details: actual.map { "shown \(JSONWriter.compact($0.value))" })
            ]
        }
        return zip(expected, actual).enumerated().flatMap { index, pair in
            JSONSubset.differences(
                expected: pair.0, actual: pair.1.revealed, described: pair.1.value, at: "shown[\(index)]", redacting: result.redacting
            ).map {
                FixtureMismatch(subject: $0.path, expected: $0.expected, actual: $0.actual)
            }
        }
    }

    static func quoted(_ text: String) -> String {
        var output = ""
        JSONWriter.writeString(text, into: &output)
        return output
    }
}

/// Compares the visited states with `path`, `pathIncludes` and `pathExcludes`.
enum PathComparison {
    static func mismatches(expect: FixtureExpectations, visited: [String]) -> [FixtureMismatch] {
        var found: [FixtureMismatch] = []
        if let path = expect.path, path != visited {
            let index =
                zip(path, visited).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(path.count, visited.count)
            let expected =
                index < path.count
                ? "#\(index + 1) \(path[index])"
                : path.last.map { "the end of the run after #\(index) \($0)" } ?? "no state at all"
            let actual =
                index < visited.count
                ? "#\(index + 1) \(visited[index])" : "the end of the run after #\(index) \(visited.last ?? "nothing")"
            found.append(
                FixtureMismatch(
                    subject: "path", expected: expected, actual: actual,
                    details: [
                        "expected (\(path.count)): " + path.joined(separator: " → "),
                        "actual (\(visited.count)):   " + visited.joined(separator: " → "),
                    ]))
        }
        if let includes = expect.pathIncludes {
            var position = visited.startIndex
            for (number, state) in includes.enumerated() {
                guard let match = visited[position...].firstIndex(of: state) else {
                    let after = number == 0 ? "" : " after \(includes[number - 1])"
                    found.append(
                        FixtureMismatch(
                            subject: "pathIncludes", expected: "\(state)\(after)",
                            actual: after.isEmpty || !visited.contains(state)
                                ? "\(state) never visited" : "\(state) not visited\(after) (only before it)",
                            details: [
                                "expected in order: " + includes.joined(separator: " → "),
                                "actual: " + visited.joined(separator: " → "),
                            ]))
                    break
                }
                position = visited.index(after: match)
            }
        }
        for state in expect.pathExcludes ?? [] where visited.contains(state) {
            found.append(
                FixtureMismatch(
                    subject: "pathExcludes", expected: "\(state) not visited", actual: "visited",
                    details: ["actual: " + visited.joined(separator: " → ")]))
        }
        return found
    }
}
