/// Stable codes of the errors drawing a workflow can end with (`matterflow graph`).
public enum GraphDiagnosticCode {
    /// `--expand` would draw more states than an expanded graph may have (``WorkflowGraph/maximumExpandedStates``).
    public static let graphTooLarge = "graphTooLarge"
    /// A highlighted path names a state the workflow does not have, or is a trace of another workflow.
    public static let highlightMismatch = "highlightMismatch"
}
