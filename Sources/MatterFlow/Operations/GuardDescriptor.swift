import MatterFlowJSON

/// A guard an embedding service declares (an operation catalog file's `guards`, or in Swift through
/// ``OperationDeclarations``): a precondition a workflow's steps may list beside the built-in guards, checked
/// before each attempt of the step.
///
/// It passes when its condition holds over what it reads: the hub's status (``Check/status(passesWhen:)``), or the
/// result of a `read` operation called with arguments evaluated in the state's scope
/// (``Check/operation(_:arguments:passesWhen:)``). Otherwise it raises its error, which is retried and routed like
/// an error of the step's own work.
public struct GuardDescriptor: Sendable {
    /// What a guard reads, and the condition that must hold over it.
    public enum Check: Sendable {
        /// The hub's status, as the built-in guards read it: the condition reads `${vars.status.online}`,
        /// `${vars.status.reachable}`, `${vars.status.permissionGranted}` and `${vars.status.activeSession}`.
        case status(passesWhen: Condition)
        /// The result of a call of the named operation (whose effect must be `read`): `arguments` are evaluated in
        /// the scope of the state the guard stands on (`${input...}`, `${vars...}`, `${run...}`), and the
        /// condition reads the result as `${vars.result}`.
        case operation(String, arguments: [(name: String, value: Template)], passesWhen: Condition)

        /// The condition that must hold for the guard to pass.
        public var condition: Condition {
            switch self {
            case .status(let condition), .operation(_, _, let condition): condition
            }
        }

        /// The variable the condition reads: ``GuardDescriptor/statusVariable`` for a status guard,
        /// ``GuardDescriptor/resultVariable`` for an operation guard.
        public var conditionVariable: String {
            switch self {
            case .status: GuardDescriptor.statusVariable
            case .operation: GuardDescriptor.resultVariable
            }
        }

        /// The operation the guard calls; nil for a status guard.
        public var operation: String? {
            switch self {
            case .status: nil
            case .operation(let name, _, _): name
            }
        }
    }

    /// The name steps list in their `guards`.
    public var name: String
    /// One line for `matterflow operations`.
    public var summary: String
    /// What the guard reads and the condition that must hold over it.
    public var check: Check
    /// The cause the guard raises when its condition does not hold.
    public var cause: ErrorCause
    /// What the person should do about it, the error's message.
    public var message: String
    /// Causes the guard raises that the engine does not know, with their codes (an operation catalog file's
    /// `causes` that the guard names).
    public var declaredCauses: [DeclaredCause]

    /// A guard named `name`; `declaredCauses` declares the causes it raises that the engine does not know.
    public init(
        name: String, summary: String, check: Check, cause: ErrorCause, message: String, declaredCauses: [DeclaredCause] = []
    ) {
        self.name = name
        self.summary = summary
        self.check = check
        self.cause = cause
        self.message = message
        self.declaredCauses = declaredCauses
    }

    /// The error the guard raises when its condition does not hold.
    public var failure: FlowError {
        FlowError(code: declaredCauses.code(of: cause) ?? .unknown, cause: cause, message: message)
    }

    /// The variable holding the hub's status in a status guard's condition.
    public static let statusVariable = "status"
    /// The variable holding the operation's result in an operation guard's condition.
    public static let resultVariable = "result"

    /// The status facts a status guard's condition may read, as members of `${vars.status}`.
    public static let statusFacts = ["online", "reachable", "permissionGranted", "activeSession"]

    /// The shape of the hub's status as a status guard's condition reads it (``statusValue(_:)``).
    static let statusShape = ValueShape.object(statusFacts.map { .init($0, .boolean, "") })

    /// The hub's status as a status guard's condition reads it.
    static func statusValue(_ status: HubStatus) -> JSONValue {
        [
            "online": .bool(status.online), "reachable": .bool(status.reachable),
            "permissionGranted": .bool(status.permissionGranted), "activeSession": .bool(status.activeSession),
        ]
    }
}

extension OperationCatalog {
    /// What the hub status read behind the built-in and status guards may fail with: its own errors, and a
    /// timeout or an unrecognised failure.
    var statusReadCauses: [ErrorCause] {
        (self["readHubStatus"]?.errors ?? [.structureNotFound]) + OperationDescriptor.inDoubtCauses
    }

    /// The causes a custom guard may raise when checked with this catalog: its own when its condition does not
    /// hold, what reading its source may fail with (the status read's errors, or its operation's errors and the
    /// engine's), and an unresolved reference where one can fail to resolve: in an operation guard's arguments or
    /// condition (a result may lack a field), in a status guard's condition only when it reads past the status facts,
    /// which every status has.
    public func possibleCauses(of descriptor: GuardDescriptor) -> [ErrorCause] {
        var causes: [ErrorCause] = [descriptor.cause]
        switch descriptor.check {
        case .status(let condition):
            causes += statusReadCauses
            let alwaysResolves = condition.templates.flatMap(\.references).allSatisfy { reference in
                reference.root == .vars && reference.head == GuardDescriptor.statusVariable
                    && ReferenceChecker.pathProblem(reference, from: GuardDescriptor.statusShape) == nil
            }
            if !alwaysResolves { causes.append(.unresolvedReference) }
        case .operation(let name, let arguments, let condition):
            if arguments.contains(where: { $0.value.hasReferences }) || condition.templates.contains(where: \.hasReferences) {
                causes.append(.unresolvedReference)
            }
            if let operation = self[name] {
                causes += operation.errors + OperationDescriptor.inDoubtCauses
                if !operation.arguments.isEmpty || !arguments.isEmpty { causes.append(.invalidArgumentValue) }
            }
        }
        var seen = Set<ErrorCause>()
        return causes.filter { seen.insert($0).inserted }
    }

    /// A custom guard as JSON, for `matterflow operations --json`: what `matterflow operations` shows of it (what it
    /// reads and with which arguments, its condition, timeout, own error and every error it may raise).
    public func jsonValue(of descriptor: GuardDescriptor) -> JSONValue {
        var object = JSONObject()
        object["name"] = .string(descriptor.name)
        object["summary"] = .string(descriptor.summary)
        object["from"] = .string(descriptor.check.operation.map { "operation " + $0 } ?? "status")
        if case .operation(_, let arguments, _) = descriptor.check {
            var given = JSONObject()
            for (name, value) in arguments { given[name] = .string(value.summary) }
            object["arguments"] = .object(given)
        }
        object["passesWhen"] = .string(descriptor.check.condition.summary)
        object["timeoutSeconds"] = .double(timeoutSeconds(of: descriptor))
        let error = descriptor.failure
        object["error"] = ["code": .string(error.code.rawValue), "cause": .string(error.cause.rawValue), "message": .string(error.message)]
        object["errors"] = .array(possibleCauses(of: descriptor).map { cause in
            .object(JSONObject(["code": .string(code(ofCause: cause.rawValue)?.rawValue ?? "unknown"), "cause": .string(cause.rawValue)]))
        })
        return .object(object)
    }

    /// The longest a custom guard's check may take: its operation's default timeout, or the status read's.
    public func timeoutSeconds(of descriptor: GuardDescriptor) -> Double {
        descriptor.check.operation.flatMap { self[$0]?.defaultTimeoutSeconds } ?? TimeBudget.guardTimeoutSeconds
    }
}
