import MatterFlowJSON

/// Stable codes of the findings about workflow files, beyond the generic ones in ``DiagnosticCode``.
public enum WorkflowDiagnosticCode {
    public static let missingStart = "missingStart"
    public static let undefinedState = "undefinedState"
    public static let unknownStateType = "unknownStateType"
    public static let unknownOperation = "unknownOperation"
    public static let missingArgument = "missingArgument"
    public static let unexpectedArgument = "unexpectedArgument"
    public static let argumentType = "argumentType"
    public static let unknownGuard = "unknownGuard"
    public static let invalidReference = "invalidReference"
    public static let undefinedInput = "undefinedInput"
    public static let undefinedVariable = "undefinedVariable"
    public static let possiblyUnboundVariable = "possiblyUnboundVariable"
    public static let unknownField = "unknownField"
    public static let errorOutsideHandler = "errorOutsideHandler"
    public static let undefinedWorkflowFile = "undefinedWorkflowFile"
    public static let workflowCycle = "workflowCycle"
    public static let nestingTooDeep = "nestingTooDeep"
    public static let invalidSubworkflow = "invalidSubworkflow"
    public static let unreachableState = "unreachableState"
    public static let noTerminalReachable = "noTerminalReachable"
    public static let shadowedRetry = "shadowedRetry"
    public static let shadowedErrorRoute = "shadowedErrorRoute"
    public static let catchAllNotLast = "catchAllNotLast"
    public static let unknownErrorName = "unknownErrorName"
    public static let invalidErrorCode = "invalidErrorCode"
    public static let invalidCondition = "invalidCondition"
    public static let missingCancelPath = "missingCancelPath"
    public static let causeCodeMismatch = "causeCodeMismatch"
    public static let unknownEvent = "unknownEvent"
    public static let unknownEventValue = "unknownEventValue"
    public static let unhandledEventValue = "unhandledEventValue"
    public static let sessionLeak = "sessionLeak"
    public static let unbalancedMapBody = "unbalancedMapBody"
    public static let concurrentSessionUse = "concurrentSessionUse"
    public static let operationOutOfOrder = "operationOutOfOrder"
    public static let proofIncomplete = "proofIncomplete"
    public static let deadErrorRoute = "deadErrorRoute"
    public static let deadRetry = "deadRetry"
    public static let unhandledError = "unhandledError"
    public static let unboundedDuration = "unboundedDuration"
    public static let deadlineNotMet = "deadlineNotMet"
    public static let unsafeRetry = "unsafeRetry"
    public static let notAWorkflow = "notAWorkflow"

    /// Every workflow diagnostic code with what it means, for the language reference and tests.
    public static let all: [(code: String, meaning: String)] = [
        (DiagnosticCode.syntaxError, "the file is not valid JSON"),
        (DiagnosticCode.fileNotFound, "a named file does not exist"),
        (DiagnosticCode.unreadableFile, "a named path is a directory or cannot be read"),
        (DiagnosticCode.duplicateKey, "a key appears twice in one object"),
        (DiagnosticCode.unknownKey, "a key the language does not define here (often a typo)"),
        (DiagnosticCode.missingKey, "a required key is absent"),
        (DiagnosticCode.wrongType, "a value has the wrong JSON type"),
        (DiagnosticCode.invalidValue, "a value is malformed or not allowed here"),
        (DiagnosticCode.numberOutOfRange, "a number is outside its field's documented range, or one JSON cannot hold (NaN, Infinity, beyond 64 bits or ±1.8e308)"),
        (DiagnosticCode.unsupportedVersion, "the file needs a newer MatterFlow"),
        (notAWorkflow, "the file is a home description, fixture or operation catalog, not a workflow"),
        (missingStart, "the start state is not defined"),
        (undefinedState, "a transition names a state that does not exist"),
        (unknownStateType, "a state's type is not one the language defines"),
        (unknownOperation, "an action names an operation the hub catalog lacks"),
        (missingArgument, "a required argument or sub-workflow input is not given"),
        (unexpectedArgument, "an argument or sub-workflow input the callee does not take"),
        (argumentType, "a literal argument or input has the wrong type"),
        (unknownGuard, "a guard name that is neither built in nor declared by a given operation catalog"),
        (invalidReference, "a ${...} reference is malformed"),
        (undefinedInput, "a reference names an undeclared input"),
        (undefinedVariable, "a reference names a variable no state binds"),
        (possiblyUnboundVariable, "a variable may be unbound on some path to the state (warning)"),
        (unknownField, "a reference reads a field the value cannot have"),
        (errorOutsideHandler, "${error} is read in a state no error or cancel edge leads to"),
        (undefinedWorkflowFile, "a workflow state names a file that does not exist"),
        (workflowCycle, "workflow files include each other in a cycle"),
        (nestingTooDeep, "sub-workflows nest more levels deep than the loader allows (64)"),
        (invalidSubworkflow, "a named sub-workflow file has errors of its own"),
        (unreachableState, "no path from the start reaches the state"),
        (noTerminalReachable, "no succeed or fail state can be reached from the state"),
        (shadowedRetry, "a retry entry can never apply: earlier entries take all its errors (warning)"),
        (shadowedErrorRoute, "an error route can never apply: earlier routes take all its errors (warning)"),
        (catchAllNotLast, "\"*\" must stand alone in the last retry entry or error route"),
        (unknownErrorName, "an error name that is neither a canonical code nor a known cause (warning)"),
        (invalidErrorCode, "a fail state's code is not a canonical error code"),
        (invalidCondition, "a choice condition is malformed"),
        (missingCancelPath, "the workflow opens a commissioning session but declares no onCancel (warning)"),
        (causeCodeMismatch, "a fail state's cause belongs to another canonical code (warning)"),
        (unknownEvent, "a wait state names an event the catalog lacks"),
        (unknownEventValue, "a wait state branches on a value its event never carries"),
        (unhandledEventValue, "a wait state has no transition for some of its event's values, and no otherwise"),
        (sessionLeak, "a path from opening the commissioning session to the end of the run does not release it"),
        (unbalancedMapBody, "a map or repeat state's body can end holding the commissioning session when it did not hold it at its start, or the reverse"),
        (concurrentSessionUse, "a map state runs elements at once (concurrency above 1) whose body works in the commissioning session, which a structure has one of"),
        (operationOutOfOrder, "a path calls an operation before what the hub protocol requires before it"),
        (proofIncomplete, "the session and protocol-order proofs stopped at their limit of configurations before covering every path"),
        (deadErrorRoute, "an error route, or a name in one, can never match an error the state can raise (warning)"),
        (deadRetry, "a retry entry, or a name in one, can never match an error the state can raise (warning)"),
        (unhandledError, "an error the state can raise has no route (warning; error with handleAllErrors)"),
        (unboundedDuration, "a path can loop, so no bound on the run's duration exists"),
        (deadlineNotMet, "a path can take longer than the workflow's deadlineSeconds"),
        (unsafeRetry, "a non-idempotent operation is retried after an error that leaves its outcome in doubt"),
    ]
}
