import MatterFlow
import MatterFlowJSON

/// Turns `--inputs FILE` and `--input NAME=VALUE` into the run's input object, typed by the declarations.
struct RunInputParser {
    let workflow: Workflow

    /// Rejects an `--input` that is not `NAME=VALUE`, and an input named by more than one `--input`: which of the
    /// values was meant cannot be known, so none is picked. (`--inputs FILE` with one `--input` for a name in it
    /// stays allowed: the command line overrides the file.)
    static func checkPairs(_ pairs: [String], command: String) throws(UsageError) {
        var seen = Set<Substring>()
        for pair in pairs {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw UsageError(message: "--input \"\(pair)\" must be NAME=VALUE", command: command)
            }
            let name = pair[..<equals]
            guard seen.insert(name).inserted else {
                throw UsageError(
                    message: "--input \(name) is given more than once; give each input once", command: command)
            }
        }
    }

    /// The inputs; `--input` values override those of the file. Checks them against the declarations, reporting
    /// problems in the inputs file at their line and column.
    func parse(file: String?, pairs: [String]) throws(DiagnosticsError) -> JSONObject {
        var fileDocument: JSONDocument?
        let inputs = try read(file: file, pairs: pairs, document: &fileDocument)
        do {
            _ = try workflow.resolveInputs(inputs, source: file ?? "--input")
        } catch {
            let locations = fileDocument?.sourceMap.locations()
            throw DiagnosticsError(error.diagnostics.map { diagnostic in
                var located = diagnostic
                let name = JSONPointer.tokens(of: diagnostic.pointer).first ?? ""
                if let locations, !pairs.contains(where: { $0.hasPrefix(name + "=") }) {
                    located.location = locations.location(of: diagnostic.pointer, preferKey: true)
                } else if file != nil {
                    located.file = "--input"
                }
                return located
            })
        }
        return inputs
    }

    private func read(file: String?, pairs: [String], document fileDocument: inout JSONDocument?) throws(DiagnosticsError) -> JSONObject {
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
            // Checked before (``checkPairs(_:command:)``): a pair without a name or `=` is a usage error.
            guard let equals = pair.firstIndex(of: "=") else { continue }
            let name = String(pair[..<equals])
            let text = String(pair[pair.index(after: equals)...])
            // Unknown inputs are kept as strings and reported later.
            switch workflow.input(named: name)?.value(fromText: text) ?? .success(.string(text)) {
            case .success(let value): inputs[name] = value
            case .failure(let error):
                diagnostics.append(
                    Diagnostic(
                        severity: .error, code: error.outOfRange ? DiagnosticCode.numberOutOfRange : DiagnosticCode.wrongType,
                        message: error.message, file: "--input", pointer: "/" + name))
            }
        }
        guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics) }
        return inputs
    }
}
