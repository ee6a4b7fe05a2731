import Foundation
import MatterFlow
@testable import MatterFlowCLI
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A secret question asked on a terminal: what is typed is not shown, and the terminal is put back after.
@Suite("secret answers typed at a terminal")
struct SecretPromptTests {
    /// A terminal that types given lines and records how each was read.
    final class RecordingTerminal: PromptTerminal {
        let reads = Mutex<[String]>([])
        let lines: Mutex<[String]>
        init(lines: [String]) { self.lines = Mutex(lines) }
        private func next() -> String? { lines.withLock { $0.isEmpty ? nil : $0.removeFirst() } }
        func readLine() async -> String? {
            reads.withLock { $0.append("plain") }
            return next()
        }
        func readSecretLine() async -> String? {
            reads.withLock { $0.append("secret") }
            return next()
        }
        func restore() { reads.withLock { $0.append("restore") } }
        var hidesSecretInput: Bool { true }
    }

    @Test("a secret question is read with echo off and says so; a plain one is read as typed; the terminal is restored as the run ends")
    func secretQuestionsHideTyping() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try directory.write(
            #"""
            {"workflow": "pin", "version": 1, "start": "name", "states": {
              "name": {"type": "ask", "prompt": "Name?", "answer": {"text": {}}, "result": "name", "timeoutSeconds": 60, "next": "pin", "onTimeout": "done"},
              "pin": {"type": "ask", "prompt": "PIN?", "secret": true, "answer": {"text": {"minLength": 8}}, "result": "pin", "timeoutSeconds": 60, "next": "done", "onTimeout": "done"},
              "done": {"type": "succeed", "output": {"name": "${vars.name}"}}}}
            """#, to: "pin.json")
        let terminal = RecordingTerminal(lines: ["Lamp", "shortpw", "20202021"])
        let err = CapturedText()
        let out = CapturedText()
        let code = await MatterflowTool.main(
            arguments: ["run", workflow, "--trace", "jsonl"],
            environment: ToolEnvironment(standardOutput: out, standardError: err, clock: ManualClock(), terminal: terminal))
        #expect(code == 0, "\(err.text)")
        #expect(terminal.reads.withLock { $0 } == ["plain", "secret", "secret", "restore"])
        #expect(err.text.contains("? PIN?\n(typing is hidden) > "), "\(err.text)")
        // Neither the rejected answer nor the taken one is quoted, in the prompt's messages or the trace.
        #expect(err.text.contains("✗ "), "the short answer was refused: \(err.text)")
        #expect(!err.text.contains("shortpw") && !err.text.contains("20202021"), "\(err.text)")
        #expect(!out.text.contains("20202021"))
    }

    @Test("echo goes off for a secret read (Enter still shows) and comes back as it was")
    func echoOffAndBack() throws {
        var primary: Int32 = -1
        var secondary: Int32 = -1
        try #require(openpty(&primary, &secondary, nil, nil, nil) == 0)
        defer {
            close(primary)
            close(secondary)
        }
        func flags() -> tcflag_t {
            var settings = termios()
            tcgetattr(secondary, &settings)
            return settings.c_lflag
        }
        let before = flags()
        #expect(before & tcflag_t(ECHO) != 0)
        let saved = SavedTerminalSettings(descriptor: secondary)
        saved.hideEcho()
        #expect(flags() & tcflag_t(ECHO) == 0)
        #expect(flags() & tcflag_t(ECHONL) != 0)
        saved.restore()
        #expect(flags() == before)
        saved.restore()
        #expect(flags() == before, "a second restore changes nothing")
        // Once closed (the command ends), a secret read that starts late hides nothing.
        saved.close()
        saved.hideEcho()
        #expect(flags() == before)
    }

    @Test("a terminal that cannot hide what is typed does not claim to")
    func aTerminalThatCannotHideSaysNothing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try directory.write(
            #"""
            {"workflow": "pin", "version": 1, "start": "pin", "states": {
              "pin": {"type": "ask", "prompt": "PIN?", "secret": true, "answer": {"text": {"minLength": 8}}, "result": "pin", "timeoutSeconds": 60, "next": "done", "onTimeout": "done"},
              "done": {"type": "succeed"}}}
            """#, to: "pin.json")
        let err = CapturedText()
        let code = await MatterflowTool.main(
            arguments: ["run", workflow, "--trace", "none"],
            environment: ToolEnvironment(
                standardOutput: CapturedText(), standardError: err, clock: ManualClock(), terminal: ScriptedTerminal(lines: ["20202021"])))
        #expect(code == 0, "\(err.text)")
        #expect(err.text.contains("? PIN?\n> "), "\(err.text)")
        #expect(!err.text.contains("hidden"))
    }
}
