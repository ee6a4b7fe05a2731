/// An error cause an embedding service declares for its own operations (an operation catalog file's `causes`, or
/// ``OperationDescriptor/declaredCauses`` in Swift), with the canonical code it belongs to.
///
/// Declared causes are known causes to every command that reads the catalog: error routes and retriers may name
/// them without an `unknownErrorName` warning, the verifier knows which routes take them, and fixtures may inject
/// them by cause alone.
public struct DeclaredCause: Sendable, Hashable {
    /// The cause, as hubs raise it and routes name it.
    public var cause: ErrorCause
    /// The canonical code every error with this cause carries.
    public var code: ErrorCode
    /// What the cause means, for `matterflow operations`.
    public var meaning: String

    /// Declares `cause` as belonging to `code`, with what it means for `matterflow operations`.
    public init(_ cause: ErrorCause, code: ErrorCode, meaning: String) {
        self.cause = cause
        self.code = code
        self.meaning = meaning
    }
}

extension Sequence<DeclaredCause> {
    /// The canonical code of a cause: the engine's own table, else the declaration of it among these; nil for a cause
    /// neither knows. An operation's, a guard's and a catalog's causes are looked up this one way.
    func code(of cause: ErrorCause) -> ErrorCode? {
        cause.code ?? first { $0.cause == cause }?.code
    }
}

extension OperationDescriptor {
    /// The canonical code of a cause this operation may raise: the engine's own table, else the operation's
    /// declared causes; nil for a cause neither knows.
    public func code(of cause: ErrorCause) -> ErrorCode? { declaredCauses.code(of: cause) }
}

extension OperationCatalog {
    /// The canonical code of the cause named `name`: the engine's table, else a cause declared by one of the
    /// catalog's operations; nil when neither knows it.
    public func code(ofCause name: String) -> ErrorCode? {
        ErrorCause(rawValue: name).code ?? declaredCause(named: name)?.code
    }

    /// Whether `name` is a cause the engine or this catalog's declarations know.
    public func knowsCause(_ name: String) -> Bool { code(ofCause: name) != nil }

    /// Every cause the engine or this catalog's declarations know, for suggestions.
    public var causeNames: [String] {
        ErrorCause.table.map(\.cause.rawValue) + operations.flatMap { $0.declaredCauses.map(\.cause.rawValue) }
    }
}
