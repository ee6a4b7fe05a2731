import Synchronization

/// Possible errors by number, as bits: what a step may fail with, what a route takes, what `${error}` may hold.
/// Numbers are given by one load's ``PossibleErrorTable``; ``PossibleErrorTable/anyError`` is the same in every
/// table.
typealias ErrorSet = NumberSet

/// The possible errors of one load, numbered, with the sets of causes, operations and guards, each made once.
///
/// The error analyses ask what every step of every file may fail with, union those sets along every edge, and
/// split them by every route and retrier; the answer is built from the same few operations, guards and causes
/// again and again. Each error is numbered the first time it is met, so that the sets are bits (``ErrorSet``)
/// and routing an error is an intersection with what a route's names match, found once per name. One load shares
/// one table (``VerificationContext``), which keeps each set it made. Errors are spelled out again only for
/// findings (``listed(_:)``).
final class PossibleErrorTable {
    let catalog: OperationCatalog
    /// The errors by number.
    private var numbered: [PossibleError] = []
    private var numbers: [PossibleError: Int] = [:]
    /// What calling an operation may fail with (its declared causes and the engine's), by operation name.
    private var operations: [String: ErrorSet] = [:]
    private var guards: [Guard: ErrorSet] = [:]
    private var causes: [ErrorCause: Int] = [:]
    /// The errors a route or retrier naming a code or cause may take, and those it takes on every run, among the
    /// first `through` numbers: extended to the errors numbered since when asked again.
    private var matches: [String: (through: Int, may: ErrorSet, certain: ErrorSet)] = [:]

    /// The number of ``PossibleError/any``: numbered first in every table.
    static let anyNumber = 0
    /// Any error at all, as a set.
    static let anyError = ErrorSet([anyNumber])

    /// What every load with one catalog numbers first: the errors its operations and guards may fail with, found
    /// and numbered once per catalog and kept with it (``OperationCatalog/Identity``), so that a load starts from
    /// copies of these tables instead of hashing every cause again. When a catalog's operations and guards have
    /// more errors than one word of bits holds, its seed holds only ``PossibleError/any``, and its loads number
    /// only the errors they meet, so that their sets stay one word when they can.
    struct Seed: Sendable {
        fileprivate var numbered: [PossibleError]
        fileprivate var numbers: [PossibleError: Int]
        fileprivate var operations: [String: ErrorSet]
        fileprivate var guards: [Guard: ErrorSet]
        fileprivate var causes: [ErrorCause: Int]
    }

    init(catalog: OperationCatalog) {
        self.catalog = catalog
        if let seed = catalog.identity.errorSeed.withLock({ $0 }) {
            restore(seed)
            return
        }
        _ = number(of: .any)
        let empty = seed
        for operation in catalog.operations { _ = errors(calling: operation) }
        for builtIn in BuiltInGuard.allCases { _ = errors(checking: .builtIn(builtIn)) }
        for listed in catalog.guards { _ = errors(checking: .custom(listed.name)) }
        if numbered.count > 64 { restore(empty) }
        let made = seed
        catalog.identity.errorSeed.withLock { $0 = made }
    }

    private var seed: Seed {
        Seed(numbered: numbered, numbers: numbers, operations: operations, guards: guards, causes: causes)
    }

    private func restore(_ seed: Seed) {
        numbered = seed.numbered
        numbers = seed.numbers
        operations = seed.operations
        guards = seed.guards
        causes = seed.causes
    }

    /// The number of an error, given the first time it is met.
    func number(of error: PossibleError) -> Int {
        if let known = numbers[error] { return known }
        let number = numbered.count
        numbered.append(error)
        numbers[error] = number
        return number
    }

    /// One error, as a set.
    func set(_ error: PossibleError) -> ErrorSet {
        ErrorSet([number(of: error)])
    }

    /// The number of the error of a cause, with the code the catalog gives it.
    func number(of cause: ErrorCause) -> Int {
        if let known = causes[cause] { return known }
        let number = number(of: PossibleError(cause, in: catalog))
        causes[cause] = number
        return number
    }

    /// What a call of `operation` may fail with, before its arguments and guards are counted.
    func errors(calling operation: OperationDescriptor) -> ErrorSet {
        if let known = operations[operation.name] { return known }
        var errors = ErrorSet()
        for cause in operation.errors { errors.insert(number(of: cause)) }
        for cause in OperationDescriptor.inDoubtCauses { errors.insert(number(of: cause)) }
        operations[operation.name] = errors
        return errors
    }

    /// What checking a guard may fail with (``Guard/causes(in:)``).
    func errors(checking listed: Guard) -> ErrorSet {
        if let known = guards[listed] { return known }
        var errors = ErrorSet()
        for cause in listed.causes(in: catalog) { errors.insert(number(of: cause)) }
        guards[listed] = errors
        return errors
    }

    /// The errors a route or retrier naming `name` may take on some run (``PossibleError/mayMatch(_:)``), among
    /// every error numbered so far.
    func mayMatch(_ name: String) -> ErrorSet { match(name).may }

    /// The errors a route or retrier naming `name` takes on every run (``PossibleError/certainlyMatches(_:)``).
    func certainlyMatches(_ name: String) -> ErrorSet { match(name).certain }

    private func match(_ name: String) -> (may: ErrorSet, certain: ErrorSet) {
        var found = matches[name] ?? (through: 0, may: ErrorSet(), certain: ErrorSet())
        guard found.through < numbered.count else { return (found.may, found.certain) }
        for number in found.through..<numbered.count {
            if numbered[number].mayMatch(name) { found.may.insert(number) }
            if numbered[number].certainlyMatches(name) { found.certain.insert(number) }
        }
        found.through = numbered.count
        matches[name] = found
        return (found.may, found.certain)
    }

    /// The errors any of `names` may take.
    func mayMatch(any names: [String]) -> ErrorSet {
        names.reduce(into: ErrorSet()) { $0.formUnion(mayMatch($1)) }
    }

    /// Splits errors by ordered entries (retriers or routes), first match wins: what each entry may take, and what
    /// no entry is sure to take (so it may pass all of them).
    func partition(_ errors: ErrorSet, by entries: [[String]]) -> (taken: [ErrorSet], remaining: ErrorSet) {
        var remaining = errors
        var taken: [ErrorSet] = []
        taken.reserveCapacity(entries.count)
        for names in entries {
            var may = ErrorSet()
            var certain = ErrorSet()
            for name in names {
                let match = match(name)
                may.formUnion(match.may)
                certain.formUnion(match.certain)
            }
            taken.append(remaining.intersection(may))
            remaining = remaining.subtracting(certain)
        }
        return (taken, remaining)
    }

    /// The errors of a set.
    func errors(in set: ErrorSet) -> [PossibleError] {
        set.map { numbered[$0] }
    }

    /// The errors of a set as a sorted, readable list.
    func listed(_ set: ErrorSet) -> String { errors(in: set).listed }
}
