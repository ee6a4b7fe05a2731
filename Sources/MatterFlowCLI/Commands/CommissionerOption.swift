import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator

/// `matterflow run --commissioner SPEC`: what the simulated commissioner does after each ePSKc activation,
/// replacing the scripts of the home's border routers.
///
/// `SPEC` is `ACTION[*COUNT][@SECONDS]`, SECONDS counted from the activation (default 0), or `never`:
/// - `useKey@30`: connects with the issued key 30 s after activation and finishes (keyUsed);
/// - `connect@10`: connects with the issued key and stays, so the key's expiry ends its session (expired);
/// - `wrongKey*3@5`: three wrong keys at 5 s (`wrongKey*10` withdraws the key: cancelled);
/// - `deactivate@20`: another app deactivates ePSKc mode (cancelled);
/// - `never`: no commissioner ever connects (the key expires).
enum CommissionerOption {
    static let option = CommandSpec.Option(
        name: "commissioner", valueName: "<action[@s]>", repeatable: true,
        help: "Simulated ePSKc commissioner: useKey, connect, wrongKey[*n], deactivate (@seconds after activation) or never.")

    /// The script the values describe, or nil when the option was not given.
    static func parse(_ values: [String], command: String) throws(UsageError) -> [HomeDescription.CommissionerStep]? {
        guard !values.isEmpty else { return nil }
        if values.contains("never"), values.count > 1 {
            throw UsageError(
                message: "--commissioner never says no commissioner connects; it cannot be given with other steps (\(values.filter { $0 != "never" }.joined(separator: ", ")))",
                command: command)
        }
        var steps: [HomeDescription.CommissionerStep] = []
        for value in values where value != "never" {
            steps.append(try step(value, command: command))
        }
        return steps
    }

    private static func step(_ value: String, command: String) throws(UsageError) -> HomeDescription.CommissionerStep {
        func failure(_ why: String) -> UsageError {
            UsageError(message: "--commissioner '\(value)': \(why); write ACTION[*COUNT][@SECONDS] or never", command: command)
        }
        var text = Substring(value)
        var seconds = 0.0
        if let at = text.firstIndex(of: "@") {
            guard let parsed = Double(text[text.index(after: at)...]) else {
                throw failure("the time after @ must be a number of seconds in \(NumberLimits.elapsed)")
            }
            // The number as written, not as a double reads it (1e400 reads as inf).
            let digits = text[text.index(after: at)...]
            let written = digits.count > 40 ? "\(digits.prefix(20))… (\(digits.count) characters)" : String(digits)
            if !parsed.isFinite || NumberLimits.elapsed.problem(with: parsed) != nil {
                throw failure("the time after @, \(written), is outside \(NumberLimits.elapsed)")
            }
            seconds = parsed
            text = text[..<at]
        }
        var count = 1
        if let star = text.firstIndex(of: "*") {
            guard let parsed = Int(text[text.index(after: star)...]), (1...100).contains(parsed) else {
                throw failure("the count after * must be 1...100")
            }
            count = parsed
            text = text[..<star]
        }
        if text == "never" { throw failure("never takes no count or time: it is the whole option (--commissioner never)") }
        let names = HomeDescription.CommissionerStep.Action.allCases.map(\.rawValue)
        guard let action = HomeDescription.CommissionerStep.Action(rawValue: String(text)) else {
            let hint = SpellingSuggestion.closest(to: String(text), among: names).map { " (did you mean '\($0)'?)" } ?? ""
            throw failure("unknown action '\(text)'\(hint) (actions: \(names.joined(separator: ", ")))")
        }
        guard count == 1 || action == .wrongKey else { throw failure("only wrongKey takes a count") }
        return HomeDescription.CommissionerStep(atSeconds: seconds, action: action, count: count)
    }
}
