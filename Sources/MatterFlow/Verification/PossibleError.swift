/// An error a state may end with, as far as the validator can tell: its canonical code and cause, each nil when
/// it cannot be known before the run (a re-raised value of unknown origin, a code computed at run time).
struct PossibleError: Hashable, Sendable, Comparable, CustomStringConvertible {
    let code: String?
    let cause: String?
    /// The hash of the cause, or of the code when the cause is unknown (a cause belongs to one code, so this tells
    /// errors apart as well as both would): computed once here, since the error analyses put the same errors in
    /// many sets, and hashing the text again for each was much of their cost.
    private let key: Int

    /// Any error at all.
    static let any = PossibleError(code: nil, cause: nil)

    init(code: String?, cause: String?) {
        self.code = code
        self.cause = cause
        key = cause?.hashValue ?? code.hashValue
    }

    init(_ cause: ErrorCause) {
        self.init(code: cause.code?.rawValue ?? ErrorCode.unknown.rawValue, cause: cause.rawValue)
    }

    /// The error with a cause the engine or the catalog's declarations know the code of.
    init(_ cause: ErrorCause, in catalog: OperationCatalog) {
        self.init(code: (catalog.code(ofCause: cause.rawValue) ?? .unknown).rawValue, cause: cause.rawValue)
    }

    /// Whether a route or retrier naming `name` takes this error on every run.
    func certainlyMatches(_ name: String) -> Bool {
        name == "*" || name == code || name == cause
    }

    /// Whether a route or retrier naming `name` may take this error on some run.
    func mayMatch(_ name: String) -> Bool {
        if certainlyMatches(name) { return true }
        guard let code else { return true }
        guard cause == nil else { return false }
        // The code is known but the cause is not: a cause of that code (or one no table knows) may match.
        if ErrorCode(rawValue: name) != nil { return false }
        return ErrorCause(rawValue: name).code.map { $0.rawValue == code } ?? true
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(key)
    }

    static func == (lhs: PossibleError, rhs: PossibleError) -> Bool {
        lhs.key == rhs.key && lhs.cause == rhs.cause && lhs.code == rhs.code
    }

    static func < (lhs: PossibleError, rhs: PossibleError) -> Bool {
        (lhs.code ?? "", lhs.cause ?? "") < (rhs.code ?? "", rhs.cause ?? "")
    }

    /// `code/cause`, with `?` for what is unknown; `any error` for ``any``.
    var description: String {
        if code == nil, cause == nil { return "any error" }
        return "\(code ?? "?")/\(cause ?? "?")"
    }
}

extension Sequence where Element == PossibleError {
    /// The errors as a sorted, readable list.
    var listed: String { sorted().map(\.description).joined(separator: ", ") }
}

extension Guard {
    /// The causes checking the guard may raise with a catalog: a built-in guard's own and those of the status read
    /// behind it; a custom guard's, its source's failures included (empty for one the catalog lacks, which
    /// validation reports).
    func causes(in catalog: OperationCatalog) -> [ErrorCause] {
        switch self {
        case .builtIn(.permission): [.permissionNotGranted] + catalog.statusReadCauses
        case .builtIn(.hubReachable): [.hubOffline, .hubUnreachable] + catalog.statusReadCauses
        case .builtIn(.noActiveSession): [.sessionBusy] + catalog.statusReadCauses
        case .custom(let name): catalog.customGuard(named: name).map(catalog.possibleCauses(of:)) ?? []
        }
    }
}
