import Foundation
import Synchronization

/// Where `matterflow run` reads a person's answers when it asks interactively: standard input on a terminal, or a
/// script in tests.
public protocol PromptTerminal: Sendable {
    /// The next line typed, without its line break; nil at end of input (Ctrl-D).
    func readLine() async -> String?
    /// The next line typed, not shown as it is typed (the answer to a secret question) when ``hidesSecretInput``,
    /// as ``readLine()`` reads it.
    func readSecretLine() async -> String?
    /// Whether ``readSecretLine()`` keeps what is typed off the screen: the prompt says so only then.
    var hidesSecretInput: Bool { get }
    /// Puts the terminal back as it was, should a secret read still hide what is typed (the run ended during it),
    /// and hides nothing any more: a read that starts later shows what is typed.
    func restore()
}

extension PromptTerminal {
    /// A terminal that cannot hide what is typed reads a secret line as any other.
    public func readSecretLine() async -> String? { await readLine() }
    /// False: the default reads a secret line as any other.
    public var hidesSecretInput: Bool { false }
    /// Does nothing: the default hides nothing.
    public func restore() {}
}

/// Standard input, read on a thread of its own so a person taking their time blocks no task.
public struct StandardInputTerminal: PromptTerminal {
    /// The terminal's settings while a secret read has echo off; nil otherwise.
    private let hidden = SavedTerminalSettings()

    /// Standard input, whether or not a person is there (see ``ifInteractive()``).
    public init() {}

    /// Standard input when both it and standard error are terminals (a person is there to answer); nil otherwise.
    public static func ifInteractive() -> StandardInputTerminal? {
        isatty(STDIN_FILENO) == 1 && isatty(STDERR_FILENO) == 1 ? StandardInputTerminal() : nil
    }

    /// Reads the line on a thread of its own, so the waiting task blocks no other.
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

    /// True: ``readSecretLine()`` turns echo off.
    public var hidesSecretInput: Bool { true }

    /// Puts back the terminal's settings if a secret read has echo off, and keeps echo on for later reads.
    public func restore() { hidden.close() }
}

/// The settings of standard input's terminal kept while echo is off, so that they can be put back whoever ends
/// the read: the read itself, or the command when a run ends (a signal) while the person is typing.
final class SavedTerminalSettings: Sendable {
    private struct State {
        /// The settings while echo is off.
        var saved: termios?
        /// ``close()`` was called: echo stays on.
        var closed = false
    }

    private let state = Mutex(State())
    private let descriptor: Int32

    init(descriptor: Int32 = STDIN_FILENO) {
        self.descriptor = descriptor
    }

    /// Turns echo off, unless ``close()`` was called. Under the lock, so that a ``close()`` cannot come between
    /// the settings read and echo turned off.
    func hideEcho() {
        state.withLock { state in
            guard !state.closed else { return }
            var settings = termios()
            guard tcgetattr(descriptor, &settings) == 0 else { return }
            var quiet = settings
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ECHONL)
            state.saved = state.saved ?? settings
            _ = tcsetattr(descriptor, TCSANOW, &quiet)
        }
    }

    /// Puts back the settings echo was turned off from, if it is off.
    func restore() {
        state.withLock { state in
            guard var settings = state.saved else { return }
            state.saved = nil
            _ = tcsetattr(descriptor, TCSANOW, &settings)
        }
    }

    /// Puts the settings back, and keeps echo on from now on (the command is ending).
    func close() {
        state.withLock { $0.closed = true }
        restore()
    }
}

/// Lines given in advance, then end of input: a scripted person, for tests.
public final class ScriptedTerminal: PromptTerminal {
    private let lines: Mutex<[String]>

    /// A terminal that reads `lines`, one per read, then reports end of input.
    public init(lines: [String]) {
        self.lines = Mutex(lines)
    }

    /// The next line given in advance; nil once all have been read.
    public func readLine() async -> String? {
        lines.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}
