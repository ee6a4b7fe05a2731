import MatterFlowJSON

/// Diagnostic codes specific to fixture files; the shared ones (`unknownKey`, `wrongType`, ...) are in
/// ``DiagnosticCode``. Codes are stable: scripts and editors may rely on them.
public enum FixtureDiagnosticCode {
    /// The file is a workflow, not a fixture (it has `states` and `start`).
    public static let notAFixture = "notAFixture"
    /// The fixture's workflow file has errors (they are reported too, under the workflow's own path).
    public static let invalidWorkflow = "invalidWorkflow"
    /// The fixture's home file has errors (they are reported too, under the home file's own path).
    public static let invalidHome = "invalidHome"
    /// A fault, event or expectation names an operation the simulated hub does not have.
    public static let unknownOperation = "unknownOperation"
    /// An event or expectation names a state the workflow (with its sub-workflows) does not have.
    public static let unknownState = "unknownState"
    /// An event names an action the fixture format does not define.
    public static let unknownAction = "unknownAction"
    /// A fault or expected error names a code that is not canonical.
    public static let invalidErrorCode = "invalidErrorCode"
    /// Warning: a fault raises a cause the operation does not declare, so a real hub would not raise it there.
    public static let undeclaredCause = "undeclaredCause"
    /// Warning: two fixtures of one `matterflow test` have the same name, so their results cannot be told apart.
    public static let duplicateFixtureName = "duplicateFixtureName"

    /// Every code a fixture file can produce, shared ones included.
    public static let all: [String] = [
        DiagnosticCode.syntaxError, DiagnosticCode.fileNotFound, DiagnosticCode.unreadableFile,
        DiagnosticCode.duplicateKey, DiagnosticCode.unknownKey, DiagnosticCode.missingKey, DiagnosticCode.wrongType,
        DiagnosticCode.invalidValue, DiagnosticCode.numberOutOfRange, DiagnosticCode.unsupportedVersion, notAFixture, invalidWorkflow, invalidHome,
        unknownOperation, unknownState, unknownAction, invalidErrorCode, undeclaredCause, duplicateFixtureName,
    ]
}
