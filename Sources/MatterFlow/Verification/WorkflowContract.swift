import MatterFlowJSON

/// What a workflow promises about itself, checked by the validator: the optional top-level keys
/// `handleAllErrors`, `deadlineSeconds` and `sessionOnSuccess`.
public struct WorkflowContract: Sendable, Hashable {
    /// What a succeed state may leave behind of the commissioning session.
    public enum SessionOnSuccess: String, Sendable, Hashable, CaseIterable {
        /// Every succeed state is reached with the session released (end-to-end flows).
        case released
        /// A succeed state may hand an open session to the caller (phase workflows such as `prepare.json`);
        /// the same as leaving the key out.
        case open
    }

    /// Errors that no route handles are errors (`unhandledError`), not warnings.
    public var handleAllErrors: Bool
    /// Every path, including a cancelled run's, must end within this many seconds (`deadlineNotMet`).
    public var deadlineSeconds: Double?
    /// Whether a succeed state may be reached with the commissioning session still open.
    public var sessionOnSuccess: SessionOnSuccess?

    /// A contract; the defaults are those of a workflow without the contract keys.
    public init(handleAllErrors: Bool = false, deadlineSeconds: Double? = nil, sessionOnSuccess: SessionOnSuccess? = nil) {
        self.handleAllErrors = handleAllErrors
        self.deadlineSeconds = deadlineSeconds
        self.sessionOnSuccess = sessionOnSuccess
    }

    /// Reads the contract keys of a workflow's top-level object, reporting malformed values.
    static func read(_ root: ObjectReader) -> WorkflowContract {
        var contract = WorkflowContract()
        contract.handleAllErrors = root.bool("handleAllErrors") ?? false
        contract.deadlineSeconds = root.number("deadlineSeconds", in: NumberLimits.duration)
        if let text = root.string("sessionOnSuccess") {
            if let value = SessionOnSuccess(rawValue: text) {
                contract.sessionOnSuccess = value
            } else {
                root.collector.error(
                    DiagnosticCode.invalidValue, at: root.pointer("sessionOnSuccess"),
                    "\"sessionOnSuccess\" must be \"released\" or \"open\"\(SpellingSuggestion.hint(for: text, among: SessionOnSuccess.allCases.map(\.rawValue)))")
            }
        }
        return contract
    }
}

/// How an action state makes a repeat of a non-idempotent operation safe, so that it may be retried after an
/// error that leaves the first attempt's outcome in doubt (a timeout, an unrecognised hub failure).
public struct RepeatSafety: Sendable, Hashable {
    /// The argument by which the hub recognises a repeated call as the same one, so it cannot act twice. The
    /// operation must declare it (``OperationDescriptor/idempotencyKey``) and the state must pass it.
    public var idempotencyKey: String

    /// Repeats made safe by passing `idempotencyKey`, the name of the operation's argument the hub recognises them by.
    public init(idempotencyKey: String) {
        self.idempotencyKey = idempotencyKey
    }

    /// Reads an action state's `repeatSafety` object, if present.
    static func read(_ state: ObjectReader) -> RepeatSafety? {
        guard let reader = state.object("repeatSafety") else { return nil }
        let key = reader.string("idempotencyKey", required: true)
        reader.finish()
        return key.map(RepeatSafety.init(idempotencyKey:))
    }
}
