import MatterFlowJSON

/// One hub operation a workflow's action state can invoke: its arguments, result, errors, default timeout and
/// how it is carried out against a ``Hub``. The catalog of these is the single source for validation, the
/// interpreter and `matterflow operations`.
public struct OperationDescriptor: Sendable {
    /// An argument of an operation.
    public struct Argument: Sendable, Hashable {
        /// The argument's name.
        public var name: String
        /// The type a value must have.
        public var shape: ValueShape
        /// Whether a call must give the argument, and not as `null`.
        public var required: Bool
        /// Never shown in progress lines, traces or journals unless the user asks for secrets.
        public var secret: Bool
        /// The argument is an onboarding payload (a QR code or manual pairing code), and so always secret (it holds
        /// the setup passcode): a call whose code is not a valid one fails with `invalidPayload` before the hub sees
        /// it (the operation's ``OperationDescriptor/errors`` include it), and a run warns about what a valid one
        /// holds that this version does not define. A run does not decode a code again that it has checked.
        public var onboardingPayload: Bool
        /// For a string: the most bytes of UTF-8 its value may take (a Matter device's NodeLabel takes 32); a call
        /// with a longer one fails with `invalidArgumentValue` before the hub sees it. Nil: no limit.
        public var maxBytes: Int?
        /// For an integer: the values the hub takes; a literal outside them is refused by `validate`, as the call
        /// would fail with `invalidArgumentValue`. Nil: any.
        public var range: ClosedRange<Int>?
        /// What the argument is, for `matterflow operations`.
        public var summary: String

        /// An argument; an onboarding payload is always secret.
        public init(
            _ name: String, _ shape: ValueShape, required: Bool, secret: Bool = false, onboardingPayload: Bool = false,
            maxBytes: Int? = nil, range: ClosedRange<Int>? = nil, _ summary: String
        ) {
            self.name = name
            self.shape = shape
            self.required = required
            self.secret = secret || onboardingPayload
            self.onboardingPayload = onboardingPayload
            self.maxBytes = maxBytes
            self.range = range
            self.summary = summary
        }
    }

    /// How a call changes the hub, for retry-safety checks.
    public enum Effect: String, Sendable, Hashable, CaseIterable {
        /// `read` changes nothing; a repeat of an `idempotentWrite` changes nothing more; a repeat of a
        /// `nonIdempotentWrite` could do its work twice.
        case read, idempotentWrite, nonIdempotentWrite
    }

    /// The hub call behind an operation: structure, checked arguments in, JSON result out.
    ///
    /// It runs on the caller's executor (nonisolated async function types are `nonisolated(nonsending)` in this
    /// package): the hub method it calls decides where the work runs, and no hop is spent getting there.
    public typealias Invocation = @Sendable (any Hub, StructureID, JSONObject) async throws -> JSONValue

    /// The operation's name, as action states give it in `operation`.
    public var name: String
    /// One line for `matterflow operations`.
    public var summary: String
    /// The arguments the operation takes.
    public var arguments: [Argument]
    /// The shape of the operation's result.
    public var result: ValueShape
    /// Causes the operation itself may raise. Every operation may also time out, fail inside the hub or have its
    /// arguments refused (``OperationDescriptor/engineCauses``).
    public var errors: [ErrorCause]
    /// The causes among ``errors`` that the engine does not know, declared with their codes by the service that
    /// added the operation (an operation catalog file's `causes`).
    public var declaredCauses: [DeclaredCause]
    /// How long a call may take before it fails with `deadlineExceeded` / `actionTimedOut`, unless the state says.
    public var defaultTimeoutSeconds: Double
    /// How a call changes the hub.
    public var effect: Effect
    /// Opens the structure's commissioning session.
    public var acquiresSession: Bool
    /// Releases the structure's commissioning session.
    public var releasesSession: Bool
    /// Whether the operation works inside the structure's commissioning session without opening one: it needs a
    /// session operation before it (request, commission, configure, complete) or releases the session (cancel).
    /// A run's call of such an operation carries the ID of the session the run opened
    /// (``HubCallContext/expectedSessionID``).
    public var usesSession: Bool {
        !acquiresSession && (releasesSession || requires.contains { $0.scope == .session })
    }
    /// Result fields holding secrets (such as the ePSKc): redacted wherever else they appear.
    public var secretResultFields: Set<String>
    /// What must precede a call on every path (the hub protocol's order); see ``OrderRequirement``.
    public var requires: [OrderRequirement]
    /// For a release: a failed call still ends the workflow's duty to release the session (best effort, as
    /// `cancelCommissioning`: nothing more a workflow could do would release it).
    public var releaseAttemptSuffices: Bool
    /// The argument by which the hub recognises a repeated call as the same one (an idempotency key), so a
    /// non-idempotent operation may be retried when the state declares it in `repeatSafety`.
    public var idempotencyKey: String?
    /// What the run should warn about in a call's evaluated arguments, before the hub sees them, on a state's first
    /// attempt. The texts never hold a secret argument's value. (An ``Argument/onboardingPayload`` argument's own
    /// warnings need none: the engine reports them.)
    public var argumentWarnings: (@Sendable (JSONObject) -> [String])?
    private(set) var invoke: Invocation

