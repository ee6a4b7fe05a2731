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
        func refusal(_ what: String) -> DiagnosticsError {
            DiagnosticsError([
                Diagnostic(
                    severity: .error, code: DiagnosticCode.unreadableFile, message: "standard input is \(what); " + piping,
                    file: RunInputParser.standardInputName)
            ])
        }
        if isatty(STDIN_FILENO) == 1 && processInput { throw refusal("a terminal") }
        // A device (`< /dev/null`, `< /dev/zero`) or a directory as standard input: what to do is what the command
        // reads, not a file to name.
        var status = stat()
        if (processInput ? fstat(STDIN_FILENO, &status) : stat(path, &status)) == 0 {
            let kind: String? =
                switch status.st_mode & S_IFMT {
                case S_IFCHR, S_IFBLK: "a device"
                case S_IFDIR: "a directory"
                default: nil
                }
            if let kind { throw refusal("\(kind), not a pipe or a file") }
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
                return named
            })
        }
    }
}
