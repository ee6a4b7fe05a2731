/// The error names Amazon States Language predefines (`States.ALL`, `States.Timeout`, ...), which no MatterFlow error
/// carries: a retry entry or error route naming one never fires. Each is told with what to write instead.
enum StepFunctionsErrorName {
    /// What to write instead of `name`, or nil when it is no Step Functions name.
    static func advice(for name: String) -> String? {
        guard name.hasPrefix("States.") else { return nil }
        let instead: String
        switch name {
        case "States.ALL": instead = "write \"*\", which matches every error"
        case "States.Timeout", "States.HeartbeatTimeout":
            instead = "write \"deadlineExceeded\" (the code of a timed-out call; its cause is \"actionTimedOut\")"
        case "States.TaskFailed":
            instead = "there is no one name for every error but a timeout: route \"deadlineExceeded\" first and then \"*\", or name the codes or causes the step raises (`matterflow operations` lists them)"
        case "States.Permissions": instead = "write \"permissionDenied\""
        case "States.Runtime":
            instead = "write \"invalidArgument\" (an unresolved ${...} is its cause \"unresolvedReference\"; a retry cannot fix it)"
        case "States.ExceedToleratedFailureThreshold": instead = "write \"mapElementsFailed\" (a map state's cause)"
        default: instead = "name a canonical code or a cause (docs/workflow-language.md section 14), or \"*\" for every error"
        }
        return "\"\(name)\" is a Step Functions error name, which no MatterFlow error carries, so it never matches; \(instead)"
    }

    /// The canonical code to write for a fail state's `code` instead of `name`, if there is one.
    static func code(for name: String) -> ErrorCode? {
        switch name {
        case "States.Timeout", "States.HeartbeatTimeout": .deadlineExceeded
        case "States.Permissions": .permissionDenied
        case "States.Runtime": .invalidArgument
        case "States.ExceedToleratedFailureThreshold": .aborted
        default: nil
        }
    }
}
