import MatterFlowJSON

/// One named state of a workflow.
public struct WorkflowState: Sendable {
    /// What the state does.
    ///
    /// `indirect`: each payload lives in a box, so copying a state or its kind (the load's passes copy them
    /// constantly) retains that one box instead of every string and array of the payload.
    public indirect enum Kind: Sendable {
        /// Invoke a hub operation.
        case action(ActionState)
        /// Run another workflow file as a step.
        case workflow(SubworkflowState)
        /// Branch on values.
        case choice(ChoiceState)
        /// Set variables (and optionally record a warning), then continue.
        case assign(AssignState)
        /// Wait for a hub event, branching on its value, or time out.
        case wait(WaitState)
        /// Ask whoever drives the run a question and wait for the answer, or time out.
        case ask(AskState)
        /// Wait a fixed time, or until a moment from a variable.
        case delay(DelayState)
        /// End the run successfully with an output.
        case succeed(SucceedState)
        /// End the run with an error.
        case fail(FailState)

        /// The `type` name used in workflow files.
        public var typeName: String {
            switch self {
            case .action: "action"
            case .workflow(let subworkflow): subworkflow.typeName
            case .choice: "choice"
            case .assign: "assign"
            case .wait: "wait"
            case .ask: "ask"
            case .delay: "delay"
            case .succeed: "succeed"
            case .fail: "fail"
            }
        }

        /// The work behaviour of an action or sub-workflow state (guards, retries, result, routes); nil otherwise.
        public var step: StepBehavior? {
            switch self {
            case .action(let action): action.step
            case .workflow(let subworkflow): subworkflow.step
            case .choice, .assign, .wait, .ask, .delay, .succeed, .fail: nil
            }
        }

        /// Every `type` name, as workflow files spell them.
        public static let typeNames = ["action", "workflow", "map", "repeat", "choice", "assign", "wait", "ask", "delay", "succeed", "fail"]
    }

    /// The state's name, its key under `states`.
    public var name: String
    /// What the state does, with the members of its type.
    public var kind: Kind
    /// A sentence for people reading traces and graphs.
    public var description: String?
    /// JSON pointer of the state (`/states/<name>`).
    public var pointer: String
    /// Stands in for a state too broken to decode; its transitions are unknown.
    var isPlaceholder = false

    /// A state whose pointer is spelled from its name (`/states/<name>`, escaped).
    public init(name: String, kind: Kind, description: String? = nil) {
        self.name = name
        self.kind = kind
        self.description = description
        self.pointer = JSONPointer.appending(name, to: "/states")
    }

    /// A state whose pointer the caller has already spelled out (`/states/<name>`, escaped).
    init(name: String, kind: Kind, description: String?, pointer: String) {
        self.name = name
        self.kind = kind
        self.description = description
        self.pointer = pointer
    }

    /// Whether the run ends here.
    public var isTerminal: Bool {
        switch kind {
        case .succeed, .fail: true
        case .action, .workflow, .choice, .assign, .wait, .ask, .delay: false
        }
    }
}

/// A precondition checked before each attempt of a state's work: one of MatterFlow's own, or one an operation
/// catalog declares (``GuardDescriptor``), named by the catalog.
public enum Guard: Sendable, Hashable, CustomStringConvertible {
    /// One of MatterFlow's own guards.
    case builtIn(BuiltInGuard)
    /// A guard an operation catalog declares, by its name; the run looks it up in its catalog.
    case custom(String)

    /// The guard a workflow file names: a built-in one when the name is built in, a custom one otherwise.
    public init(named name: String) {
        self = BuiltInGuard(rawValue: name).map(Guard.builtIn) ?? .custom(name)
    }

    /// The name, as workflow files, events and journals write it.
    public var name: String {
        switch self {
        case .builtIn(let builtIn): builtIn.rawValue
        case .custom(let name): name
        }
    }

    /// The guard's ``name``.
    public var description: String { name }

    /// The user has granted access to the structure.
    public static let permission = Guard.builtIn(.permission)
    /// The hub is online and reachable.
    public static let hubReachable = Guard.builtIn(.hubReachable)
    /// No commissioning session is active.
    public static let noActiveSession = Guard.builtIn(.noActiveSession)
}

/// MatterFlow's own guards, evaluated from the hub's status.
public enum BuiltInGuard: String, Sendable, Hashable, CaseIterable {
    /// The user has granted access to the structure (`permissionDenied` / `permissionNotGranted`).
    case permission
    /// The hub is online and reachable (`unavailable` / `hubOffline` or `hubUnreachable`).
    case hubReachable
    /// No commissioning session is active (`failedPrecondition` / `sessionBusy`).
    case noActiveSession
}

/// What action and sub-workflow states share: guards, retries, result binding and transitions.
public struct StepBehavior: Sendable {
    /// Preconditions checked, in order, before each attempt.
    public var guards: [Guard]
    /// The variable the result is bound to on success.
    public var result: String?
    /// Retriers, checked in order when an attempt fails.
    public var retry: [Retrier]
    /// The state after success.
    public var next: String
    /// Error routes, checked in order for an error no retrier retries.
    public var onError: [ErrorRoute]

    /// Step behaviour with these members.
    public init(guards: [Guard], result: String?, retry: [Retrier], next: String, onError: [ErrorRoute]) {
        self.guards = guards
        self.result = result
        self.retry = retry
        self.next = next
        self.onError = onError
    }
}

/// Invoke a hub operation.
public struct ActionState: Sendable {
    /// The name of the catalog operation the state invokes.
    public var operation: String
    /// Argument templates by name, in document order.
    public var arguments: [(name: String, value: Template)]
    /// Overrides the operation's default timeout.
    public var timeoutSeconds: Double?
    /// Guards, retries, result binding and transitions.
    public var step: StepBehavior
    /// How a repeat of a non-idempotent operation is made safe, so the state may retry it.
    public var repeatSafety: RepeatSafety? = nil
}

