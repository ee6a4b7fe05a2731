import MatterFlow
import MatterFlowJSON

/// `--catalog FILE`, repeatable: operation catalog files (docs/operation-catalog.md) whose custom operations and
/// events are added to the standard catalog, for `validate`, `graph`, `test`, `run`, `operations` and `hub check`.
///
/// Repeatable rather than one file, so catalogs kept by different teams or services combine without merging their
/// files; a name declared twice, or a built-in name, is refused (`nameClash`) wherever it is declared.
enum CatalogOption {
    static let option = CommandSpec.Option(
        name: "catalog", valueName: "<file>", repeatable: true,
        help: "An operation catalog file declaring custom operations and events (repeatable).")

    /// The standard catalog plus every `--catalog` file, or nil after reporting each finding on `err` (exit 2).
    static func catalog(_ arguments: ParsedArguments, err: any TextSink) -> OperationCatalog? {
        let paths = arguments.all("catalog")
        guard !paths.isEmpty else { return .standard }
        do {
            return try OperationCatalog(loading: paths)
        } catch {
            MatterflowTool.report(error.diagnostics, to: err)
            return nil
        }
    }
}
