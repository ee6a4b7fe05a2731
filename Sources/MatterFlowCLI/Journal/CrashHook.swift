#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import MatterFlowJournal

/// The crash-test hook: `MATTERFLOW_CRASH_AT=<boundary>` makes `matterflow run` or `matterflow recover` kill itself
/// with `SIGKILL` at one journal boundary, so crash tests stop a real process at an exact, repeatable point.
///
/// `<boundary>` is `before:N` (record N is about to be written: every earlier effect has happened), `after:N`
/// (record N is on disk) or `torn:N` (half of record N is written and flushed, then the process dies). The hook is
/// honoured only with `MATTERFLOW_TEST_HOOKS=1` as well, and a malformed value is a usage error, so it cannot be
/// set off by accident; when active, the command says so on standard error first.
enum CrashHook {
    static let variable = "MATTERFLOW_CRASH_AT"
    static let enableVariable = "MATTERFLOW_TEST_HOOKS"

    /// The hook the environment asks for (nil: none), and the warning to print.
    static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment, command: String
    ) throws(UsageError) -> (hook: JournalTestHook, warning: String)? {
        guard let value = environment[variable] else { return nil }
        guard environment[enableVariable] == "1" else {
            throw UsageError(
                message: "\(variable) is a crash-test hook and is honoured only with \(enableVariable)=1; unset \(variable) to run normally",
                command: command)
        }
        guard let (position, sequence) = JournalBoundary.parse(value) else {
            throw UsageError(
                message: "\(variable) must be before:N, after:N or torn:N with N ≥ 1, not '\(value)'", command: command)
        }
        let hook: JournalTestHook = { boundary in
            guard boundary.sequence == sequence else { return .proceed }
            if position == .torn, boundary.position == .before { return .tear }
            if boundary.position == position { kill(getpid(), SIGKILL) }
            return .proceed
        }
        return (hook, "warning: \(variable)=\(value): this process will kill itself at that journal boundary (crash-test hook)")
    }
}