/// Run another workflow file as one step; its output is the step's result and its error is the step's error.
public struct SubworkflowState: Sendable {
    /// The path as written, relative to the file that names it.
    public var path: String
    /// Input templates for the child workflow by name, in document order.
    public var inputs: [(name: String, value: Template)]
    /// Guards, retries, result binding and transitions.
    public var step: StepBehavior
    /// Set for a `map` state: the sub-workflow runs once per element of a list (see ``MapIteration``).
    public var map: MapIteration? = nil
    /// Set for a `repeat` state: the sub-workflow runs until a condition holds, a bounded number of times (see
    /// ``RepeatIteration``).
    public var repeating: RepeatIteration? = nil
}

/// Branch on values: the first branch whose condition holds wins, else the default.
public struct ChoiceState: Sendable {
    /// One entry of `choices`: a condition and the state it leads to.
    public struct Branch: Sendable {
        /// The entry's `if`.
        public var condition: Condition
        /// The state when this is the first branch whose condition holds.
        public var next: String
    }

    /// The `choices`, checked in order.
    public var branches: [Branch]
    /// The state when no condition holds (`default`).
    public var defaultNext: String
}

/// Set variables, optionally record a warning, then continue.
public struct AssignState: Sendable {
    /// Variable templates by name (`set`), in document order; all are evaluated before any is assigned.
    public var assignments: [(name: String, value: Template)]
    /// A warning added to the run's result (for example, "configure failed").
    public var warning: Template?
    /// A value shown at once to whoever runs the workflow (a `shown` event; the CLI prints it): what a person must
    /// have while the run goes on, such as a one-time key to type into a commissioner. Secrets in it are shown to
    /// them, as in the run's output, and redacted everywhere else (records, traces' other events).
    public var show: Template? = nil
    /// The next state.
    public var next: String
}

/// Wait for a hub event (for example an ePSKc deactivation), branching on its value, or give up after a timeout.
public struct WaitState: Sendable {
    /// The event's name, from the catalog's events.
    public var event: String
    /// Payload fields the event must have, with the values they must equal (for example its `deviceID`).
    public var match: [(name: String, value: Template)]
    /// How long to wait; required, so no path waits forever.
    public var timeoutSeconds: Double
    /// The variable the event's payload is bound to.
    public var result: String?
    /// Where each event value leads, in document order.
    public var branches: [(value: String, next: String)]
    /// Where values without a branch lead.
    public var otherwise: String?
    /// Where the run goes when no matching event arrives in time.
    public var onTimeout: String
}

/// End the run successfully.
public struct SucceedState: Sendable {
    /// The template of the run's output; nil when the state has none (the output is then `null`).
    public var output: Template?
}

/// End the run with an error: either re-raise a caught error or raise a new one.
public struct FailState: Sendable {
    /// The two forms of a fail state.
    public enum Raise: Sendable {
        /// Re-raise an error value, typically `${error}`.
        case rethrow(Template)
        /// A new error with a canonical code, optional cause and a message.
        case new(code: Template, cause: Template?, message: Template)
    }

    /// The error the state raises.
    public var raise: Raise
}

/// An ordered retry policy entry, with the semantics of Amazon States Language retriers.
public struct Retrier: Sendable, Hashable {
    /// Error codes or causes this retrier applies to; `*` matches all.
    public var errors: [String]
    /// How many retries (not attempts) this retrier allows; 0 means "never retry these".
    public var maxRetries: Int
    /// The delay before the first retry.
    public var intervalSeconds: Double
    /// The factor each further delay is multiplied by.
    public var backoffRate: Double
    /// Caps each delay.
    public var maxDelaySeconds: Double?
    /// Full jitter: each delay is drawn uniformly from 0 up to the computed delay.
    public var jitter: Bool

    /// A retrier for `errors`, with the language's defaults: 3 retries, 1 s before the first, rate 2, no
    /// `maxDelaySeconds`, no jitter.
    public init(
        errors: [String], maxRetries: Int = 3, intervalSeconds: Double = 1, backoffRate: Double = 2,
        maxDelaySeconds: Double? = nil, jitter: Bool = false
    ) {
        self.errors = errors
        self.maxRetries = maxRetries
        self.intervalSeconds = intervalSeconds
        self.backoffRate = backoffRate
        self.maxDelaySeconds = maxDelaySeconds
        self.jitter = jitter
    }

    /// The delay before retry number `retry` (1-based), before jitter: interval × rate^(retry−1), capped by
    /// `maxDelaySeconds` and, in any case, by ``NumberLimits/longestSeconds`` (one day).
    public func delay(beforeRetry retry: Int) -> Double {
        var raw = intervalSeconds
        var remaining = retry - 1
        // Multiplying stops once the cap is passed, so any retry number takes at most a few hundred steps.
        while remaining > 0, backoffRate > 1, raw < NumberLimits.longestSeconds {
            raw *= backoffRate
            remaining -= 1
        }
        return min(raw, maxDelaySeconds ?? NumberLimits.longestSeconds, NumberLimits.longestSeconds)
    }
}

/// An ordered error route: the first whose names match the error decides the next state.
public struct ErrorRoute: Sendable, Hashable {
    /// Canonical codes, causes, or `*` (any error).
    public var errors: [String]
    /// The state for a matching error.
    public var next: String

    /// A route sending the named errors to `next`.
    public init(errors: [String], next: String) {
        self.errors = errors
        self.next = next
    }
}
