import MatterPayload

/// What the engine found of an onboarding payload's text: a valid code for one device, with what it holds that this
/// version does not define, or why it is not one.
package enum PayloadCheck: Sendable {
    /// A valid code, and its warnings as a run reports them.
    case valid(warnings: [String])
    /// Not a valid code: every rule it breaks, without quoting it (it holds the setup passcode).
    case invalid(problem: String)

    /// Decodes `text` once, for its validity and its warnings. A QR code joining several devices' payloads (`*`) is
    /// refused: `commissionDevice` commissions one device.
    init(_ text: String) {
        do {
            let payloads = try OnboardingPayload.decode(text)
            guard payloads.count == 1 else {
                self = .invalid(problem: Self.severalDevices(payloads.count))
                return
            }
            self = .valid(
                warnings: payloads.flatMap { payload in
                    payload.warnings().map { "onboarding payload: \($0.code.rawValue): \($0.message)" }
                })
        } catch {
            self = .invalid(problem: error.errors.map(\.description).joined(separator: "; "))
        }
    }

    /// Why a QR code joining `count` devices' payloads is not one a commissioning takes (the engine's check and the
    /// simulated hub's say it alike).
    package static func severalDevices(_ count: Int) -> String {
        "the QR code holds \(count) devices' payloads; commission one device at a time with its own code"
    }

    /// Why the code is not valid; nil when it is.
    var problem: String? {
        if case .invalid(let problem) = self { problem } else { nil }
    }
}

/// The onboarding payloads a run has checked, so that each code is decoded once per run however many places take it:
/// a payload input, a sub-workflow's input it is passed to, and the arguments of each call it is given to.
///
/// It holds the codes themselves, as the run's inputs and scope do, for as long as the run.
struct PayloadChecks: Sendable {
    // A run holds one code or a few: a list compared in order beats hashing each code.
    private var checked: [(text: String, check: PayloadCheck)] = []

    /// `text` checked: decoded unless the run has checked it already.
    mutating func check(_ text: String) -> PayloadCheck {
        if let known = checked.first(where: { $0.text == text }) { return known.check }
        let check = PayloadCheck(text)
        checked.append((text, check))
        return check
    }
}
