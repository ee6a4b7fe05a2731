import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
import Testing

/// `run --journal`, `runs`, `history` and `recover`, in-process and as processes.
@Suite("journal commands")
struct JournalCommandTests {
    let workflow = Repository.workflow("commission-device")

    @Test("run --journal records the run; runs lists it; history prints it as text and JSON")
    func runRunsHistory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let journal = directory.file("journal")
        let run = await matterflow(["run", workflow, "--home", home, "--journal", journal, "--trace", "none"] + commissionInputs())
        #expect(run.code == 0, "\(run.stderr)")
        let runID = try #require(try run.result()["runID"] as? String)
        #expect(FileManager.default.fileExists(atPath: journal + "/" + runID + ".journal"))

        let runs = await matterflow("runs", "--journal", journal)
        #expect(runs.code == 0)
        let lines = runs.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("RUN") == true)
        #expect(lines.count == 2)
        #expect(lines[1].hasPrefix(runID) && lines[1].contains("commission-device") && lines[1].contains("succeeded"))

        let json = await matterflow("runs", "--journal", journal, "--json")
        let listed = try #require(try parseJSON(json.stdout) as? [[String: Any]])
        #expect(listed.first?["status"] as? String == "succeeded")
        #expect(listed.first?["runID"] as? String == runID)
        // When it ended, for a person matching runs to a batch: not before it started.
        let started = try #require(listed.first?["startedAt"] as? Double)
        let ended = try #require(listed.first?["endedAt"] as? Double)
        #expect(ended >= started)

        let history = await matterflow("history", runID, "--journal", journal)
        #expect(history.code == 0)
        let text = history.stdout.split(separator: "\n").map(String.init)
        #expect(text.first?.hasPrefix("records from 20") == true && text.first?.hasSuffix(" UTC (+seconds since then)") == true, "\(text)")
        #expect(text.dropFirst().first?.hasPrefix("#1  +0.000s  runStarted") == true)
        #expect(text.contains { $0.contains("  intent  ") && $0.contains("operation=\"commissionDevice\"") })
        #expect(text.last == "status: succeeded")
        #expect(!history.stdout.contains(Payloads.specQR))

        let historyJSON = await matterflow("history", runID, "--journal", journal, "--json")
        let object = try #require(try parseJSON(historyJSON.stdout) as? [String: Any])
        let records = try #require(object["records"] as? [[String: Any]])
        #expect(records.first?["type"] as? String == "runStarted")
        #expect(records.last?["type"] as? String == "runFinished")
        #expect(records.map { $0["seq"] as? Int } == Array(1...records.count).map { Optional($0) })
        #expect(object["status"] as? String == "succeeded")
        #expect(object["tornTail"] is NSNull)
    }

    @Test("usage and lookup errors: a missing --journal, an unknown run")
    func errors() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(await matterflow("runs").code == 64)
        #expect(await matterflow("history", "run-x").code == 64)
        #expect(await matterflow("recover").code == 64)
        let missing = await matterflow("history", "run-nope", "--journal", directory.path)
        #expect(missing.code == 2)
        #expect(missing.stderr.hasPrefix("error[runNotFound]: no journal for run \"run-nope\""))
        // The command it suggests pastes back as one argument, however the directory is named.
        let spaced = directory.file("my journal")
        try FileManager.default.createDirectory(atPath: spaced, withIntermediateDirectories: true)
        let quoted = await matterflow("history", "run-nope", "--journal", spaced)
        #expect(quoted.stderr.contains("`matterflow runs --journal '\(spaced)'` lists the runs"), "\(quoted.stderr)")
        let empty = await matterflow("runs", "--journal", directory.path)
        #expect(empty.code == 0)
        #expect(empty.stderr == "no runs in \(directory.path)\n")
        let nothing = await matterflowVirtual(["recover", "--journal", directory.path])
        #expect(nothing.code == 0)
        // Two places to read runs from: which was meant cannot be known.
        for arguments in [["runs"], ["history", "run-x"]] {
            let both = await matterflow(arguments + ["--journal", directory.path, "--store", directory.path])
            #expect(both.code == 64, "\(both.stderr)")
            #expect(both.stderr.contains("--store and --journal both name where the runs are; give one of them"), "\(both.stderr)")
        }
    }

    @Test("the crash hook is refused without MATTERFLOW_TEST_HOOKS=1, and a malformed boundary is a usage error")
    func crashHookGuard() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let arguments = ["run", workflow, "--journal", directory.file("journal"), "--trace", "none"] + commissionInputs()
        let unguarded = try await JournalChild.run(arguments, environment: ["MATTERFLOW_CRASH_AT": "after:3"])
        #expect(unguarded.status == 64)
        #expect(unguarded.stderr.contains("MATTERFLOW_TEST_HOOKS=1"))
        let malformed = try await JournalChild.run(
            arguments, environment: ["MATTERFLOW_CRASH_AT": "3", "MATTERFLOW_TEST_HOOKS": "1"])
        #expect(malformed.status == 64)
        let armed = try await JournalChild.run(
            arguments, environment: ["MATTERFLOW_CRASH_AT": "after:3", "MATTERFLOW_TEST_HOOKS": "1"])
        #expect(armed.status == 128 + SIGKILL)
        #expect(armed.stderr.hasPrefix("warning: MATTERFLOW_CRASH_AT=after:3"))
    }

    @Test("a run killed mid-commissioning on a --hub is not settled by a recover without that hub: it says which --hub to give")
    func recoveryWithoutTheRunsHubIsDeferred() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let state = directory.file("state")
        let journal = directory.file("journal")
        let hub = try HubCommandTests.serveCommand("--home", home, "--state", state)
        let killed = try await JournalChild.run(
            ["run", workflow, "--hub", hub, "--journal", journal, "--trace", "none"] + commissionInputs(),
            environment: ["MATTERFLOW_CRASH_AT": "after:20", "MATTERFLOW_TEST_HOOKS": "1"])
        #expect(killed.status == 128 + SIGKILL, "\(killed.stderr)")
        let runID = try #require(try RunJournal(existingDirectory: journal).runs().first?.runID)
        let started = try #require(try JournalReader.read(path: journal + "/" + runID + ".journal").records.first)
        let program = try #require(Executable.path)
        #expect(started.string("hubEndpoint") == program + " …", "the command's arguments are not recorded")
        #expect(started.string("hubName") == "matterflow-simulator")
        #expect(try savedHome(in: state).activeSession != nil, "the killed run holds the hub's session")

        // Forgetting --hub: the built-in home has the structure too, but not the run's session.
        let forgotten = await matterflow("recover", "--journal", journal)
        #expect(forgotten.code == 1, "\(forgotten.stderr)")
        #expect(forgotten.stderr.contains("\(runID): needs attention; the run acted on hub matterflow-simulator at \(program) …, and this recovery acts on the simulated home"), "\(forgotten.stderr)")
        #expect(forgotten.stderr.contains("recover with the --hub the run was given (the command \(program) …)"), "\(forgotten.stderr)")
        #expect(try savedHome(in: state).activeSession != nil, "still held: nothing was settled elsewhere")

        let settled = await matterflow("recover", "--journal", journal, "--hub", hub)
        #expect(settled.code == 0, "\(settled.stderr)")
        #expect(settled.stderr.contains("\(runID): recovered → cancelled"), "\(settled.stderr)")
        #expect(try savedHome(in: state).activeSession == nil, "released on the hub the run used")
    }

    @Test("kill -9 mid-commissioning: recover releases the session, and a new run on the same state succeeds")
    func killMidCommissioning() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (state, journal) = try await killWhileCommissioning(workflow, in: directory)

        let interrupted = await matterflow("runs", "--journal", journal, "--json")
        let interruptedRun = (try parseJSON(interrupted.stdout) as? [[String: Any]])?.first
        #expect(interruptedRun?["status"] as? String == "interrupted")
        #expect(interruptedRun?["endedAt"] is NSNull)

        // A run started before the recovery finds the session taken, and is told which run of the journal holds it.
        let interruptedID = try #require(interruptedRun?["runID"] as? String)
        let structure = try #require(interruptedRun?["structureID"] as? String)
        let refused = await matterflow(["run", workflow, "--state", state, "--journal", journal] + commissionInputs(payload: Payloads.lampQR))
        #expect(refused.code == 1)
        #expect(((try? refused.result())?["error"] as? [String: Any])?["cause"] as? String == "sessionBusy")
        // The hub names the run that holds it, so the note does not guess: it says how to settle that run.
        let refusal = ((try? refused.result())?["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(refusal.contains("held by run \(interruptedID) (session "), "\(refusal)")
        #expect(
            refused.stderr.contains(
                "note: run \(interruptedID) of \(journal) stopped on structure \(structure) without settling: `matterflow recover --journal \(ShellWord.quoted(journal)) --state \(ShellWord.quoted(state))` settles it"),
            "\(refused.stderr)")
        #expect(!refused.stderr.contains("may hold its session"), "\(refused.stderr)")

        // A hub that does not say who holds the session: the note names the journal's runs that may.
        let held = try savedHome(in: state)
        let store = try HomeStateStore(directory: state, startingFrom: held)
        var anonymous = held
        anonymous.activeSession?.owner = nil
        try store.save(anonymous)
        let unnamed = await matterflow(["run", workflow, "--state", state, "--journal", journal] + commissionInputs(payload: Payloads.lampQR))
        #expect(unnamed.stderr.contains("note: run \(interruptedID) of \(journal) stopped on structure \(structure) without settling and may hold its session"), "\(unnamed.stderr)")
        // The hub names another run: the journal's interrupted run does not hold the session, and no note says it may.
        var elsewhere = held
        elsewhere.activeSession?.owner = "run-elsewhere"
        try store.save(elsewhere)
        let other = await matterflow(["run", workflow, "--state", state, "--journal", journal] + commissionInputs(payload: Payloads.lampQR))
        let otherRefusal = ((try? other.result())?["error"] as? [String: Any])?["message"] as? String ?? ""
        #expect(otherRefusal.contains("held by run run-elsewhere (session "), "\(otherRefusal)")
        #expect(!other.stderr.contains("note:"), "\(other.stderr)")
        try store.save(held)

        let recover = try await JournalChild.run(["recover", "--journal", journal, "--state", state])
        #expect(recover.status == 0, "\(recover.stderr)")
        #expect(recover.stderr.contains("recovered → cancelled (interrupted in commission/commission)"))
        #expect(recover.stderr.contains("released its session"))
        let report = try #require(try parseJSON(recover.stdout) as? [String: Any])
        let recovered = try #require((report["runs"] as? [[String: Any]])?.first)
        #expect(recovered["action"] as? String == "recovered")
        #expect(recovered["releasedSession"] as? Bool == true)
        #expect(try savedHome(in: state).activeSession == nil)

        let again = try await JournalChild.run(["recover", "--journal", journal, "--state", state])
        #expect(again.status == 0)
        #expect(again.stderr.contains("already cancelled; nothing to do"))

        let next = await matterflowVirtual(["run", workflow, "--state", state, "--journal", journal, "--trace", "none"] + commissionInputs())
        #expect(next.code == 0, "\(next.stdout)")
        let listed = await matterflow("runs", "--journal", journal, "--json")
        let statuses = ((try parseJSON(listed.stdout) as? [[String: Any]]) ?? []).compactMap { $0["status"] as? String }
        #expect(statuses == ["cancelled", "failed", "failed", "failed", "succeeded"])
    }

    @Test("two runs preparing one structure at once: exactly one succeeds, the other fails with sessionBusy")
    func parallelRuns() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The first run to prepare holds the session for 8 s of commissioning: time enough for the other process to
        // start and prepare too, however loaded the machine.
        let home = try directory.write(TestHomes.slowCommissioning(seconds: 8), to: "home.json")
        let state = directory.file("state")
        let runs = try [Payloads.specQR, Payloads.lampQR].map { payload in
            try JournalChild.launch(
                ["run", workflow, "--home", home, "--state", state, "--journal", directory.file("journal"), "--trace", "none",
                    "--clock", "real"] + commissionInputs(payload: payload))
        }
        defer { runs.forEach { $0.kill() } }
        var results: [[String: Any]] = []
        for run in runs {
            try #require(await run.waitForExit())
            results.append(try #require(try parseJSON(run.stdout.text) as? [String: Any], "\(run.stderr.text)"))
        }
        let outcomes = results.map { $0["outcome"] as? String }
        #expect(outcomes.filter { $0 == "succeeded" }.count == 1, "\(results)")
        let failure = try #require(results.first { $0["outcome"] as? String == "failed" })
        #expect((failure["error"] as? [String: Any])?["cause"] as? String == "sessionBusy")
        let saved = try savedHome(in: state)
        #expect(saved.activeSession == nil)
        #expect(saved.devices.count == 2)
    }

    @Test("a session whose lease runs out mid-commissioning fails the run with sessionExpired", arguments: ["virtual", "real"])
    func leaseExpiry(clock: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (lease, latency) = clock == "virtual" ? (60.0, 90.0) : (0.3, 0.8)
        let home = try directory.write(
            TestHomes.json(extra: #""simulation": { "sessionLeaseSeconds": \#(lease), "latencySeconds": { "commissionDevice": \#(latency) } }"#),
            to: "home.json")
        let run = try await JournalChild.run(
            ["run", workflow, "--home", home, "--state", directory.file("state"), "--trace", "none", "--clock", clock]
                + commissionInputs())
        #expect(run.status == 1, "\(run.stderr)")
        let result = try #require(try parseJSON(run.stdout) as? [String: Any])
        let error = try #require(result["error"] as? [String: Any])
        #expect(error["cause"] as? String == "sessionExpired")
        #expect((error["message"] as? String)?.contains("lease ran out") == true)
        #expect(try savedHome(in: directory.file("state")).activeSession == nil)
        #expect(try savedHome(in: directory.file("state")).devices.map(\.id) == ["device-existing"])
    }
}

extension JournalCommandTests {
    @Test("recover lists the runs it acted on, and counts in one line the many that had ended already")
    func manyEndedRuns() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (state, journal) = try await killWhileCommissioning(Repository.workflow("commission-device"), in: directory)
        for _ in 0..<6 {
            let ended = await matterflowVirtual(["run", Repository.workflow("cancel"), "--state", state, "--journal", journal, "--trace", "none"])
            #expect(ended.code == 0 || ended.code == 1, "\(ended.stderr)")
        }
        let recover = try await JournalChild.run(["recover", "--journal", journal, "--state", state])
        #expect(recover.status == 0, "\(recover.stderr)")
        let lines = recover.stderr.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("recovered → cancelled") }, "\(recover.stderr)")
        #expect(!lines.contains { $0.contains("nothing to do") && !$0.hasPrefix("6 runs had ended already") }, "\(recover.stderr)")
        #expect(lines.contains { $0.hasPrefix("6 runs had ended already or never started: nothing to do") }, "\(recover.stderr)")
        let report = try #require(try parseJSON(recover.stdout) as? [String: Any])
        #expect((report["runs"] as? [[String: Any]])?.count == 7, "the JSON report lists every run")
    }
}