    /// An operation. Without `requires`, its order rules are the standard ones for its name
    /// (``OrderRequirement/standard``); an onboarding-payload argument adds `invalidPayload` to its errors.
    public init(
        name: String, summary: String, arguments: [Argument], result: ValueShape, errors: [ErrorCause],
        defaultTimeoutSeconds: Double, effect: Effect, acquiresSession: Bool = false, releasesSession: Bool = false,
        secretResultFields: Set<String> = [], requires: [OrderRequirement]? = nil, releaseAttemptSuffices: Bool = false,
        idempotencyKey: String? = nil, argumentWarnings: (@Sendable (JSONObject) -> [String])? = nil,
        declaredCauses: [DeclaredCause] = [], invoke: @escaping Invocation
    ) {
        self.name = name
        self.summary = summary
        self.arguments = arguments
        self.result = result
        // The engine refuses an invalid code of a payload argument: the operation may end so, declared or not.
        self.errors = errors + (arguments.contains(where: \.onboardingPayload) && !errors.contains(.invalidPayload) ? [.invalidPayload] : [])
        self.declaredCauses = declaredCauses
        self.defaultTimeoutSeconds = defaultTimeoutSeconds
        self.effect = effect
        self.acquiresSession = acquiresSession
        self.releasesSession = releasesSession
        self.secretResultFields = secretResultFields
        self.requires = requires ?? OrderRequirement.standard[name] ?? []
        self.releaseAttemptSuffices = releaseAttemptSuffices
        self.idempotencyKey = idempotencyKey
        self.argumentWarnings = argumentWarnings
        self.invoke = invoke
    }

    /// The same operation, every declared fact kept, performed by `invoke` instead (for example wrapped by a
    /// journal that records each call).
    public func invoking(_ invoke: @escaping Invocation) -> OperationDescriptor {
        var copy = self
        copy.invoke = invoke
        return copy
    }

    /// Causes any operation may end with, whatever the hub. Not `runCancelled`: a call abandoned because the run was
    /// cancelled takes the cancel edge, never a retry or an error route, so it is no error a step can handle.
    public static let engineCauses: [ErrorCause] = [.actionTimedOut, .hubFailure, .unresolvedReference, .invalidArgumentValue]

    /// Causes that leave a call's outcome in doubt: the hub may have acted before the call was abandoned or
    /// failed in a way the engine does not recognise. Every other cause means the call changed nothing (the hub
    /// refused or undid it, or the engine stopped it before the hub saw it), so repeating it is safe.
    public static let inDoubtCauses: [ErrorCause] = [.actionTimedOut, .hubFailure]

    /// Every cause a call may end with: the operation's own and the engine's (those about arguments only for an
    /// operation that takes some), as the validator's error analysis counts them.
    public var possibleCauses: [ErrorCause] {
        var seen = Set<ErrorCause>()
        let engine = arguments.isEmpty ? Self.inDoubtCauses : Self.engineCauses
        return (errors + engine).filter { seen.insert($0).inserted }
    }

    /// The argument names that are secret.
    public var secretArguments: Set<String> { Set(arguments.filter(\.secret).map(\.name)) }

