import Foundation
import MatterFlow
import MatterFlowJournal
import MatterFlowSimulator
import Testing

/// `recover --resume`: a run killed mid-commissioning continues from where it stopped.
@Suite("recover --resume")
struct ResumeCommandTests {
    let workflow = Repository.workflow("commission-device")

    @Test("kill -9 mid-commissioning, then recover --resume with the payload again: the device is added, named and placed")
    func resumeAfterKill() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (state, journal) = try await killWhileCommissioning(workflow, in: directory)

        let recover = await matterflowVirtual(
            ["recover", "--journal", journal, "--state", state, "--resume", "--input", "onboardingPayload=\(Payloads.specQR)"])
        #expect(recover.code == 0, "\(recover.stderr)")
        #expect(recover.stderr.contains("recovered → succeeded (interrupted in commission/commission)"), "\(recover.stderr)")
        #expect(recover.stderr.contains("resumed"))
        #expect(!recover.stdout.contains(Payloads.specQR) && !recover.stderr.contains(Payloads.specQR))
        let home = try savedHome(in: state)
        #expect(home.activeSession == nil)
        #expect(home.devices.contains { $0.name == "Lamp" && $0.room == "Kitchen" })
        let runs = try RunJournal(directory: journal).runs()
        #expect(runs.map(\.status) == [.succeeded])
        let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: runs[0].path)), as: UTF8.self)
        #expect(!text.contains(Payloads.specQR), "the journal holds the re-supplied secret")
    }

    @Test("recover --resume without the secret input leaves the run where it stopped and says to pass it; with it, the run resumes; --input needs name=value")
    func resumeNeedsTheInput() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (state, journal) = try await killWhileCommissioning(workflow, in: directory)

        // Given without --resume, an input would be ignored: the command says so before anything is done.
        for option in ["--input", "--answer"] {
            let ignored = await matterflowVirtual(["recover", "--journal", journal, "--state", state, option, "onboardingPayload=x"])
            #expect(ignored.code == 64 && ignored.stderr.contains("\(option) applies to runs recover resumes: add --resume"), "\(ignored.stderr)")
        }
        #expect(try savedHome(in: state).activeSession?.phase == .commissioning)
        let malformed = await matterflowVirtual(["recover", "--journal", journal, "--state", state, "--resume", "--input", "payload"])
        #expect(malformed.code == 64)
        #expect(malformed.stderr.contains("--input must be NAME=VALUE; one of them has no NAME="), "\(malformed.stderr)")

        // Forgotten: the commissioning is not undone for it.
        let forgotten = await matterflowVirtual(["recover", "--journal", journal, "--state", state, "--resume"])
        #expect(forgotten.code == 1, "\(forgotten.stderr)")
        #expect(forgotten.stderr.contains("resume refused") && forgotten.stderr.contains("onboardingPayload"), "\(forgotten.stderr)")
        #expect(forgotten.stderr.contains("--input"))
        #expect(try savedHome(in: state).activeSession?.phase == .commissioning)
        // `runs` says why the run needs attention, not only that it does.
        let listed = await matterflowVirtual(["runs", "--journal", journal, "--json"])
        let run = try #require((try parseJSON(listed.stdout) as? [[String: Any]])?.first, "\(listed.stdout)")
        #expect(run["status"] as? String == "needsAttention")
        let notes = run["notes"] as? [String] ?? []
        #expect(notes.contains { $0.hasPrefix("recovery deferred: resume refused") && $0.contains("onboardingPayload") }, "\(notes)")

        // A code mistyped is told as such (not as another run's value), and nothing is changed for it.
        let typo = String(Payloads.specQR.dropLast())
        let mistyped = await matterflowVirtual(["recover", "--journal", journal, "--state", state, "--resume", "--input", "onboardingPayload=\(typo)"])
        #expect(mistyped.code == 1, "\(mistyped.stderr)")
        #expect(mistyped.stderr.contains("resume refused: --input onboardingPayload is not a valid QR code (MT:...) or manual pairing code ("), "\(mistyped.stderr)")
        #expect(!mistyped.stderr.contains("does not match") && !mistyped.stderr.contains(typo), "\(mistyped.stderr)")
        #expect(try savedHome(in: state).activeSession?.phase == .commissioning)

        // An answer no question of the workflow takes is said to be ignored.
        let recover = await matterflowVirtual(
            ["recover", "--journal", journal, "--state", state, "--resume", "--input", "onboardingPayload=\(Payloads.specQR)", "--answer", "nmae=Lamp"])
        #expect(recover.stderr.contains("--answer nmae names no question of commission-device and was ignored"), "\(recover.stderr)")
        #expect(recover.code == 0, "\(recover.stderr)")
        #expect(recover.stderr.contains("recovered → succeeded"), "\(recover.stderr)")
        let home = try savedHome(in: state)
        #expect(home.activeSession == nil)
        #expect(home.devices.contains { $0.name == "Lamp" })
    }
    @Test("a resumed run's shown value reaches the person: redacted without a terminal, itself with --show-secrets")
    func resumedRunShows() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try directory.write(
            #"""
            {"workflow": "show-later", "version": 1, "start": "settle", "onCancel": "stopped",
             "inputs": {"code": {"type": "onboardingPayload", "required": true}},
             "states": {
              "settle": {"type": "delay", "seconds": 5, "next": "code"},
              "code": {"type": "assign", "show": {"payload": "${input.code}", "for": "Ada"}, "next": "done"},
              "done": {"type": "succeed"},
              "stopped": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "stopped"}
            }}
            """#, to: "show-later.json")
        let input = ["--input", "code=\(Payloads.specQR)"]
        func crashedInTheDelay(_ name: String) async throws -> (journal: String, state: String) {
            let journal = directory.file("journal-\(name)")
            let state = directory.file("state-\(name)")
            let first = try await ChildProcess.run(["run", workflow, "--journal", journal, "--state", state, "--trace", "none"] + input)
            #expect(first.status == 0, "\(first.stderr)")
            let runID = try #require(try parseJSON(first.stdout) as? [String: Any])["runID"] as? String
            let history = try await ChildProcess.run(["history", try #require(runID), "--journal", journal, "--json"])
            let records = try #require((try parseJSON(history.stdout) as? [String: Any])?["records"] as? [[String: Any]])
            let delay = try #require(records.first { $0["type"] as? String == "delayStarted" }?["seq"] as? Int)
            try FileManager.default.removeItem(atPath: journal)
            try? FileManager.default.removeItem(atPath: state)
            let crashed = try await ChildProcess.run(
                ["run", workflow, "--journal", journal, "--state", state, "--trace", "none"] + input,
                environment: ["MATTERFLOW_TEST_HOOKS": "1", "MATTERFLOW_CRASH_AT": "after:\(delay)"])
            #expect(crashed.status == 128 + SIGKILL)
            #expect(!crashed.stderr.contains("shown:"), "the crashed run got to show: \(crashed.stderr)")
            return (journal, state)
        }

        let hidden = try await crashedInTheDelay("hidden")
        let resumed = await matterflowVirtual(["recover", "--journal", hidden.journal, "--state", hidden.state, "--resume"] + input)
        #expect(resumed.code == 0, "\(resumed.stderr)")
        #expect(resumed.stderr.contains(#"shown: {"payload":"<redacted>","for":"Ada"}"#), "\(resumed.stderr)")
        #expect(resumed.stderr.contains("run ") && resumed.stderr.contains("--show-secrets shows them"), "\(resumed.stderr)")
        #expect(!resumed.stderr.contains(Payloads.specQR) && !resumed.stdout.contains(Payloads.specQR))

        let shown = try await crashedInTheDelay("shown")
        let revealed = await matterflowVirtual(
            ["recover", "--journal", shown.journal, "--state", shown.state, "--resume", "--show-secrets"] + input)
        #expect(revealed.code == 0, "\(revealed.stderr)")
        #expect(revealed.stderr.contains(#"shown: {"payload":"\#(Payloads.specQR)","for":"Ada"}"#), "\(revealed.stderr)")
        let journalText = try FileManager.default.contentsOfDirectory(atPath: shown.journal).map {
            (try? String(contentsOfFile: shown.journal + "/" + $0, encoding: .utf8)) ?? ""
        }.joined()
        #expect(!journalText.contains(Payloads.specQR), "--show-secrets on recover is for the person, not the journal")
    }
}
