import MatterFlow
import MatterFlowJSON

/// How one fixture went: what its run produced and every expectation it did not meet.
public struct FixtureResult: Sendable {
    /// The fixture that ran.
    public var fixture: Fixture
    /// What the run produced; nil when the run could not start (the mismatch says why).
    public var observation: RunObservation?
    /// Every difference between the expectations and the run, in the order the expectations are listed.
    public var mismatches: [FixtureMismatch]

    /// A result.
    public init(fixture: Fixture, observation: RunObservation?, mismatches: [FixtureMismatch]) {
        self.fixture = fixture
        self.observation = observation
        self.mismatches = mismatches
    }

    /// Whether every expectation was met (a run took place, unless the inputs were expected refused).
    public var passed: Bool { mismatches.isEmpty && (observation != nil || fixture.expectations.inputRefused != nil) }

    /// The result as JSON, for `matterflow test --json`.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["fixture"] = .string(fixture.name)
        object["file"] = .string(fixture.file)
        object["workflow"] = .string(fixture.workflowFile)
        object["passed"] = .bool(passed)
        object["mismatches"] = .array(mismatches.map(\.jsonValue))
        if let observation {
            object["outcome"] = .string(observation.result.outcome.rawValue)
            object["error"] = observation.result.jsonValue["error"] ?? .null
            object["output"] = observation.result.redactedOutput ?? .null
            object["warnings"] = .array(observation.result.warnings.map(JSONValue.string))
            object["path"] = .array(observation.result.visitedStates.map(JSONValue.string))
            object["elapsedSeconds"] = .double(observation.elapsed.secondsValue)
        }
        return .object(object)
    }
}

/// One expectation a run did not meet: what was expected, what happened, and details that show the difference.
public struct FixtureMismatch: Sendable, Hashable, CustomStringConvertible {
    /// What was checked: `outcome`, `error.cause`, `path`, `calls.cancelCommissioning`, `hub.activeSession`, ...
    public var subject: String
    /// What the fixture expected, in words.
    public var expected: String
    /// What happened, in words.
    public var actual: String
    /// Further lines (for a path: both sequences and where they part).
    public var details: [String]
    /// Where in the fixture file the expectation was written, as a JSON pointer (`/expect/outcome`); nil for a
    /// fixture built in code. A part of an expectation not written as such (a member the run lacks) names the
    /// nearest part that was.
    public var pointer: String?
    /// The line and column of ``pointer`` in the fixture file.
    public var location: SourceLocation?

    /// A mismatch.
    public init(subject: String, expected: String, actual: String, details: [String] = []) {
        self.subject = subject
        self.expected = expected
        self.actual = actual
        self.details = details
    }

    /// `outcome: expected succeeded, got failed`, then the details, indented.
    public var description: String {
        (["\(subject): expected \(expected), got \(actual)"] + details.map { "  " + $0 }).joined(separator: "\n")
    }

    /// The mismatch as JSON.
    public var jsonValue: JSONValue {
        var object: JSONObject = [
            "subject": .string(subject), "expected": .string(expected), "actual": .string(actual),
            "details": .array(details.map(JSONValue.string)),
        ]
        if let pointer { object["pointer"] = .string(pointer) }
        if let location {
            object["line"] = .int(location.line)
            object["column"] = .int(location.column)
        }
        return .object(object)
    }
}
