import MatterFlowJSON

extension SpellingSynonyms {
    /// What writers of Amazon States Language (Step Functions) and XState machines, and common spellings, call the
    /// workflow language's state types, keys, condition operators and input types, so a finding suggests the name
    /// that does the same thing here (`Task`: `action`, `Catch`: `onError`, `eq`: `equals`, `int`: `integer`) rather
    /// than the one that merely looks alike (`ask`, `retry`, `or`), and says how to write what has no one name here.
    public static let workflowLanguage = SpellingSynonyms([
        // Step Functions state types.
        (["Task"], Entry(["action", "workflow"], note: "an action state calls one hub operation", noteWithTarget: true)),
        (["Wait"], Entry(
            ["wait", "delay"],
            note: "a wait state waits for a hub event; to wait for a time, as Step Functions' Wait does, use a delay state",
            noteWithTarget: true)),
        (["Pass"], Entry(["assign"], note: "an assign state sets variables")),
        (["Parallel"], Entry(
            ["map"],
            note: "branches do not run side by side here; a map state runs a sub-workflow for each element of a list, several at once with concurrency",
            noteWithTarget: true)),
        (["Succeed", "final", "done", "success"], Entry(["succeed"])),
        (["Fail", "failure", "failed"], Entry(["fail"])),
        // Step Functions keys.
        (["StartAt", "initial", "startState", "entryPoint"], Entry(["start"])),
        (["Comment", "desc", "meta"], Entry(["description"])),
        (["Resource", "invoke", "call", "op", "service"], Entry(
            ["operation", "path"],
            note: "an action state names its hub operation in \"operation\"; a workflow state names its sub-workflow file in \"path\"")),
        (["Parameters", "Arguments", "args", "params", "input"], Entry(
            ["arguments", "inputs"], note: "an action state's arguments, a workflow or map state's inputs")),
        (["ResultPath", "ResultSelector", "resultVar", "saveAs", "assignTo"], Entry(
            ["result"], note: "\"result\" binds the step's whole result to a variable; read parts of it as ${vars.NAME.field}",
            noteWithTarget: true)),
        (["OutputPath"], Entry(
            ["output"], note: "only a succeed state has an output: what the run returns; other states bind results with \"result\"")),
        (["InputPath"], Entry(
            [], note: "there is no input filter: a state reads what it needs with ${input.NAME} and ${vars.NAME} references")),
        (["Next", "then", "goto", "target", "transition", "nextState", "onDone"], Entry(["next"])),
        (["End"], Entry(
            [], note: "a run ends in a succeed or fail state: point \"next\" at one instead of marking this state the end")),
        (["Catch", "catchErrors", "onFailure", "onErrors", "errorHandlers"], Entry(["onError"])),
        (["Retry", "retries", "retrier", "retryPolicy"], Entry(["retry", "maxRetries"])),
        (["ErrorEquals", "errorCodes", "codes"], Entry(["errors"])),
        (["MaxAttempts", "attempts", "retryCount", "maxRetry"], Entry(
            ["maxRetries"], note: "it counts the retries after the first attempt", noteWithTarget: true)),
        (["interval", "delay", "IntervalSeconds", "retryIntervalSeconds"], Entry(["intervalSeconds", "seconds", "delaySeconds"])),
        (["backoff", "BackoffRate", "multiplier"], Entry(["backoffRate"])),
        (["maxDelay", "MaxDelaySeconds"], Entry(["maxDelaySeconds"])),
        (["JitterStrategy"], Entry(["jitter"])),
        (["TimeoutSeconds", "timeout", "timeoutSecs", "timeoutInSeconds", "timeout_seconds", "TimeoutSecondsPath"], Entry(
            ["timeoutSeconds", "deadlineSeconds"])),
        (["Seconds", "SecondsPath", "durationSeconds", "duration"], Entry(["seconds"])),
        (["Timestamp", "TimestampPath", "at", "deadline"], Entry(["until", "deadlineSeconds"])),
        (["Choices", "cases", "branches", "rules"], Entry(["choices"])),
        (["Default", "else", "fallback"], Entry(["default", "otherwise"])),
        (["Condition", "cond", "when"], Entry(["if"])),
        (["Variable"], Entry(
            [], note: "a condition names its values inside its operator, as in {\"equals\": [\"${vars.NAME}\", VALUE]}")),
        (["Items", "ItemsPath", "ItemsPointer", "list"], Entry(["items"])),
        (["ItemSelector"], Entry(["inputs"])),
        (["ItemProcessor", "Iterator", "body"], Entry(
            ["path"], note: "a map state's body is a workflow file named by \"path\"", noteWithTarget: true)),
        (["MaxConcurrency", "parallelism"], Entry(["concurrency"])),
        (["ToleratedFailureCount", "ToleratedFailurePercentage", "maxFailures"], Entry(["tolerateFailures"])),
        // XState keys.
        (["id", "name"], Entry(["workflow"])),
        (["context"], Entry(
            ["inputs"], note: "a run's data are its inputs and the variables states bind with \"result\" and assign states")),
        (["entry", "exit", "actions", "do"], Entry(
            [], note: "a state here does one thing: make that action an action state of its own, before or after this one")),
        (["on"], Entry(
            [], note: "a wait state waits for a hub event (\"event\") and maps each of its values to a state (\"on\")")),
        (["after"], Entry(
            [], note: "a delay state waits for a time; a wait or ask state's \"timeoutSeconds\" and \"onTimeout\" bound its wait")),
        (["always"], Entry([], note: "a choice state picks the next state by its conditions")),
        (["guard"], Entry(["guards", "if"])),
        (["kind"], Entry(["type"])),
        // Condition operators.
        (["eq", "==", "equal", "is", "StringEquals", "NumericEquals", "BooleanEquals", "TimestampEquals", "StringEqualsPath",
          "NumericEqualsPath", "BooleanEqualsPath"], Entry(["equals"])),
        (["ne", "neq", "!=", "notEqual", "differs"], Entry(["notEquals"])),
        (["lt", "<", "less", "NumericLessThan", "StringLessThan", "TimestampLessThan"], Entry(["lessThan"])),
        (["le", "lte", "<=", "NumericLessThanEquals", "StringLessThanEquals", "TimestampLessThanEquals"], Entry(["lessThanOrEqual"])),
        (["gt", ">", "greater", "NumericGreaterThan", "StringGreaterThan", "TimestampGreaterThan"], Entry(["greaterThan"])),
        (["ge", "gte", ">=", "NumericGreaterThanEquals", "StringGreaterThanEquals", "TimestampGreaterThanEquals"], Entry(
            ["greaterThanOrEqual"])),
        (["IsPresent", "isDefined", "defined", "present", "has"], Entry(["exists"])),
        (["IsNull"], Entry([], note: "write {\"not\": {\"exists\": VALUE}}: exists holds for a value that resolves and is not null")),
        (["includes", "in", "StringMatches", "matches", "like"], Entry(
            ["contains"], note: "contains tests for an element of an array or a part of a string; there is no pattern matching",
            noteWithTarget: true)),
        (["empty", "isBlank"], Entry(["isEmpty"])),
        (["&&"], Entry(["and"])),
        (["||"], Entry(["or"])),
        (["!"], Entry(["not"])),
    ]).merging(.valueTypes)
}
