import Foundation
import MatterFlowCLI

let code = await MatterflowTool.main(
    arguments: Array(CommandLine.arguments.dropFirst()), environment: ToolEnvironment(handlesInterrupts: true, terminal: StandardInputTerminal.ifInteractive()))
exit(code)
