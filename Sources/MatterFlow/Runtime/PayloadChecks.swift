import MatterPayload

/// What the engine found of an onboarding payload's text: a valid code (with what it holds that this version does
/// not define, when that was looked at), or why it is not one.
enum PayloadCheck: Sendable {
    /// A valid code; `warnings` as ``PayloadChecks/warnings(for:)`` words them, nil when only validity was asked.
    case valid(warnings: [String]?)
    /// Not a valid code: every rule it breaks, without quoting it (it holds the setup passcode).
    case invalid(problem: String)

    /// Decodes `text` once, for its validity and its warnings.
    init(_ text: String) {
        do {
            let payloads = try OnboardingPayload.decode(text)
            self = .valid(
                warnings: payloads.flatMap { payload in
                    payload.warnings().map { "onboarding payload: \($0.code.rawValue): \($0.message)" }
                })
        } catch {
            self = .invalid(problem: error.errors.map(\.description).joined(separator: "; "))
        }
    }
}

/// The onboarding payloads a run has checked, so that each code is decoded once per run however many places take it:
/// a payload input, a sub-workflow's input it is passed to, and the arguments of each call it is given to.
///
/// It holds the codes themselves, as the run's inputs and scope do, for as long as the run.
struct PayloadChecks: Sendable {
    // A run holds one code or a few: a list compared in order beats hashing each code.
    private var checked: [(text: String, check: PayloadCheck)] = []

    /// Codes already found valid, their warnings not looked at (a run's resolved payload inputs).
    init(valid texts: [String] = []) {
        checked = texts.map { ($0, .valid(warnings: nil)) }
    }

    /// Why `text` is not a valid code; nil when it is.
    mutating func problem(with text: String) -> String? {
        if let index = checked.firstIndex(where: { $0.text == text }) {
            if case .invalid(let problem) = checked[index].check { return problem }
            return nil
        }
        let check = PayloadCheck(text)
        checked.append((text, check))
        if case .invalid(let problem) = check { return problem }
        return nil
    }

    /// `text` checked with its warnings: decoded unless it already was with them.
    mutating func warnings(for text: String) -> PayloadCheck {
        if let index = checked.firstIndex(where: { $0.text == text }) {
            switch checked[index].check {
            case .valid(warnings: let warnings?): return .valid(warnings: warnings)
            case .invalid(let problem): return .invalid(problem: problem)
            case .valid(warnings: nil):
                let check = PayloadCheck(text)
                checked[index].check = check
                return check
            }
        }
        let check = PayloadCheck(text)
        checked.append((text, check))
        return check
    }
}
