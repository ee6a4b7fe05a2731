import MatterFlowJSON

/// Stable codes of the findings about workflow files, beyond the generic ones in ``DiagnosticCode``.
public enum WorkflowDiagnosticCode {
    /// The start state is not defined.
    public static let missingStart = "missingStart"
    /// A transition (`next`, `default`, a route's or branch's `next`, `onCancel`) names a state that does not exist.
    public static let undefinedState = "undefinedState"
    /// A state's type is not one the language defines.
    public static let unknownStateType = "unknownStateType"
    /// An action names an operation the hub catalog lacks.
    public static let unknownOperation = "unknownOperation"
    /// A required argument or sub-workflow input is not given.
    public static let missingArgument = "missingArgument"
    /// An argument or sub-workflow input the callee does not take.
    public static let unexpectedArgument = "unexpectedArgument"
    /// A literal argument or input has the wrong type.
    public static let argumentType = "argumentType"
    /// A guard name that is neither built in nor declared by a given operation catalog.
    public static let unknownGuard = "unknownGuard"
    /// A `${...}` reference is malformed.
    public static let invalidReference = "invalidReference"
    /// A reference names an undeclared input.
    public static let undefinedInput = "undefinedInput"
    /// A reference names a variable no state binds, or one no path binds before the reading state.
    public static let undefinedVariable = "undefinedVariable"
    /// A variable (or `${error}`) may be unbound on some path to the state (a warning).
    public static let possiblyUnboundVariable = "possiblyUnboundVariable"
    /// A reference reads a field the value cannot have.
    public static let unknownField = "unknownField"
    /// A comparison sets a value of a known type against a literal of another, so it never holds (a warning).
    public static let typeMismatch = "typeMismatch"
    /// `${error}` is read in a state no error or cancel edge leads to.
    public static let errorOutsideHandler = "errorOutsideHandler"
    /// A workflow state names a file that does not exist.
    public static let undefinedWorkflowFile = "undefinedWorkflowFile"
    /// Workflow files include each other in a cycle.
    public static let workflowCycle = "workflowCycle"
    /// Sub-workflows nest more than ``WorkflowLoader/maximumNestingDepth`` (64) levels below the loaded file.
    public static let nestingTooDeep = "nestingTooDeep"
    /// A named sub-workflow file has errors of its own.
    public static let invalidSubworkflow = "invalidSubworkflow"
    /// No path from the start reaches the state.
    public static let unreachableState = "unreachableState"
    /// No succeed or fail state can be reached from the state.
    public static let noTerminalReachable = "noTerminalReachable"
    /// A retry entry can never apply: earlier entries take all its errors (a warning).
    public static let shadowedRetry = "shadowedRetry"
    /// An error route can never apply: earlier routes take all its errors (a warning).
    public static let shadowedErrorRoute = "shadowedErrorRoute"
    /// `"*"` does not stand alone in the last retry entry or error route.
    public static let catchAllNotLast = "catchAllNotLast"
    /// An error name that is neither a canonical code nor a known cause (a warning).
    public static let unknownErrorName = "unknownErrorName"
    /// A retry entry or error route names a Step Functions error (`States.ALL`, `States.Timeout`, ...), which no
    /// MatterFlow error carries, so it never matches.
    public static let foreignErrorName = "foreignErrorName"
    /// An action's retry entry names an error its arguments raise again on every attempt (`invalidArgument` and its
    /// causes), so retrying only delays the failure (a warning).
    public static let pointlessRetry = "pointlessRetry"
    /// A fail state's literal code is not a canonical error code.
    public static let invalidErrorCode = "invalidErrorCode"
    /// A choice condition is malformed: not exactly one operator, an unknown operator, wrong operand shape.
    public static let invalidCondition = "invalidCondition"
    /// The workflow (or a sub-workflow) opens a commissioning session but declares no `onCancel` (a warning).
    public static let missingCancelPath = "missingCancelPath"
    /// A fail state's literal `cause` is a known cause of another canonical code (a warning).
    public static let causeCodeMismatch = "causeCodeMismatch"
    /// A wait state names an event the catalog lacks.
    public static let unknownEvent = "unknownEvent"
    /// A wait state branches on a value its event never carries.
    public static let unknownEventValue = "unknownEventValue"
    /// A wait state has no transition for some of its event's values, and no `otherwise`.
    public static let unhandledEventValue = "unhandledEventValue"
    /// A path from opening the commissioning session to the end of the run does not release it.
    public static let sessionLeak = "sessionLeak"
    /// A map or repeat state's body can end holding the commissioning session when it began without it, or the
    /// reverse.
    public static let unbalancedMapBody = "unbalancedMapBody"
    /// A map state runs elements at once (`concurrency` above 1) whose body opens, uses or releases the
    /// commissioning session.
    public static let concurrentSessionUse = "concurrentSessionUse"
    /// A path calls an operation before what the hub protocol requires before it.
    public static let operationOutOfOrder = "operationOutOfOrder"
    /// A choice branch reads a member of a support-check result (such as a border router's description) that the
    /// result does not declare, so it is no support check (a warning).
    public static let unknownSupportField = "unknownSupportField"
    /// The session-release and protocol-order proofs stopped at their limit of configurations before covering
    /// every path, so they prove nothing.
    public static let proofIncomplete = "proofIncomplete"
    /// An error route, or a name in one, can never match an error the state can raise (a warning).
    public static let deadErrorRoute = "deadErrorRoute"
    /// A retry entry, or a name in one, can never match an error the state can raise (a warning).
    public static let deadRetry = "deadRetry"
    /// An error the state can raise has no route, so it would end the workflow (a warning; an error when the
    /// workflow declares `handleAllErrors`).
    public static let unhandledError = "unhandledError"
    /// A path can loop, so no bound on the run's duration exists.
    public static let unboundedDuration = "unboundedDuration"
    /// A path can take longer than the workflow's `deadlineSeconds`.
    public static let deadlineNotMet = "deadlineNotMet"
    /// A non-idempotent operation is retried after an error that leaves its outcome in doubt, with no
    /// `repeatSafety`.
    public static let unsafeRetry = "unsafeRetry"
    /// The file is a home description, fixture or operation catalog, not a workflow.
    public static let notAWorkflow = "notAWorkflow"
    /// An input not declared secret is passed to a secret argument or sub-workflow input, so its value would show
    /// in the run's start, checkpoints and traces.
    public static let secretInputNotDeclared = "secretInputNotDeclared"

