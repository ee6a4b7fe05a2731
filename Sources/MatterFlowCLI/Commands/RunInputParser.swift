import Foundation
import MatterFlow
import MatterFlowJSON

/// Turns `--inputs FILE` and `--input NAME=VALUE` into the run's input object, typed by the declarations.
/// `--inputs -` reads the object from standard input.
struct RunInputParser {
    let workflow: Workflow
    /// What `--inputs -` reads (``ToolEnvironment/standardInputPath``).
    let standardInputPath: String

    /// How findings in inputs read from standard input name their source.
    static let standardInputName = "<stdin>"

    /// The inputs; `--input` values (``NameValuePair/inputs(_:command:)``) override those of the file (`--inputs FILE`
    /// with one `--input` for a name in it is allowed: the command line wins). Checks them against the declarations, reporting
    /// problems in the inputs file at their line and column.
    /// Every problem is reported at once: an `--input` whose text is not of its type, and what the declarations find
    /// in the others.
    func parse(file: String?, pairs: [NameValuePair]) throws(DiagnosticsError) -> JSONObject {
        var fileDocument: JSONDocument?
        let (inputs, unread, readingProblems, usable) = try read(file: file, pairs: pairs, document: &fileDocument)
        // A file that holds no object of inputs leaves nothing to check against the declarations.
        guard usable else { throw DiagnosticsError(readingProblems) }
        var checked = inputs
        for name in unread { checked[name] = nil }
        var diagnostics = readingProblems
        do {
            _ = try workflow.resolveInputs(checked, source: file.map(Self.sourceName) ?? "--input")
        } catch {
            let locations = fileDocument?.sourceMap.locations()
            for diagnostic in error.diagnostics {
                var located = diagnostic
                let name = JSONPointer.tokens(of: diagnostic.pointer).first ?? ""
                // An input whose text could not be read is reported as such, not also as missing.
                guard !unread.contains(name) else { continue }
                if let locations, !pairs.contains(where: { $0.name == name }) {
                    located.location = locations.location(of: diagnostic.pointer, preferKey: true)
                } else if file != nil {
                    located.file = "--input"
                }
                diagnostics.append(located)
            }
        }
        guard diagnostics.isEmpty else { throw DiagnosticsError(diagnostics) }
        return inputs
    }

    /// The inputs of the file and the pairs, the names of the pairs whose text is not of their input's type, the
    /// problems found reading them (those, keys the file repeats, a file holding no object), and whether the file
    /// (if any) holds an object of inputs.
    private func read(
        file: String?, pairs: [NameValuePair], document fileDocument: inout JSONDocument?
    ) throws(DiagnosticsError) -> (inputs: JSONObject, unread: Set<String>, problems: [Diagnostic], usable: Bool) {
        var inputs = JSONObject()
        var usable = true
        var unread = Set<String>()
        var diagnostics: [Diagnostic] = []
        if let file {
            let document = try load(file)
            fileDocument = document
            diagnostics += document.duplicateKeyDiagnostics()
            if case .object(let object) = document.value {
                inputs = object
            } else {
                usable = false
                diagnostics.append(
                    Diagnostic(
                        severity: .error, code: DiagnosticCode.wrongType,
                        message: "an inputs file must hold a JSON object of input names to values, found \(document.value.typeName)",
                        file: document.file, location: document.sourceMap.location(of: "")))
            }
        }
        for pair in pairs {
            // Unknown inputs are kept as strings and reported later.
            switch workflow.input(named: pair.name)?.value(fromText: pair.value) ?? .success(.string(pair.value)) {
            case .success(let value): inputs[pair.name] = value
            case .failure(let error):
                unread.insert(pair.name)
                diagnostics.append(
                    Diagnostic(
                        severity: .error, code: error.outOfRange ? DiagnosticCode.numberOutOfRange : DiagnosticCode.wrongType,
                        message: error.message, file: "--input", pointer: "/" + pair.name))
            }
        }
        return (inputs, unread, diagnostics, usable)
    }

    /// The name findings give the inputs' source: the path, or `<stdin>` for `-`.
    static func sourceName(_ file: String) -> String { file == "-" ? standardInputName : file }

    /// The inputs document: the file, or standard input for `-` (a pipe or a redirected file; a terminal is refused,
    /// as a run's questions read it), its findings named `<stdin>`.
    private func load(_ file: String) throws(DiagnosticsError) -> JSONDocument {
        guard file == "-" else { return try JSONDocument.load(path: file) }
        let text = try ToolEnvironment.standardInputText(
            standardInputPath, piping: "pipe the inputs' JSON object in (`... | matterflow ... --inputs -`) or name a file")
        return try JSONDocument.parse(text, file: Self.standardInputName)
    }
}
