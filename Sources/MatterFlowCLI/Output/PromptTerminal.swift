import Foundation
import Synchronization

/// Where `matterflow run` reads a person's answers when it asks interactively: standard input on a terminal, or a
/// script in tests.
public protocol PromptTerminal: Sendable {
    /// The next line typed, without its line break; nil at end of input (Ctrl-D).
    func readLine() async -> String?
}

/// Standard input, read on a thread of its own so a person taking their time blocks no task.
public struct StandardInputTerminal: PromptTerminal {
    public init() {}

    /// Standard input when both it and standard error are terminals (a person is there to answer); nil otherwise.
    public static func ifInteractive() -> StandardInputTerminal? {
        isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1 ? StandardInputTerminal() : nil
    }

    public func readLine() async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let reader = Thread { continuation.resume(returning: Swift.readLine(strippingNewline: true)) }
            reader.start()
        }
    }
}

/// Lines given in advance, then end of input: a scripted person, for tests.
public final class ScriptedTerminal: PromptTerminal {
    private let lines: Mutex<[String]>

    public init(lines: [String]) {
        self.lines = Mutex(lines)
    }

    public func readLine() async -> String? {
        lines.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}
