import MatterFlow
import MatterFlowJSON

/// Checks `inputRefused`: the workflow must refuse the fixture's inputs, with a problem that matches.
enum InputRefusalCheck {
    static func mismatches(_ fixture: Fixture, _ refusal: FixtureExpectations.InputRefusal) -> [FixtureMismatch] {
        let problems: [Diagnostic]
        do {
            _ = try fixture.workflow.resolveInputs(fixture.inputs, source: fixture.file)
            problems = []
        } catch {
            problems = error.diagnostics
        }
        if problems.contains(where: { matches($0, refusal) }) { return [] }
        let mismatch = FixtureMismatch(
            subject: "inputRefused", expected: describe(refusal),
            actual: problems.isEmpty ? "the inputs accepted" : "the inputs refused for other reasons",
            details: problems.map { "\(input(of: $0)): \($0.code): \($0.message)" })
        return FixtureMismatch.located([mismatch], in: fixture.sourceMap)
    }

    /// The input a problem is about: the first token of its pointer (relative to the inputs).
    static func input(of problem: Diagnostic) -> String {
        JSONPointer.tokens(of: problem.pointer).first ?? ""
    }

    static func matches(_ problem: Diagnostic, _ refusal: FixtureExpectations.InputRefusal) -> Bool {
        if let name = refusal.input, name != input(of: problem) { return false }
        if let code = refusal.code, code != problem.code { return false }
        if let text = refusal.messageContains, !problem.message.contains(text) { return false }
        return true
    }

    /// `input "onboardingPayload" refused (invalidValue), with a message containing "check digit"`.
    static func describe(_ refusal: FixtureExpectations.InputRefusal) -> String {
        var text = refusal.input.map { "input \"\($0)\" refused" } ?? "an input refused"
        if let code = refusal.code { text += " (\(code))" }
        if let part = refusal.messageContains { text += ", with a message containing \(ExpectationChecker.quoted(part))" }
        return text
    }
}