    /// Runs the operation after checking its arguments: their shapes, and each onboarding payload's code.
    public func call(hub: any Hub, structure: StructureID, arguments: JSONObject) async throws -> JSONValue {
        try check(arguments)
        return try await invoke(hub, structure, arguments)
    }

    /// Runs the operation on arguments already checked (``call(hub:structure:arguments:)`` checks them; a run checks
    /// a call's before it races it): for a wrapper of the operation (``invoking(_:)``), which is handed checked ones.
    package func perform(hub: any Hub, structure: StructureID, arguments: JSONObject) async throws -> JSONValue {
        try await invoke(hub, structure, arguments)
    }

    /// Checks the arguments: a required argument must be there and not null, each must fit its shape, and each
    /// onboarding payload must be a valid code.
    func check(_ arguments: JSONObject) throws(FlowError) {
        try Self.check(arguments, against: self.arguments, operation: name)
        for argument in self.arguments where argument.onboardingPayload {
            if let text = arguments[argument.name]?.stringValue, let problem = PayloadCheck(text).problem {
                throw Self.invalidPayload(problem)
            }
        }
    }

    /// The error of a call whose onboarding payload is not a valid code (`problem` says why, never quoting it).
    static func invalidPayload(_ problem: String) -> FlowError {
        FlowError(
            .invalidPayload,
            "the onboarding payload is not a valid QR code or manual pairing code (\(problem)); check the code on the device's label")
    }

    /// Checks arguments' shapes against an operation's declarations (without copying the descriptor to reach them).
    static func check(_ arguments: JSONObject, against declared: [Argument], operation name: String) throws(FlowError) {
        for argument in declared {
            guard let value = arguments[argument.name], !value.isNull else {
                if argument.required {
                    throw FlowError(.invalidArgumentValue, "\(name) needs argument \"\(argument.name)\" and it was null")
                }
                continue
            }
            guard argument.shape.admits(value) else {
                throw FlowError(
                    .invalidArgumentValue,
                    "\(name) argument \"\(argument.name)\" must be \(argument.shape), got \(argument.shape == .integer ? value.typeNameWhereIntegerExpected : value.typeName)")
            }
            if let limit = argument.maxBytes, let text = value.stringValue, text.utf8.count > limit {
                // The value itself is never quoted, and a secret's length is not told either.
                let takes = argument.secret ? "takes more" : "takes \(text.utf8.count) (\(text.count) characters)"
                throw FlowError(
                    .invalidArgumentValue,
                    "\(name) argument \"\(argument.name)\" may take at most \(limit) bytes of UTF-8 and \(takes); "
                        + "shorten it (letters beyond ASCII take 2 to 4 bytes each)")
            }
        }
    }

    /// The descriptor as JSON, for `matterflow operations --json`.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["name"] = .string(name)
        object["summary"] = .string(summary)
        object["arguments"] = .array(arguments.map { argument in
            .object(JSONObject([
                "name": .string(argument.name), "type": argument.shape.jsonValue, "required": .bool(argument.required),
                "secret": .bool(argument.secret), "onboardingPayload": .bool(argument.onboardingPayload),
                "maxBytes": argument.maxBytes.map(JSONValue.int) ?? .null, "summary": .string(argument.summary),
            ]))
        })
        object["result"] = result.jsonValue
        object["errors"] = .array(possibleCauses.map { cause in
            .object(JSONObject(["code": .string(code(of: cause)?.rawValue ?? "unknown"), "cause": .string(cause.rawValue)]))
        })
        object["defaultTimeoutSeconds"] = .double(defaultTimeoutSeconds)
        object["effect"] = .string(effect.rawValue)
        object["acquiresSession"] = .bool(acquiresSession)
        object["releasesSession"] = .bool(releasesSession)
        object["secretResultFields"] = .array(secretResultFields.sorted().map(JSONValue.string))
        object["requires"] = .array(requires.map { requirement in
            ["scope": .string(requirement.scope.rawValue), "anyOf": .array(requirement.operations.map(JSONValue.string))]
        })
        object["releaseAttemptSuffices"] = .bool(releaseAttemptSuffices)
        object["idempotencyKey"] = idempotencyKey.map(JSONValue.string) ?? .null
        return .object(object)
    }
}
