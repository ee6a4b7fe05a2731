import MatterFlow
import MatterFlowJSON

/// Operation catalog files: parse and decode, then the declarations added to the standard catalog, described as
/// `matterflow operations` shows them (guards with their causes, timeouts and conditions), and a shipped workflow
/// that lists the example's custom guards validated against the result.
enum CatalogFuzz {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let file = FuzzTarget.repositoryRoot + "/Examples/custom-operations/fuzz.catalog.json"
        let declarations: OperationDeclarations
        do {
            declarations = try OperationDeclarations.parse(text, file: file)
        } catch {
            for diagnostic in error.diagnostics { _ = diagnostic.description }
            return
        }
        let catalog: OperationCatalog
        do {
            catalog = try OperationCatalog.standard.adding(declarations)
        } catch {
            for diagnostic in error.diagnostics { _ = diagnostic.description }
            return
        }
        for operation in declarations.operations { _ = catalog[operation.name]?.jsonValue }
        for declared in declarations.guards {
            guard let added = catalog.customGuard(named: declared.name) else { continue }
            _ = catalog.jsonValue(of: added)
            _ = catalog.possibleCauses(of: added)
            _ = catalog.timeoutSeconds(of: added)
            _ = added.check.condition.summary
        }
        let workflow = FuzzTarget.repositoryRoot + "/Examples/custom-operations/update-firmware.json"
        let outcome = WorkflowLoader(catalog: catalog).load(path: workflow)
        for diagnostic in outcome.diagnostics { _ = diagnostic.description }
    }
}