    /// The codes of the proofs over every path (the language reference's section 18), which look at a file only once
    /// it has no other error: a file whose errors are all of other codes was not proved.
    public static let proofs: Set<String> = [
        sessionLeak, operationOutOfOrder, concurrentSessionUse, unbalancedMapBody, unknownSupportField, proofIncomplete,
        unhandledError, deadErrorRoute, deadRetry, shadowedErrorRoute, shadowedRetry, unsafeRetry, unboundedDuration,
        deadlineNotMet,
    ]

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
        (typeMismatch, "a comparison sets a value of a known type against a literal of another, so it never holds (warning)"),
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
        (foreignErrorName, "a retry entry or error route names a Step Functions error (States.ALL, States.Timeout, ...), which never matches"),
        (pointlessRetry, "an action retries an error its arguments raise again on every attempt, such as invalidPayload (warning)"),
        (invalidErrorCode, "a fail state's code is not a canonical error code, or a literal it re-raises is no error value"),
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
        (unknownSupportField, "a choice branch reads a member of a support-check result that the result does not declare, so it is no support check (warning)"),
        (proofIncomplete, "the session and protocol-order proofs stopped at their limit of configurations before covering every path"),
        (deadErrorRoute, "an error route, or a name in one, can never match an error the state can raise (warning)"),
        (deadRetry, "a retry entry, or a name in one, can never match an error the state can raise (warning)"),
        (unhandledError, "an error the state can raise has no route (warning; error with handleAllErrors)"),
        (unboundedDuration, "a path can loop, so no bound on the run's duration exists"),
        (deadlineNotMet, "a path can take longer than the workflow's deadlineSeconds"),
        (unsafeRetry, "a non-idempotent operation is retried after an error that leaves its outcome in doubt"),
        (secretInputNotDeclared, "an input not declared secret is passed to a secret argument or sub-workflow input"),
    ]
}
