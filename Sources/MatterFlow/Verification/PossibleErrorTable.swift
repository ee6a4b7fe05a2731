/// The possible errors of causes, operations and guards with one catalog, each made once per load.
///
/// The error analyses ask what every step of every file may fail with; the answer is built from the same few
/// operations, guards and causes again and again, and making a ``PossibleError`` hashes its cause and looks up its
/// code. One load shares one table (``VerificationContext``), which keeps each set it made.
final class PossibleErrorTable {
    let catalog: OperationCatalog
    /// What calling an operation may fail with (its declared causes and the engine's), by operation name.
    private var operations: [String: Set<PossibleError>] = [:]
    private var guards: [Guard: Set<PossibleError>] = [:]
    private var causes: [ErrorCause: PossibleError] = [:]

    init(catalog: OperationCatalog) {
        self.catalog = catalog
    }

    /// The error of a cause, with the code the catalog gives it.
    func error(_ cause: ErrorCause) -> PossibleError {
        if let known = causes[cause] { return known }
        let error = PossibleError(cause, in: catalog)
        causes[cause] = error
        return error
    }

    /// What a call of `operation` may fail with, before its arguments and guards are counted.
    func errors(calling operation: OperationDescriptor) -> Set<PossibleError> {
        if let known = operations[operation.name] { return known }
        var errors = Set<PossibleError>(minimumCapacity: operation.errors.count + OperationDescriptor.inDoubtCauses.count)
        for cause in operation.errors { errors.insert(error(cause)) }
        for cause in OperationDescriptor.inDoubtCauses { errors.insert(error(cause)) }
        operations[operation.name] = errors
        return errors
    }

    /// What checking a guard may fail with (``Guard/causes(in:)``).
    func errors(checking listed: Guard) -> Set<PossibleError> {
        if let known = guards[listed] { return known }
        var errors = Set<PossibleError>()
        for cause in listed.causes(in: catalog) { errors.insert(error(cause)) }
        guards[listed] = errors
        return errors
    }
}
