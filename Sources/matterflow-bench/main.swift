import Foundation
import MatterFlowBenchmarks

let directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().path
let code = await BenchmarkTool.main(
    arguments: Array(CommandLine.arguments.dropFirst()),
    standardOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
    standardError: { FileHandle.standardError.write(Data($0.utf8)) },
    executableDirectory: directory)
exit(code)
