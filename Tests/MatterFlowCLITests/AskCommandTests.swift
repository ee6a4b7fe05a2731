import Foundation
import MatterFlow
import MatterFlowCLI
import MatterFlowSimulator
import Testing

/// `matterflow run` of a workflow that asks: `--answer` for scripts, a question nobody can answer failing fast,
/// and the interactive prompt on a (scripted) terminal.
@Suite("matterflow run: questions")
struct AskCommandTests {
    let workflow = Repository.workflow("commission-device-interactive")
    let payload = ["--input", "onboardingPayload=\(Payloads.specQR)"]

    /// Runs in-process with a terminal typing `lines` (nil: no terminal, as in a script).
    func run(_ arguments: [String], typing lines: [String]? = nil, home: String) async -> ToolRun {
        let out = CapturedText()
        let err = CapturedText()
        let environment = ToolEnvironment(
            standardOutput: out, standardError: err, clock: ManualClock(), terminal: lines.map { ScriptedTerminal(lines: $0) })
        let code = await MatterflowTool.main(arguments: ["run", workflow, "--home", home] + payload + arguments, environment: environment)
        return ToolRun(code: code, stdout: out.text, stderr: err.text)
    }

    func home() throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        return (directory, try directory.write(TestHomes.json(), to: "home.json"))
    }

    @Test("--answer answers in advance: the device is configured into the chosen room")
    func answersInAdvance() async throws {
        let (directory, home) = try home()
        defer { directory.remove() }
        let run = await run(["--answer", "room=Hall", "--answer", "name=Reading Lamp", "--state", directory.path], home: home)
        #expect(run.code == 0, "\(run.stderr)")
        let output = try #require(try run.result()["output"] as? [String: Any])
        #expect(output["room"] as? String == "Hall")
        #expect(output["name"] as? String == "Reading Lamp")
        let saved = try savedHome(in: directory.path)
        #expect(saved.devices.contains { $0.name == "Reading Lamp" && $0.room == "Hall" })
    }

    @Test("without a terminal, a question no --answer answers cancels the run at once and exits 2 naming the --answer")
    func missingAnswerFailsFast() async throws {
        let (directory, home) = try home()
        defer { directory.remove() }
        let run = await run(["--answer", "room=Kitchen", "--state", directory.path], home: home)
        #expect(run.code == 2)
        #expect(run.stderr.contains("error[missingAnswer]"))
        #expect(run.stderr.contains("--answer name=VALUE"))
        #expect(try run.result()["outcome"] as? String == "cancelled")
        // The JSON says why, as the exit status does.
        let because = try run.result()["cancelledBecause"] as? [String: Any]
        #expect(because?["code"] as? String == "missingAnswer")
        let message = (try run.result()["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("(no answer to question name)"), "\(message)")
        #expect((because?["message"] as? String)?.contains("--answer name=VALUE") == true, "\(String(describing: because))")
        // The cancel path released the session: nothing is left pending.
        #expect(try savedHome(in: directory.path).activeSession == nil)
    }

    @Test("an --answer that does not fit exits 2 with the reason; one for no ask state is refused before the run")
    func wrongAnswers() async throws {
        let (directory, home) = try home()
        defer { directory.remove() }
        let wrong = await run(["--answer", "room=Garage", "--answer", "name=Lamp"], home: home)
        #expect(wrong.code == 2)
        #expect(wrong.stderr.contains("\"Garage\" is not one of the choices"))
        // Said as an answer that does not fit, not as one missing: in the error code and in the run's own error.
        #expect(wrong.stderr.contains("error[invalidAnswer]: "), "\(wrong.stderr)")
        #expect((try wrong.result()["cancelledBecause"] as? [String: Any])?["code"] as? String == "invalidAnswer")
        let message = (try wrong.result()["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(message.contains("(the answer to question room does not fit: \"Garage\" is not one of the choices"), "\(message)")
        let unknown = await run(["--answer", "rom=Kitchen"], home: home)
        #expect(unknown.code == 2)
        #expect(unknown.stderr.contains("error[unknownQuestion]"))
        #expect(unknown.stderr.contains("did you mean \"room\""))
        #expect(unknown.stdout.isEmpty, "nothing ran")
        let twice = await run(["--answer", "room=Kitchen", "--answer", "room=Hall"], home: home)
        #expect(twice.code == 64)
        // An answer no run could take (an empty name where one of 1 to 64 characters is asked) is refused before the
        // run acts on the hub, as submit refuses it: no device is commissioned only to be cancelled again.
        let empty = await run(["--answer", "room=Kitchen", "--answer", "name="], home: home)
        #expect(empty.code == 2)
        #expect(empty.stderr.contains("error[invalidAnswer]: --answer name does not fit its question: the answer must have at least 1 character, it has 0"), "\(empty.stderr)")
        #expect(empty.stdout.isEmpty && !empty.stderr.contains("commissionDevice"), "nothing ran: \(empty.stderr)")
    }

    @Test("on a terminal: numbered choices, a wrong answer asked again with the reason, the choice taken")
    func interactive() async throws {
        let (directory, home) = try home()
        defer { directory.remove() }
        let run = await run(["--trace", "none"], typing: ["7", "2", "", "Reading Lamp"], home: home)
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stderr.contains("? Which room is the new device in?"))
        #expect(run.stderr.contains("  1) Kitchen\n  2) Hall"))
        #expect(run.stderr.contains("there is no choice 7: the choices are numbered 1 to 2 (1. Kitchen, 2. Hall)"), "\(run.stderr)")
        #expect(run.stderr.contains("at least 1 character, it has 0"))
        let output = try #require(try run.result()["output"] as? [String: Any])
        #expect(output["room"] as? String == "Hall")
        #expect(output["name"] as? String == "Reading Lamp")
    }

    @Test("on a terminal, end of input cancels the run through its cancel path")
    func endOfInputCancels() async throws {
        let (directory, home) = try home()
        defer { directory.remove() }
        let run = await run(["--state", directory.path, "--trace", "none"], typing: ["Kitchen"], home: home)
        #expect(run.code == 1)
        #expect(run.stderr.contains("end of input: cancelling the run"))
        #expect(try run.result()["outcome"] as? String == "cancelled")
        #expect(try savedHome(in: directory.path).activeSession == nil)
    }

    @Test("the real process: --answer in a script commissions the device into the chosen room")
    func realProcess() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = try await ChildProcess.run(
            ["run", workflow, "--state", directory.path, "--trace", "none"] + payload
                + ["--answer", "room=Bedroom", "--answer", "name=Desk Lamp"])
        #expect(run.status == 0, "\(run.stderr)")
        let result = try #require(try parseJSON(run.stdout) as? [String: Any])
        let output = try #require(result["output"] as? [String: Any])
        #expect(output["room"] as? String == "Bedroom")
        let saved = try savedHome(in: directory.path)
        #expect(saved.devices.contains { $0.name == "Desk Lamp" && $0.room == "Bedroom" })
        #expect(saved.activeSession == nil)
    }

    @Test("the journal keeps the questions and answers, and recover --resume asks again only the one the run stopped at")
    func journaledAndResumed() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        let state = directory.file("state")
        let answers = ["--answer", "room=Kitchen", "--answer", "name=Lamp"]
        let first = try await ChildProcess.run(
            ["run", workflow, "--journal", journal, "--state", state, "--trace", "none"] + payload + answers)
        #expect(first.status == 0, "\(first.stderr)")
        let runID = try #require(try parseJSON(first.stdout) as? [String: Any])["runID"] as? String
        let history = try await ChildProcess.run(["history", try #require(runID), "--journal", journal, "--json"])
        let records = try #require((try parseJSON(history.stdout) as? [String: Any])?["records"] as? [[String: Any]])
        let answered = records.filter { $0["type"] as? String == "answered" }
        #expect(answered.map { $0["value"] as? String } == ["Kitchen", "Lamp"])
        // Kill a second run just after it asked for the name, then resume it with that answer only.
        let asked = try #require(
            records.first { $0["type"] as? String == "questionAsked" && $0["state"] as? String == "name" }?["seq"] as? Int)
        let secondJournal = directory.file("journal-2")
        let secondState = directory.file("state-2")
        let crashed = try await ChildProcess.run(
            ["run", workflow, "--journal", secondJournal, "--state", secondState, "--trace", "none"] + payload + answers,
            environment: ["MATTERFLOW_TEST_HOOKS": "1", "MATTERFLOW_CRASH_AT": "after:\(asked)"])
        #expect(crashed.status == 128 + SIGKILL)
        let resumed = try await ChildProcess.run(
            ["recover", "--journal", secondJournal, "--state", secondState, "--resume"] + payload
                + ["--answer", "name=Desk Lamp"])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        let saved = try savedHome(in: secondState)
        #expect(saved.devices.contains { $0.name == "Desk Lamp" && $0.room == "Kitchen" }, "the room answered before the crash is kept")
        #expect(saved.activeSession == nil)
    }
}
