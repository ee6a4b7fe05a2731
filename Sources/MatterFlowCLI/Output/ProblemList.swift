import MatterFlowJSON

/// The errors and warnings a `--json` form prints beside (or instead of) its result: an array of `{"code", "message"}`
/// objects, the shape `payload --json` gives its warnings. With `--json`, `payload`, `dataset` and `hub check` print
/// one JSON document on stdout for exit statuses 0, 1 and 2 alike (a refused input is `{"errors": [...]}`), so a
/// script reads the reason from the document rather than from stderr; a usage error (64) prints nothing there.
struct ProblemList {
    private(set) var items: [JSONValue] = []

    /// Adds one problem; `extra` members (such as `payload`, which of several joined payloads it is about) come after
    /// the code and message.
    mutating func append(code: String, message: String, extra: JSONObject = JSONObject()) {
        var object = JSONObject()
        object["code"] = .string(code)
        object["message"] = .string(message)
        for member in extra.members { object[member.key] = member.value }
        items.append(.object(object))
    }

    /// Adds a file's finding: its code and message, then `file`, `pointer`, `line` and `column` when known.
    mutating func append(_ diagnostic: Diagnostic) {
        var extra = JSONObject()
        if let file = diagnostic.file { extra["file"] = .string(file) }
        if !diagnostic.pointer.isEmpty { extra["pointer"] = .string(diagnostic.pointer) }
        if let location = diagnostic.location {
            extra["line"] = .int(location.line)
            extra["column"] = .int(location.column)
        }
        append(code: diagnostic.code, message: diagnostic.message, extra: extra)
    }

    /// Adds each of a file's findings, as ``append(_:)`` does.
    mutating func append(contentsOf diagnostics: [Diagnostic]) {
        for diagnostic in diagnostics { append(diagnostic) }
    }

    var isEmpty: Bool { items.isEmpty }

    /// The problems as a JSON array.
    var json: JSONValue { .array(items) }

    /// Exit 2 for input a command refuses, printing ``refusal`` on `out` when the command was given `--json`.
    func refuse(json: Bool, to out: any TextSink) -> Int32 {
        if json { out.line(JSONWriter.pretty(refusal)) }
        return ExitCode.invalidInput
    }

    /// `{"errors": [...]}`: what a `--json` form prints for input it refuses.
    var refusal: JSONValue {
        var object = JSONObject()
        object["errors"] = json
        return .object(object)
    }
}
