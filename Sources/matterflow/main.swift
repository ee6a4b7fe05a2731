import Foundation
import MatterFlowCLI

// Each argument's bytes, as the process received them: the tool checks they are UTF-8 text. A runtime that saw no
// argv at all (argc 0, as with libfaketime preloaded into this process itself) gives none.
let rawArguments = (1..<max(1, Int(CommandLine.argc))).map { index -> [UInt8] in
    guard let argument = CommandLine.unsafeArgv[index] else { return [] }
    return Array(UnsafeBufferPointer(start: UnsafeRawPointer(argument).assumingMemoryBound(to: UInt8.self), count: strlen(argument)))
}
var environment = ToolEnvironment(handlesInterrupts: true, terminal: StandardInputTerminal.ifInteractive())
environment.asciiGlyphs = TerminalGlyphs.asciiOnly(environment: ProcessInfo.processInfo.environment)
environment.standardErrorIsTerminal = isatty(STDERR_FILENO) == 1
environment.standardErrorIsJournal = ToolEnvironment.standardErrorIsJournal(environment: ProcessInfo.processInfo.environment)
let code = await MatterflowTool.main(rawArguments: rawArguments, environment: environment)
exit(code)
