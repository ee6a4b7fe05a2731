import Foundation
import Synchronization

/// Where `matterflow run` reads a person's answers when it asks interactively: standard input on a terminal, or a
/// script in tests.
public protocol PromptTerminal: Sendable {
    /// The next line typed, without its line break; nil at end of input (Ctrl-D).
    func readLine() async -> String?
    /// The next line typed, not shown as it is typed (the answer to a secret question), as ``readLine()`` reads it.
    func readSecretLine() async -> String?
    /// Puts the terminal back as it was, should a secret read still hide what is typed (the run ended during it).
    func restore()
}

extension PromptTerminal {
    /// A terminal that shows nothing as it is typed reads a secret line as any other.
    public func readSecretLine() async -> String? { await readLine() }
    public func restore() {}
}

/// Standard input, read on a thread of its own so a person taking their time blocks no task.
public struct StandardInputTerminal: PromptTerminal {
    /// The terminal's settings while a secret read has echo off; nil otherwise.
    private let hidden = SavedTerminalSettings()

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

    /// Turns echo off for the line (the Enter key still moves to the next line), as `getpass` does.
    public func readSecretLine() async -> String? {
        hidden.hideEcho()
        defer { hidden.restore() }
        return await readLine()
    }

    public func restore() { hidden.restore() }
}

/// The settings of standard input's terminal kept while echo is off, so that they can be put back whoever ends
/// the read: the read itself, or the command when a run ends (a signal) while the person is typing.
final class SavedTerminalSettings: Sendable {
    private let saved = Mutex<termios?>(nil)
    private let descriptor: Int32

    init(descriptor: Int32 = STDIN_FILENO) {
        self.descriptor = descriptor
    }

    func hideEcho() {
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else { return }
        var quiet = settings
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ECHONL)
        saved.withLock { $0 = $0 ?? settings }
        _ = tcsetattr(descriptor, TCSANOW, &quiet)
    }

    func restore() {
        guard var settings = saved.withLock({ state -> termios? in
            defer { state = nil }
            return state
        }) else { return }
        _ = tcsetattr(descriptor, TCSANOW, &settings)
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
