/// A specific, stable reason for an error, finer than its ``ErrorCode``.
///
/// Each known cause belongs to exactly one canonical code (``ErrorCause/code``); the table is the documented
/// mapping. Hubs may raise causes of their own: they are routed by name like any other.
public struct ErrorCause: Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    /// The cause's name, by which workflows route and retry errors.
    public let rawValue: String

    /// The cause with this name, known to this engine or not.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The cause's name (``rawValue``).
    public var description: String { rawValue }

    /// The canonical code of a known cause, or nil for a cause this engine does not know.
    public var code: ErrorCode? { Self.codes[rawValue] }

    /// ``table``'s codes by cause: the analyses of a load ask for the code of every cause they meet.
    private static let codes: [String: ErrorCode] = Dictionary(
        table.map { ($0.cause.rawValue, $0.code) }, uniquingKeysWith: { first, _ in first })

    /// What the cause means, for documentation and `matterflow operations`.
    public var meaning: String? { Self.table.first { $0.cause == self }?.meaning }

    /// Whether a retrier may retry an error with this cause. Every cause may be retried except
    /// ``engineMisconfigured``: no retrier matches it, not even `*`; an error route still may.
    public var isRetryable: Bool { self != .engineMisconfigured }

    private static func known(_ name: String) -> ErrorCause { ErrorCause(rawValue: name) }

    /// The user has not granted this app access to the structure; code ``ErrorCode/permissionDenied``.
    public static let permissionNotGranted = known("permissionNotGranted")
    /// The structure's hub is offline; code ``ErrorCode/unavailable``.
    public static let hubOffline = known("hubOffline")
    /// The hub is online but cannot be reached from here; code ``ErrorCode/unavailable``.
    public static let hubUnreachable = known("hubUnreachable")
    /// Another commissioning session is active on the structure; code ``ErrorCode/failedPrecondition``.
    public static let sessionBusy = known("sessionBusy")
    /// The operation needs a commissioning session and none is active; code ``ErrorCode/failedPrecondition``.
    public static let noActiveSession = known("noActiveSession")
    /// The commissioning session is in a state that does not allow the operation; code
    /// ``ErrorCode/failedPrecondition``.
    public static let sessionOutOfOrder = known("sessionOutOfOrder")
    /// The commissioning session's lease ran out without activity, so the hub ended it; code
    /// ``ErrorCode/failedPrecondition``.
    public static let sessionExpired = known("sessionExpired")
    /// The structure is not known to the hub; code ``ErrorCode/notFound``.
    public static let structureNotFound = known("structureNotFound")
    /// The device is not in the structure; code ``ErrorCode/notFound``.
    public static let deviceNotFound = known("deviceNotFound")
    /// The room is not in the structure; code ``ErrorCode/notFound``.
    public static let roomNotFound = known("roomNotFound")
    /// The device is already commissioned in this structure; code ``ErrorCode/alreadyExists``.
    public static let deviceAlreadyCommissioned = known("deviceAlreadyCommissioned")
    /// The device could not be commissioned; code ``ErrorCode/internal``.
    public static let commissioningFailed = known("commissioningFailed")
    /// The device did not answer during commissioning; code ``ErrorCode/unavailable``.
    public static let deviceUnreachable = known("deviceUnreachable")
    /// The onboarding payload is not a valid QR or manual pairing code; code ``ErrorCode/invalidArgument``.
    public static let invalidPayload = known("invalidPayload")
    /// An argument has the wrong type or an invalid value; code ``ErrorCode/invalidArgument``.
    public static let invalidArgumentValue = known("invalidArgumentValue")
    /// A `${...}` reference had no value when the state ran; code ``ErrorCode/invalidArgument``.
    public static let unresolvedReference = known("unresolvedReference")
    /// The hub did not answer within the action's timeout; code ``ErrorCode/deadlineExceeded``.
    public static let actionTimedOut = known("actionTimedOut")
    /// The run was cancelled; code ``ErrorCode/cancelled``.
    public static let runCancelled = known("runCancelled")
    /// The hub raised an error MatterFlow does not recognise; code ``ErrorCode/internal``.
    public static let hubFailure = known("hubFailure")
    /// The engine was asked to run what it cannot: an operation not in its catalog, a state that does not exist,
    /// a sub-workflow that was not loaded. Only a workflow that skipped validation gets there, and trying again
    /// cannot help, so retriers never retry it (see ``isRetryable``).
    public static let engineMisconfigured = known("engineMisconfigured")
    /// A fault injected by a test plan; code ``ErrorCode/unknown``.
    public static let injectedFault = known("injectedFault")
    /// A fail state ended the workflow without naming a cause; its table code is ``ErrorCode/unknown``, but the error
    /// keeps the code the fail state gives.
    public static let workflowFailed = known("workflowFailed")
    /// A fail state's error value or computed code was not a valid error; code ``ErrorCode/internal``.
    public static let malformedError = known("malformedError")
    /// The device or hub lacks the trait, attribute or command; code ``ErrorCode/unimplemented``.
    public static let notSupported = known("notSupported")
    /// The device is not a border router; code ``ErrorCode/invalidArgument``.
    public static let notBorderRouter = known("notBorderRouter")
    /// An ePSKc key is already active on the border router; code ``ErrorCode/failedPrecondition``.
    public static let epskcAlreadyActive = known("epskcAlreadyActive")
    /// No ePSKc key is active on the border router; code ``ErrorCode/failedPrecondition``.
    public static let epskcNotActive = known("epskcNotActive")
    /// The border router's ePSKc session is in a state that does not allow the event; code
    /// ``ErrorCode/failedPrecondition``.
    public static let epskcOutOfOrder = known("epskcOutOfOrder")
    /// The border router is on no Thread network, so it has no credentials to share; code
    /// ``ErrorCode/failedPrecondition``.
    public static let notOnThreadNetwork = known("notOnThreadNetwork")
    /// The border router answered an activation with a status other than success: no ePSKc key is active; code
    /// ``ErrorCode/failedPrecondition``.
    public static let epskcNotActivated = known("epskcNotActivated")
    /// The Thread Operational Dataset is malformed or incomplete; code ``ErrorCode/invalidArgument``.
    public static let invalidDataset = known("invalidDataset")
    /// A map state's items are not a list; code ``ErrorCode/invalidArgument``.
    public static let mapItemsNotList = known("mapItemsNotList")
    /// A map state's list has more elements than its `maxItems`; code ``ErrorCode/outOfRange``.
    public static let mapTooManyItems = known("mapTooManyItems")
    /// More elements of a map state failed than its `tolerateFailures` allows; code ``ErrorCode/aborted``.
    public static let mapElementsFailed = known("mapElementsFailed")
    /// A repeat state ran its body `maxIterations` times without its `until` condition holding; code
    /// ``ErrorCode/resourceExhausted``.
    public static let repeatExhausted = known("repeatExhausted")
    /// A value a state built from its template (a string put together, a list or object of references) is larger
    /// than ``Scope/valueLimit`` bytes as JSON; code ``ErrorCode/resourceExhausted``.
    public static let valueTooLarge = known("valueTooLarge")

    /// The documented mapping from cause to canonical code.
    public static let table: [(cause: ErrorCause, code: ErrorCode, meaning: String)] = [
        (.permissionNotGranted, .permissionDenied, "the user has not granted this app access to the structure"),
        (.hubOffline, .unavailable, "the structure's hub is offline"),
        (.hubUnreachable, .unavailable, "the hub is online but cannot be reached from here"),
        (.sessionBusy, .failedPrecondition, "another commissioning session is active on the structure"),
        (.noActiveSession, .failedPrecondition, "the operation needs a commissioning session and none is active"),
        (.sessionOutOfOrder, .failedPrecondition, "the commissioning session is in a state that does not allow the operation"),
        (.sessionExpired, .failedPrecondition, "the commissioning session's lease ran out without activity, so the hub ended it"),
        (.structureNotFound, .notFound, "the structure is not known to the hub"),
        (.deviceNotFound, .notFound, "the device is not in the structure"),
        (.roomNotFound, .notFound, "the room is not in the structure"),
        (.deviceAlreadyCommissioned, .alreadyExists, "the device is already commissioned in this structure"),
        (.commissioningFailed, .internal, "the device could not be commissioned"),
        (.deviceUnreachable, .unavailable, "the device did not answer during commissioning"),
        (.invalidPayload, .invalidArgument, "the onboarding payload is not a valid QR or manual pairing code"),
        (.invalidArgumentValue, .invalidArgument, "an argument has the wrong type or an invalid value"),
        (.unresolvedReference, .invalidArgument, "a ${...} reference had no value when the state ran"),
        (.actionTimedOut, .deadlineExceeded, "the hub did not answer within the action's timeout"),
        (.runCancelled, .cancelled, "the run was cancelled"),
        (.hubFailure, .internal, "the hub raised an error MatterFlow does not recognise"),
        (.engineMisconfigured, .internal, "the engine cannot run the state: its operation, target state or sub-workflow is missing (the workflow was not validated); never retried"),
        (.injectedFault, .unknown, "a fault injected by a test plan"),
        (.workflowFailed, .unknown, "a fail state ended the workflow without naming a cause (its code is the fail state's)"),
        (.malformedError, .internal, "a fail state's error value or computed code was not a valid error"),
        (.notSupported, .unimplemented, "the device or hub lacks the trait, attribute or command"),
        (.notBorderRouter, .invalidArgument, "the device is not a border router"),
        (.epskcAlreadyActive, .failedPrecondition, "an ePSKc key is already active on the border router"),
        (.epskcNotActive, .failedPrecondition, "no ePSKc key is active on the border router"),
        (.epskcOutOfOrder, .failedPrecondition, "the border router's ePSKc session is in a state that does not allow the event"),
        (.notOnThreadNetwork, .failedPrecondition, "the border router is on no Thread network, so it has no credentials to share"),
        (.epskcNotActivated, .failedPrecondition, "the border router answered the activation with a status other than success: no key is active"),
        (.invalidDataset, .invalidArgument, "the Thread Operational Dataset is malformed or incomplete"),
        (.mapItemsNotList, .invalidArgument, "a map state's items are not a list"),
        (.mapTooManyItems, .outOfRange, "a map state's list has more elements than its maxItems"),
        (.mapElementsFailed, .aborted, "more elements of a map state failed than its tolerateFailures allows"),
        (.repeatExhausted, .resourceExhausted, "a repeat state ran its body maxIterations times without its until condition holding"),
        (.valueTooLarge, .resourceExhausted, "a value a state built (from its template, or a map state's results) is larger than 16 MiB as JSON"),
    ]
}
