import MatterFlowJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ToolEnvironment {
    /// What standard input holds, to its end: the process's own (`path` is ``ToolEnvironment/processStandardInput``),
    /// read from its descriptor (a socket, which a parent passing a socket pair gives, cannot be opened by a path),
    /// or the file tests name. A terminal is refused, saying what to pipe (`piping`); findings are named `<stdin>`.
    static func standardInputText(_ path: String, piping: String) throws(DiagnosticsError) -> String {
        let processInput = path == ToolEnvironment.processStandardInput
        if isatty(STDIN_FILENO) == 1 && processInput {
            throw DiagnosticsError([
                Diagnostic(
                    severity: .error, code: DiagnosticCode.unreadableFile, message: "standard input is a terminal; " + piping,
                    file: RunInputParser.standardInputName)
            ])
        }
        do {
            return processInput
                ? try JSONDocument.readText(descriptor: STDIN_FILENO, name: RunInputParser.standardInputName)
                : try JSONDocument.readText(path: path)
        } catch {
            // What reading found (text that is not UTF-8, at its line and column; a device), as from standard input.
            throw DiagnosticsError(error.diagnostics.map { diagnostic in
                var named = diagnostic
                named.file = RunInputParser.standardInputName
                // A device (/dev/null, /dev/zero) given as standard input: what to do is what the command reads.
                if diagnostic.message.hasPrefix("this is a device or a socket") {
                    named.message = "standard input is a device, not a pipe or a file; " + piping
                }
                return named
            })
        }
    }
}
