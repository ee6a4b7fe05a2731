import MatterFlowJSON

/// How a run ended.
public struct RunResult: Sendable {
    /// How the run ended: at a succeed state, at a fail state or an error no route took, or on its cancel path.
    public enum Outcome: String, Sendable, Hashable {
        case succeeded, failed, cancelled
    }

    /// The run's ID (``RunOptions/runID``, or the one the engine made).
    public var runID: String
    /// The name of the workflow that ran.
    public var workflow: String
    /// How the run ended.
    public var outcome: Outcome
    /// The succeed state's output.
    public var output: JSONValue?
    /// The output with every secret value the run knew (secret inputs, secret results such as an ePSKc) replaced by
    /// `"<redacted>"`: what is kept beyond the caller (a journal, a run store). The same as ``output`` when the run
    /// shows its secrets; nil when the output is. Worked out when asked for, so a run whose output nobody keeps
    /// does not pay for finding its secrets' encoded forms.
    public var redactedOutput: JSONValue? {
        guard let output else { return nil }
        return redaction.map { $0.redacting(output) } ?? output
    }
    /// The secrets ``redactedOutput`` removes: the run's, unless it shows them.
    var redaction: SecretValues? = nil

    /// `text` with every secret value the run knew replaced by `"<redacted>"`, as in ``redactedOutput``: for a report
    /// that quotes what the run left behind (the devices a hub holds after it, say). `text` itself when the run shows
    /// its secrets.
    public func redacting(_ text: String) -> String {
        redaction.map { $0.redacting(text) } ?? text
    }
    /// Why the run failed or was cancelled.
    public var error: FlowError?
    /// Warnings recorded by assign states (for example, a configure failure that did not fail commissioning).
    public var warnings: [String]
    /// Every state entered, qualified by sub-workflow state (`commission/commissionDevice`), in order.
    public var visitedStates: [String]
    /// The run ended holding the structure's commissioning session: it opened it and did not release it, as
    /// `prepare.json` does on purpose for later runs to continue in. False once a release ended the hold (one that
    /// took effect, or a failed or timed-out `cancelCommissioning`, whose attempt suffices as the verifier counts
    /// it), and for a session the hub opened after the run stopped waiting (which the run releases itself, or leaves
    /// to the hub's lease).
    public var holdsSession = false
    /// Sessions the run may have left open on the hub, in the order the run learnt of them: a release the hub did
    /// not confirm, or a session the hub opened late that the run could not release. Empty when the run left none in
    /// doubt (``holdsSession`` says whether it keeps one on purpose).
    public var sessionsInDoubt: [SessionInDoubt] = []

    /// A result, as a service's own tests may need one (a run builds its own).
    public init(
        runID: String, workflow: String, outcome: Outcome, output: JSONValue? = nil, error: FlowError? = nil,
        warnings: [String] = [], visitedStates: [String] = [], holdsSession: Bool = false,
        sessionsInDoubt: [SessionInDoubt] = []
    ) {
        self.runID = runID
        self.workflow = workflow
        self.outcome = outcome
        self.output = output
        self.error = error
        self.warnings = warnings
        self.visitedStates = visitedStates
        self.holdsSession = holdsSession
        self.sessionsInDoubt = sessionsInDoubt
    }

    /// The result object the CLI prints: `{"workflow", "outcome", "output", "error", "warnings", "runID"}`, and
    /// `"sessionsInDoubt"` when the run left any.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["workflow"] = .string(workflow)
        object["outcome"] = .string(outcome.rawValue)
        object["output"] = output ?? .null
        object["error"] = error.map(Scope.json) ?? .null
        object["warnings"] = .array(warnings.map(JSONValue.string))
        object["runID"] = .string(runID)
        if !sessionsInDoubt.isEmpty { object["sessionsInDoubt"] = .array(sessionsInDoubt.map(\.jsonValue)) }
        return .object(object)
    }
}
