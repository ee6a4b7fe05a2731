import Foundation
import MatterFlow
import MatterFlowJSON

/// `--catalog FILE`, repeatable: operation catalog files (docs/operation-catalog.md) whose custom operations and
/// events are added to the standard catalog, for `validate`, `graph`, `test`, `run`, `operations` and `hub check`.
///
/// Repeatable rather than one file, so catalogs kept by different teams or services combine without merging their
/// files; a name declared twice (in two files; one file named twice is read once), or a built-in name, is refused
/// (`nameClash`) wherever it is declared.
enum CatalogOption {
    static let option = CommandSpec.Option(
        name: "catalog", valueName: "<file>", repeatable: true,
        help: "An operation catalog file declaring custom operations and events (repeatable).")

    /// The standard catalog plus every `--catalog` file, or nil after reporting each finding on `err` (exit 2).
    static func catalog(_ arguments: ParsedArguments, err: any TextSink) -> OperationCatalog? {
        switch load(arguments) {
        case .success(let catalog):
            return catalog
        case .failure(let error):
            MatterflowTool.report(error.diagnostics, to: err)
            return nil
        }
    }

    /// The standard catalog plus every `--catalog` file (a file named twice is read once), or every finding.
    static func load(_ arguments: ParsedArguments) -> Result<OperationCatalog, DiagnosticsError> {
        var seen = Set<String>()
        let paths = arguments.all("catalog").filter { seen.insert(URL(fileURLWithPath: $0).standardizedFileURL.resolvingSymlinksInPath().path).inserted }
        guard !paths.isEmpty else { return .success(.standard) }
        do {
            return .success(try OperationCatalog(loading: paths))
        } catch {
            return .failure(error)
        }
    }
}
