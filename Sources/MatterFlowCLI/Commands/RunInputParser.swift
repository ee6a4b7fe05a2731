import MatterFlow
import MatterFlowJSON

/// Turns `--inputs FILE` and `--input NAME=VALUE` into the run's input object, typed by the declarations.
struct RunInputParser {
    let workflow: Workflow

    /// The inputs; `--input` values (``NameValuePair/inputs(_:command:)``) override those of the file (`--inputs FILE`
    /// with one `--input` for a name in it is allowed: the command line wins). Checks them against the declarations, reporting
    /// problems in the inputs file at their line and column.
    func parse(file: String?, pairs: [NameValuePair]) throws(DiagnosticsError) -> JSONObject {
        var fileDocument: JSONDocument?
        let inputs = try read(file: file, pairs: pairs, document: &fileDocument)
        do {
            _ = try workflow.resolveInputs(inputs, source: file ?? "--input")
        } catch {
            let locations = fileDocument?.sourceMap.locations()
            throw DiagnosticsError(error.diagnostics.map { diagnostic in
                var located = diagnostic
                let name = JSONPointer.tokens(of: diagnostic.pointer).first ?? ""
                if let locations, !pairs.contains(where: { $0.name == name }) {
                    located.location = locations.location(of: diagnostic.pointer, preferKey: true)
                } else if file != nil {
                    located.file = "--input"
                }
                return located
            })
        }
        return inputs
    }

    private func read(file: String?, pairs: [NameValuePair], document fileDocument: inout JSONDocument?) throws(DiagnosticsError) -> JSONObject {
        var inputs = JSONObject()
        var diagnostics: [Diagnostic] = []
        if let file {
            let document = try JSONDocument.load(path: file)
            fileDocument = document
            diagnostics += document.duplicateKeyDiagnostics()
            guard case .object(let object) = document.value else {
                throw DiagnosticsError([
                    Diagnostic(
                        severity: .error, code: DiagnosticCode.wrongType,
                        message: "an inputs file must hold a JSON object of input names to values, found \(document.value.typeName)",
                        file: file, location: document.sourceMap.location(of: ""))
                ])
            }
            inputs = object
        }
        for pair in pairs {
            // Unknown inputs are kept as strings and reported later.
            switch workflow.input(named: pair.name)?.value(fromText: pair.value) ?? .success(.string(pair.value)) {
            case .success(let value): inputs[pair.name] = value
            case .failure(let error):
                diagnostics.append(
                    Diagnostic(
                        severity: .error, code: error.outOfRange ? DiagnosticCode.numberOutOfRange : DiagnosticCode.wrongType,
                        message: error.message, file: "--input", pointer: "/" + pair.name))
            }
        }
        guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics) }
        return inputs
    }
}
