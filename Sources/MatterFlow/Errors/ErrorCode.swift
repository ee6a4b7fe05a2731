/// A canonical error code, aligned with the Home APIs' `HomeError.Code` (itself aligned with gRPC status codes).
///
/// Codes are deliberately coarse; the specific reason travels in ``FlowError/cause``. Workflows route errors by
/// either. The set is closed for version 1 of the workflow language: ``ErrorCode/all`` lists it.
public struct ErrorCode: Sendable, Hashable, RawRepresentable, CustomStringConvertible, Comparable {
    /// The code's name, as workflows write it (`unavailable`).
    public let rawValue: String

    /// The code named `rawValue`; nil if it is not one of ``all``.
    public init?(rawValue: String) {
        guard Self.all.contains(where: { $0.rawValue == rawValue }) else { return nil }
        self.rawValue = rawValue
    }

    private init(_ rawValue: String) { self.rawValue = rawValue }

    /// The code's name.
    public var description: String { rawValue }

    /// Orders codes by name.
    public static func < (lhs: ErrorCode, rhs: ErrorCode) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The caller lacks permission (for example, the user has not granted access to the structure).
    public static let permissionDenied = ErrorCode("permissionDenied")
    /// The hub or service cannot be reached right now; retrying later may work.
    public static let unavailable = ErrorCode("unavailable")
    /// The system is not in a state that allows the operation (for example, no commissioning session).
    public static let failedPrecondition = ErrorCode("failedPrecondition")
    /// What the operation would create exists already.
    public static let alreadyExists = ErrorCode("alreadyExists")
    /// The operation did not finish in time.
    public static let deadlineExceeded = ErrorCode("deadlineExceeded")
    /// The operation or run was cancelled.
    public static let cancelled = ErrorCode("cancelled")
    /// An argument is malformed or out of range.
    public static let invalidArgument = ErrorCode("invalidArgument")
    /// Something the operation names does not exist.
    public static let notFound = ErrorCode("notFound")
    /// The hub or device does not support the operation.
    public static let unimplemented = ErrorCode("unimplemented")
    /// An invariant broke inside the hub or the engine.
    public static let `internal` = ErrorCode("internal")
    /// The operation was aborted by a conflict.
    public static let aborted = ErrorCode("aborted")
    /// A quota or limit was reached.
    public static let resourceExhausted = ErrorCode("resourceExhausted")
    /// The caller is not signed in.
    public static let unauthenticated = ErrorCode("unauthenticated")
    /// A value is outside the range the operation accepts.
    public static let outOfRange = ErrorCode("outOfRange")
    /// Data was lost or corrupted.
    public static let dataLoss = ErrorCode("dataLoss")
    /// An error with no better classification.
    public static let unknown = ErrorCode("unknown")

    /// Every canonical code.
    public static let all: [ErrorCode] = [
        .permissionDenied, .unavailable, .failedPrecondition, .alreadyExists, .deadlineExceeded, .cancelled,
        .invalidArgument, .notFound, .unimplemented, .internal, .aborted, .resourceExhausted, .unauthenticated,
        .outOfRange, .dataLoss, .unknown,
    ]
}
