import Foundation
import MatterFlow
@testable import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowSimulator
@testable import MatterFlowCLI
import Synchronization
import Testing

/// `--hub`, `matterflow hub serve` and `matterflow hub check`: the CLI in front of a hub behind the hub protocol.
@Suite("hub commands")
struct HubCommandTests {
    /// `matterflow hub serve` with extra arguments, as a `--hub` command line.
    static func serveCommand(_ arguments: String...) throws -> String {
        let executable = try #require(Executable.path, "the matterflow executable was not found")
        return ([executable, "hub", "serve"] + arguments).joined(separator: " ")
    }

    @Test func runAgainstHubServeCommissionsADeviceInItsState() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let state = directory.file("state")
        let run = try await ChildProcess.run(
            ["run", Repository.workflow("commission-device"), "--trace", "none", "--hub",
             try Self.serveCommand("--home", home, "--state", state)] + commissionInputs())
        #expect(run.status == 0, "\(run.stderr)")
        let result = try #require(try parseJSON(run.stdout) as? [String: Any])
        #expect(result["outcome"] as? String == "succeeded")
        let deviceIDs = try #require((result["output"] as? [String: Any])?["deviceIDs"] as? [String])
        #expect(deviceIDs.count == 1)
        let saved = try savedHome(in: state)
        #expect(saved.activeSession == nil)
        #expect(saved.devices.contains { $0.id == deviceIDs[0] && $0.name == "Lamp" })
        #expect(!run.stderr.contains(Payloads.specQR))
    }

    @Test("run --hub COMMAND: what the hub writes on its standard error reaches ours without the run's secrets, unless --show-secrets")
    func hubStandardErrorWithoutSecrets() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        // A hub being debugged: every request it reads is copied to its standard error, the onboarding payload too.
        let script = try directory.write(
            "#!/bin/sh\necho 'hub starting up' >&2\ntee /dev/stderr | \(try Self.serveCommand("--home", home, "--state", directory.file("state")))\n",
            to: "hub.sh")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        let run = try await ChildProcess.run(
            ["run", Repository.workflow("commission-device"), "--trace", "none", "--hub", script] + commissionInputs())
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("hub starting up"), "the hub's lines still reach standard error: \(run.stderr)")
        #expect(run.stderr.contains("commissionDevice") && run.stderr.contains(RunOptions.redacted), "\(run.stderr)")
        #expect(!run.stderr.contains(Payloads.specQR) && !run.stderr.contains("20202021"), "\(run.stderr)")
        let shown = try await ChildProcess.run(
            ["run", Repository.workflow("commission-device"), "--trace", "none", "--show-secrets", "--hub", script]
                + commissionInputs(payload: Payloads.lampQR, name: "Desk"))
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stderr.contains(Payloads.lampQR), "--show-secrets shows them: \(shown.stderr)")
    }

    @Test("hub serve --state keeps an instance ID beside the home, the same at every start; each run's journal records it")
    func hubServeKeepsItsInstance() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let state = directory.file("state")
        let journal = directory.file("journal")
        var recorded: [String] = []
        for _ in 0..<2 {
            let run = try await ChildProcess.run(
                ["run", Repository.workflow("rooms"), "--trace", "none", "--journal", journal, "--hub",
                 try Self.serveCommand("--home", home, "--state", state)])
            #expect(run.status == 0, "\(run.stderr)")
            let runID = try #require((try parseJSON(run.stdout) as? [String: Any])?["runID"] as? String)
            let history = try await ChildProcess.run(["history", runID, "--journal", journal, "--json"])
            let records = try #require((try parseJSON(history.stdout) as? [String: Any])?["records"] as? [[String: Any]])
            recorded.append(try #require(records.first?["hubInstance"] as? String, "\(records.first ?? [:])"))
        }
        let kept = try String(contentsOfFile: state + "/instance", encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(recorded == [kept, kept] && kept.hasPrefix("simulator-") && kept.count == 26, "\(recorded) \(kept)")
    }

    @Test("hubs starting at once on a fresh state directory agree on one instance ID; a file that holds none is an error, not replaced")
    func instanceIDsAgree() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("fresh/state")
        let made = await withTaskGroup(of: String?.self, returning: [String?].self) { group in
            for _ in 0..<8 {
                group.addTask { try? HubServeCommand.instanceID(in: state) }
            }
            var ids: [String?] = []
            for await id in group { ids.append(id) }
            return ids
        }
        let kept = try String(contentsOfFile: state + "/instance", encoding: .utf8).trimmingCharacters(in: .newlines)
        #expect(made == Array(repeating: kept, count: 8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: state) == ["instance"], "no draft is left behind")
        try "\n".write(toFile: state + "/instance", atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) { try HubServeCommand.instanceID(in: state) }
        #expect(try String(contentsOfFile: state + "/instance", encoding: .utf8) == "\n", "the file is left for a person to look at")
    }

    @Test("what a hub command started and left running (a wrapper's background child) is stopped with the hub")
    func aHubsProcessGroupIsStoppedWithIt() async throws {
        let marker = String(Int.random(in: 100_000...999_999))
        let hub = "sh -c 'sleep \(marker) & exec \(try Self.serveCommand())'"
        let run = await matterflow(["run", Repository.workflow("rooms"), "--trace", "none", "--hub", hub])
        #expect(run.code == 0, "\(run.stderr)")
        let left = Self.processes(withArguments: ["sleep", marker])
        #expect(left.isEmpty, "still running: \(left)")
        for pid in left { kill(pid, SIGKILL) }
    }

    @Test(
        "a process that ignores SIGCHLD (the system reaps its hub) still sees the hub end at once, and signals nothing after",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func aHubReapedByTheSystem() async throws {
        let executable = try #require(Executable.path, "the matterflow executable was not found")
        /// How long the run takes when started with SIGCHLD at `disposition` (as a service hands it on to what it
        /// executes).
        func duration(_ disposition: String) async throws -> Duration {
            let script = "import os, signal, sys; signal.signal(signal.SIGCHLD, signal.\(disposition)); os.execv(sys.argv[1], sys.argv[1:])"
            let started = ContinuousClock.now
            let run = try await ChildProcess.run(
                ["-c", script, executable, "run", Repository.workflow("rooms"), "--trace", "none", "--hub", "\(executable) hub serve"],
                program: "/usr/bin/python3")
            #expect(run.status == 0, "\(run.stderr)")
            return ContinuousClock.now - started
        }
        let usual = try await duration("SIG_DFL")
        let ignoring = try await duration("SIG_IGN")
        // A stop that cannot see the hub's end waits 2 s at each of its three steps: 6 s more than the usual run, on
        // a machine however loaded.
        #expect(ignoring < usual + .seconds(4), "the hub's end was not seen: \(ignoring) against \(usual)")
    }

    /// The PIDs of processes whose command line is exactly `arguments`.
    static func processes(withArguments arguments: [String]) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline") else { return nil }
            let words = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return words == arguments ? pid : nil
        }
    }

    @Test func simulatorOptionsAreUsageErrorsWithHub() async throws {
        for option in [["--home", "h.json"], ["--state", "dir"], ["--commissioner", "never"]] {
            let run = await matterflow(["run", Repository.workflow("prepare"), "--hub", "some-hub"] + option)
            #expect(run.code == 64, "\(option): \(run.stderr)")
            #expect(run.stderr.contains("\(option[0]) configures the simulated home and does not apply with --hub"))
        }
        let structure = await matterflow(["run", Repository.workflow("prepare"), "--structure", "x"])
        #expect(structure.code == 64)
        #expect(structure.stderr.contains("--structure applies only with --hub"))
    }

    @Test("hub serve --listen with something else than an address is a usage error quoting it")
    func listenQuotesWhatWasGiven() async {
        let run = await matterflow(["hub", "serve", "--listen", "bogus"])
        #expect(run.code == 64)
        #expect(run.stderr.contains(#"--listen takes unix:PATH or tcp:HOST:PORT, not "bogus""#), "\(run.stderr)")
    }

    @Test("a URL given as --hub is a usage error saying what to write instead, not a program or host name")
    func aURLIsNotAHub() async throws {
        let cases = [
            ("tcp://127.0.0.1:7000", "write tcp:HOST:PORT without \"//\", as in tcp:127.0.0.1:7000"),
            ("unix:///run/hub.sock", "write unix:PATH without \"//\", as in unix:/run/hub.sock"),
            ("ws://localhost:5580/ws", "start the bridge in Examples/hubs/matter-server-bridge"),
        ]
        for (hub, advice) in cases {
            let run = await matterflow(["run", Repository.workflow("prepare"), "--hub", hub])
            #expect(run.code == 64, "\(hub): \(run.stderr)")
            #expect(run.stderr.contains("--hub \(hub) is a URL") && run.stderr.contains(advice), "\(run.stderr)")
        }
        // A command whose arguments hold a URL is a command.
        let command = await matterflow(["run", Repository.workflow("prepare"), "--hub", "/nonexistent/bridge --server ws://localhost:5580/ws"])
        #expect(command.code == 2, "\(command.stderr)")
    }

    @Test("--structure naming none of the hub's structures stops run and hub check before anything acts (exit 2), naming the hub's")
    func aStructureTheHubDoesNotNameIsRefused() async throws {
        let serve = try Self.serveCommand()
        let run = await matterflow(["run", Repository.workflow("rooms"), "--hub", serve, "--structure", "maple-stret", "--trace", "none"])
        #expect(run.code == 2, "\(run.stderr)")
        #expect(run.stderr.contains("error[unknownStructure]: --structure maple-stret: hub matterflow-simulator has no such structure (structures: maple-street) (did you mean \"maple-street\"?)"), "\(run.stderr)")
        #expect(run.stdout.isEmpty, "no run: \(run.stdout)")
        let check = await matterflow(["hub", "check", serve, "--structure", "nope"])
        #expect(check.code == 2, "\(check.stdout)")
        #expect(check.stderr.contains("error[unknownStructure]: --structure nope: hub matterflow-simulator has no such structure (structures: maple-street)"), "\(check.stderr)")
        #expect(!check.stdout.contains("FAIL status"), "the hub's checks are not run against a structure it lacks: \(check.stdout)")
        #expect(check.stdout.contains("SKIP the checks after the handshake"), "what was not run is said: \(check.stdout)")
    }

    @Test func aHubThatCannotBeStartedExitsTwoAndSaysWhy() async throws {
        let run = await matterflow(["run", Repository.workflow("prepare"), "--hub", "/nonexistent/hub-binary --flag"])
        #expect(run.code == 2)
        #expect(run.stderr.contains("/nonexistent/hub-binary"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func hubCheckPassesOnHubServe() async throws {
        let home = Repository.root + "/Examples/border-router-home.json"
        let run = await matterflow(["hub", "check", "--answer-limit", "60", try Self.serveCommand("--home", home)])
        #expect(run.code == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(!run.stdout.contains("FAIL"))
        // Only the unlisted-method check is skipped: the simulator lists every method.
        #expect(run.stdout.components(separatedBy: "SKIP").count == 2, "\(run.stdout)")
        #expect(run.stdout.contains("PASS an event caused while subscribed arrives as an event notification"))
        #expect(run.stdout.hasSuffix(" passed, 0 failed (1 skipped)\n"), "\(run.stdout)")
        // The limit given holds for the cancellation check too, and its line says which limit it was held to.
        #expect(run.stdout.contains("PASS a cancelled call is answered (runCancelled or its result) within 60 s\n"), "\(run.stdout)")
    }

    @Test("hub check takes the hub as run does, --hub SPEC, too; once")
    func hubCheckTakesHubAsAnOption() async throws {
        let serve = try Self.serveCommand("--home", Repository.root + "/Examples/border-router-home.json")
        let run = await matterflow(["hub", "check", "--answer-limit", "60", "--hub", serve])
        #expect(run.code == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.hasSuffix(" passed, 0 failed (1 skipped)\n"), "\(run.stdout)")
        let twice = await matterflow(["hub", "check", serve, "--hub", serve])
        #expect(twice.code == 64)
        #expect(twice.stderr.contains("give the hub once: as <hub> or as --hub, not both"), "\(twice.stderr)")
        let none = await matterflow(["hub", "check"])
        #expect(none.code == 64)
        #expect(none.stderr.contains("Missing expected argument '<hub>' (or --hub <spec>)"), "\(none.stderr)")
    }

    @Test("a hub command that exits before its handshake never ran as a hub: exit 2, saying how it ended, as run --hub does")
    func hubCheckOfACommandThatExitsAtOnce() async throws {
        let run = await matterflow(["hub", "check", "/bin/sh -c 'exit 3'"])
        #expect(run.code == 2, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stderr.contains("error[hubUnreachable]: /bin/sh -c 'exit 3' closed the connection before completing the handshake (the hub exited with status 3)"), "\(run.stderr)")
        #expect(run.stdout.contains("got: nothing: the hub exited with status 3\n"), "not 'nothing within 10 s': \(run.stdout)")
        #expect(!run.stdout.contains("FAIL initialize"), "no check runs after the close: \(run.stdout)")
    }

    @Test("a hub that writes a banner line first is refused at once, as run refuses it, not after waiting out the answer limit", .timeLimit(.minutes(3)))
    func hubCheckOfAHubWithABanner() async throws {
        let banner = #"/bin/sh -c 'echo "Welcome to my hub 0.1!"; cat >/dev/null'"#
        // With an answer limit of ten minutes, a check that waited for an answer past the banner would not end.
        let check = await matterflow(["hub", "check", "--answer-limit", "600", banner])
        #expect(check.code == 2, "\(check.stdout)\n\(check.stderr)")
        #expect(
            check.stderr.contains(
                "did not complete the handshake (the hub sent a line that is not JSON (line 1 from the hub, 22 bytes: Welcome to my hub 0.1!))"),
            "\(check.stderr)")
        #expect(check.stdout.contains("got: Welcome to my hub 0.1!"), "\(check.stdout)")
        #expect(!check.stdout.contains("nothing within"), "\(check.stdout)")
    }

    @Test("a hub that answers the handshake wrongly, or names no structure when none is given, cannot be checked: exit 2 saying why, the checks not run listed as skipped")
    func hubCheckOfAHubItCannotUse() async throws {
        // Answers the early request (id 1) and then initialize (id 2), as a hub of another protocol version would,
        // and stays until its input ends.
        let versionTwo = #"/bin/sh -c 'read a; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32002,\"message\":\"not initialized\"}}"; read b; echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"protocolVersion\":2}}"; cat >/dev/null'"#
        let wrong = await matterflow(["hub", "check", versionTwo])
        #expect(wrong.code == 2, "\(wrong.stdout)\n\(wrong.stderr)")
        #expect(
            wrong.stderr.contains("error[hubFailure]: \(versionTwo) did not complete the handshake (the hub speaks hub protocol version 2; this MatterFlow speaks version 1)"),
            "\(wrong.stderr)")
        #expect(wrong.stdout.contains("FAIL \(HubConformance.handshakeCheck)"), "\(wrong.stdout)")
        #expect(wrong.stdout.contains("SKIP \(HubConformance.laterChecks): not run: the handshake failed"), "\(wrong.stdout)")
        let wrongJSON = await matterflow(["hub", "check", versionTwo, "--json"])
        #expect(wrongJSON.code == 2)
        let object = try JSONDocument.parse(wrongJSON.stdout, file: "out").value
        #expect(object["errors"]?.arrayValue?.first?["code"] == "hubFailure", "\(wrongJSON.stdout)")

        // A handshake a client reads but the check does not take (an operation only a catalog defines) is a failed
        // check of a usable hub: exit 1, as run --hub takes the hub.
        let custom = #"/bin/sh -c 'read a; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32002,\"message\":\"not initialized\"}}"; read b; echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"protocolVersion\":1,\"hub\":{\"name\":\"h\",\"version\":\"1\"},\"operations\":[\"status\",\"readFirmwareStatus\"],\"events\":false,\"structures\":[\"home\"]}}"; cat >/dev/null'"#
        let usable = await matterflow(["hub", "check", custom])
        #expect(usable.code == 1, "\(usable.stdout)\n\(usable.stderr)")
        #expect(usable.stdout.contains("unknown methods listed: readFirmwareStatus (custom operations need --catalog)"), "\(usable.stdout)")
        #expect(!usable.stderr.contains("did not complete the handshake"), "\(usable.stderr)")
        // One without hub.version, which the check took before, is refused as run --hub refuses it.
        let versionless = #"/bin/sh -c 'read a; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32002,\"message\":\"not initialized\"}}"; read b; echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"protocolVersion\":1,\"hub\":{\"name\":\"h\"},\"operations\":[\"status\"],\"events\":false,\"structures\":[\"home\"]}}"; cat >/dev/null'"#
        let refused = await matterflow(["hub", "check", versionless])
        #expect(refused.code == 2, "\(refused.stdout)\n\(refused.stderr)")
        #expect(refused.stderr.contains("did not complete the handshake (") && refused.stderr.contains("version"), "\(refused.stderr)")

        // A hub whose handshake names no structure, checked without --structure.
        let noStructures = #"/bin/sh -c 'read a; echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32002,\"message\":\"not initialized\"}}"; read b; echo "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"protocolVersion\":1,\"hub\":{\"name\":\"h\",\"version\":\"1\"},\"operations\":[\"status\"],\"events\":false}}"; cat >/dev/null'"#
        let unnamed = await matterflow(["hub", "check", noStructures])
        #expect(unnamed.code == 2, "\(unnamed.stdout)\n\(unnamed.stderr)")
        #expect(unnamed.stderr.contains("error[missingStructure]: hub h names no structure in its handshake; pass --structure ID"), "\(unnamed.stderr)")
        #expect(unnamed.stdout.contains("SKIP \(HubConformance.laterChecks): not run: no structure to test"), "\(unnamed.stdout)")
        #expect(!unnamed.stdout.contains("FAIL"), "\(unnamed.stdout)")
    }

    @Test("hub check --json: one object on stdout, the same verdicts as the lines, and why a hub could not be checked")
    func hubCheckJSON() async throws {
        let serve = try Self.serveCommand()
        let text = await matterflow(["hub", "check", "--answer-limit", "60", serve])
        let run = await matterflow(["hub", "check", "--answer-limit", "60", serve, "--json"])
        #expect(run.code == 0, "\(run.stdout)\n\(run.stderr)")
        let object = try JSONDocument.parse(run.stdout, file: "out").value
        #expect(object["hub"] == "matterflow-simulator")
        let checks = try #require(object["checks"]?.arrayValue)
        let lines = text.stdout.split(separator: "\n").filter { $0.hasPrefix("PASS ") || $0.hasPrefix("SKIP ") }
        #expect(checks.count == lines.count, "\(text.stdout)")
        #expect(checks.filter { $0["verdict"] == "passed" }.count == lines.filter { $0.hasPrefix("PASS ") }.count)
        #expect(object["passed"] == .int(lines.filter { $0.hasPrefix("PASS ") }.count))
        #expect(object["failed"] == .int(0))
        #expect(object["errors"] == .array([]))
        #expect(checks.contains { $0["name"] == "a request before initialize is refused with -32002" && $0["detail"] == "" })

        let exited = await matterflow(["hub", "check", "/bin/sh -c 'exit 3'", "--json"])
        #expect(exited.code == 2)
        let ended = try JSONDocument.parse(exited.stdout, file: "out").value
        #expect(ended["hub"] == .null)
        #expect(ended["errors"]?.arrayValue?.first?["code"] == "hubUnreachable", "\(exited.stdout)")
        let failed = try #require(ended["checks"]?.arrayValue?.first { $0["verdict"] == "failed" })
        #expect(failed["detail"]?.stringValue?.contains("\ngot: nothing: the hub exited with status 3\nwanted: ") == true, "\(exited.stdout)")

        let missing = await matterflow(["hub", "check", "unix:/nonexistent.sock", "--json"])
        #expect(missing.code == 2)
        let unreachable = try JSONDocument.parse(missing.stdout, file: "out").value
        #expect(unreachable["checks"] == .array([]))
        #expect(unreachable["errors"]?.arrayValue?.first?["code"] == "hubUnreachable", "\(missing.stdout)")

        let elsewhere = await matterflow(["hub", "check", serve, "--structure", "nope", "--json"])
        #expect(elsewhere.code == 2)
        let unknown = try JSONDocument.parse(elsewhere.stdout, file: "out").value
        #expect(unknown["errors"]?.arrayValue?.first?["code"] == "unknownStructure", "\(elsewhere.stdout)")
        #expect(unknown["errors"]?.arrayValue?.first?["message"]?.stringValue?.hasPrefix("--structure nope: hub matterflow-simulator") == true)
    }

    @Test func hubCheckRefusesAnAnswerLimitOutOfRange() async throws {
        for limit in ["0", "601", "1.5", "ten"] {
            let run = await matterflow(["hub", "check", "unix:/nonexistent.sock", "--answer-limit", limit])
            #expect(run.code == 64, "\(run.stderr)")
            #expect(run.stderr.contains("--answer-limit must be a whole number from 1 to 600, not '\(limit)'"), "\(run.stderr)")
            #expect(run.stdout.isEmpty)
        }
    }

    @Test(
        "the README's minimal Python hub passes hub check and commissions a device",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func minimalPythonHub() async throws {
        let hub = "python3 " + Repository.root + "/Examples/hubs/minimal-python/hub.py"
        let check = await matterflow(["hub", "check", hub, "--answer-limit", "60"])
        #expect(check.code == 0, "\(check.stdout)")
        #expect(check.stdout.hasSuffix("15 passed, 0 failed (1 skipped)\n"), "\(check.stdout)")
        let run = await matterflow(["run", Repository.workflow("commission-device"), "--hub", hub, "--trace", "none"] + commissionInputs())
        #expect(run.code == 0, "\(run.stderr)")
        #expect(try run.result()["outcome"] as? String == "succeeded")

        // It names who holds its session, and the guard's sessionBusy says so.
        let remote = try await RemoteHub.connect(to: try HubEndpoint(parsing: hub))
        let context = HubCallContext(runID: "run-holder", idempotencyKey: "run-holder/1")
        let session = try await HubCallContext.$current.withValue(context) { try await remote.prepareCommissioning(structure: "home") }
        let holder = try await remote.status(structure: "home").holder
        #expect(holder?.sessionID == session && holder?.owner == "run-holder" && holder?.openedAt != nil, "\(String(describing: holder))")
        let refused = try await WorkflowEngine().run(
            try WorkflowEngine().load(path: Repository.workflow("prepare")), inputs: [:], on: remote.hub,
            options: RunOptions(structureID: "home", clock: SystemClock()))
        #expect(refused.error?.message.contains("held by run run-holder (session \(session)) since ") == true, "\(String(describing: refused.error))")
        await remote.close()
    }

    @Test func hubServeListensOnLoopbackTCPAndStopsOnSIGINT() async throws {
        let server = try ChildProcess.launch(["hub", "serve", "--listen", "tcp:127.0.0.1:0"])
        defer { server.kill() }
        let ready = await server.stderr.waitForLine { $0.hasPrefix("listening on tcp:127.0.0.1:") }
        try #require(ready, "hub serve did not start listening: \(server.stderr.text)")
        let address = try #require(server.stderr.text.split(separator: "\n").first?.dropFirst("listening on ".count))
        #expect(!address.hasSuffix(":0"), "the chosen port is printed")
        let check = await matterflow(["hub", "check", String(address), "--answer-limit", "60"])
        #expect(check.code == 0, "\(check.stdout)")
        server.signal(SIGINT)
        try #require(await server.waitForExit(), "hub serve did not exit on SIGINT")
        #expect(server.status == 130)
    }

    @Test func hubServeListensOnAUnixSocketUntilSIGTERM() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let socket = directory.file("hub.sock")
        let server = try ChildProcess.launch(["hub", "serve", "--listen", "unix:\(socket)"])
        defer { server.kill() }
        let ready = await server.stderr.waitForLine { $0 == "listening on unix:\(socket)" }
        try #require(ready, "hub serve did not start listening: \(server.stderr.text)")
        let check = await matterflow(["hub", "check", "unix:\(socket)", "--answer-limit", "60"])
        #expect(check.code == 0, "\(check.stdout)")
        // A second client is served as well.
        let run = await matterflow(["run", Repository.workflow("prepare"), "--hub", "unix:\(socket)", "--trace", "none"])
        #expect(run.code == 0, "\(run.stderr)")
        server.signal(SIGTERM)
        try #require(await server.waitForExit(), "hub serve did not exit on SIGTERM")
        #expect(server.status == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket file was removed")
    }

    @Test("hub serve --listen goes on serving after it ran out of descriptors: a client is served once some are freed")
    func hubServeSurvivesRunningOutOfDescriptors() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let socket = directory.file("hub.sock")
        let executable = try #require(Executable.path, "the matterflow executable was not found")
        let server = try ChildProcess.launch(
            ["-c", "ulimit -n 24 && exec '\(executable)' hub serve --listen 'unix:\(socket)'"], program: "/bin/sh")
        defer { server.kill() }
        try #require(await server.stderr.waitForLine { $0 == "listening on unix:\(socket)" }, "not listening: \(server.stderr.text)")
        // More clients than the server has descriptors for: it accepts until it has none left, and says so. Clients
        // are added (a few at a time, at most 400) until it does, however fast it accepts.
        var clients: [Int32] = []
        defer { clients.forEach { _ = close($0) } }
        let warning = { (line: String) in line.hasPrefix("warning: accepting a connection failed") }
        var ranOut = false
        for _ in 0..<100 where !ranOut {
            clients += (0..<4).compactMap { _ in Self.connect(toUnixSocket: socket) }
            ranOut = await server.stderr.waitForLine(within: .milliseconds(50), warning)
        }
        if !ranOut { ranOut = await server.stderr.waitForLine(within: .seconds(20), warning) }
        try #require(ranOut, "the server never ran out: \(clients.count) clients, \(server.stderr.text)")
        clients.forEach { _ = close($0) }
        clients = []
        // A process of its own, on real time: a server that no longer accepts fails its handshake after 30 s.
        let run = try await ChildProcess.run(["run", Repository.workflow("prepare"), "--hub", "unix:\(socket)", "--trace", "none"])
        #expect(run.status == 0, "a client after the shortage is served: \(run.stderr)")
    }

    /// A connection to the Unix socket at `path` that does not wait for the server to accept it; nil when it
    /// cannot be made (the server's backlog is full).
    static func connect(toUnixSocket path: String) -> Int32? {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
        }
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(descriptor)
            return nil
        }
        return descriptor
    }

    @Test("Ctrl-C reaches the run, not its hub: the cancel path releases the session through the hub, exit 130")
    func interruptTakesTheCancelPathThroughTheHub() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.slowCommissioning(), to: "slow-home.json")
        let state = directory.file("state")
        // Every child the suite starts leads a process group of its own, as a terminal's foreground job: SIGINT goes
        // to the whole group.
        let child = try ChildProcess.launch(
            ["run", Repository.workflow("commission-device"), "--trace", "jsonl", "--hub",
                try Self.serveCommand("--home", home, "--state", state)] + commissionInputs())
        let group = child.process.processIdentifier
        defer { if child.process.isRunning { kill(-group, SIGKILL) } }
        let stderr = child.stderr
        let commissioning = await act(when: { stderr.hasLine(startsCommissionDevice) }) { _ = kill(-group, SIGINT) }
        try #require(commissioning != nil, "commissionDevice never started: \(stderr.text)")
        try #require(await child.waitForExit(), "matterflow did not exit after SIGINT")
        #expect(child.status == 130, "\(stderr.text)")
        let result = try #require(try parseJSON(child.stdout.text) as? [String: Any])
        #expect(result["outcome"] as? String == "cancelled")
        #expect(try savedHome(in: state).activeSession == nil, "the hub was still there to release the session")
    }

    @Test(
        "a signal while the hub's handshake is awaited stops the hub and exits 128 + the signal",
        arguments: [("run", SIGINT), ("run", SIGTERM), ("validate", SIGTERM)])
    func signalDuringHandshakeStopsTheHub(command: String, signal: Int32) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let pidFile = directory.file("hub.pid")
        // A hub that never answers `initialize` and takes no notice of its input closing.
        let hub = "/bin/sh -c 'echo $$ > \(pidFile); exec sleep 60'"
        let child = try ChildProcess.launch([command, Repository.workflow("prepare"), "--hub", hub])
        let group = child.process.processIdentifier
        defer { if child.process.isRunning { kill(-group, SIGKILL) } }
        let hubPID = Mutex<pid_t?>(nil)
        let started = await act(when: {
            guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8), let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines))
            else { return false }
            hubPID.withLock { $0 = pid }
            return true
        }) {
            // As Ctrl-C does, to the terminal's foreground group: MatterFlow's; the hub leads a group of its own.
            _ = kill(-group, signal)
        }
        try #require(started != nil, "the hub never started: \(child.stderr.text)")
        let pid = try #require(hubPID.withLock { $0 })
        defer { kill(pid, SIGKILL) }
        let exited = await child.waitForExit()
        // What a failure needs to be told apart: matterflow still running, or the hub (holding its stderr) alive.
        let hubState = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)).flatMap { ProcessEntry(pid: pid, stat: $0) }.map { "state \($0.state)" } ?? "gone"
        try #require(
            exited,
            "after signal \(signal): matterflow running \(child.process.isRunning), hub \(pid) \(hubState); stderr: \(child.stderr.text)")
        #expect(child.status == 128 + signal, "\(child.stderr.text)")
        #expect(child.stderr.text.contains("did not complete the handshake"), "\(child.stderr.text)")
        // Stopped (its input closed, then SIGTERM 2 s later) and reaped before MatterFlow exited.
        #expect(kill(pid, 0) != 0 && errno == ESRCH, "the hub (PID \(pid)) outlived the command")
    }

    /// A proxy in front of a hub command that passes requests through and dies once the hub has served
    /// commissionDevice, before its answer reaches MatterFlow: the call took effect, and nobody knows.
    static let dyingProxy = """
        import json, subprocess, sys
        hub = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for line in sys.stdin:
            hub.stdin.write(line)
            hub.stdin.flush()
            message = json.loads(line)
            if "id" not in message:
                continue
            answer = hub.stdout.readline()
            if message.get("method") == "commissionDevice":
                hub.stdin.close()
                hub.wait()
                sys.exit(3)
            sys.stdout.write(answer)
            sys.stdout.flush()
        """

    @Test func aHubThatDiesMidCallIsUnreachableAndRecoverWithHubSettlesTheRun() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let proxy = try directory.write(Self.dyingProxy, to: "dying-proxy.py")
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let state = directory.file("state")
        let journal = directory.file("journal")
        let run = try await ChildProcess.run(
            ["run", Repository.workflow("commission-device"), "--trace", "none", "--journal", journal, "--hub",
             "python3 \(proxy) " + (try Self.serveCommand("--home", home, "--state", state))] + commissionInputs())
        #expect(run.status == 1, "\(run.stderr)")
        let result = try #require(try parseJSON(run.stdout) as? [String: Any], "stdout: \(run.stdout)")
        let error = try #require(result["error"] as? [String: Any])
        #expect(error["cause"] as? String == "hubUnreachable")
        #expect((error["message"] as? String)?.contains("commissionDevice") == true, "\(error)")
        #expect(!run.stdout.contains(Payloads.specQR) && !run.stderr.contains(Payloads.specQR))
        // The device was commissioned in a session the dead connection could not release.
        let left = try #require(try savedHome(in: state).activeSession, "the session was left open")
        #expect(left.phase == .commissioned)

        // The journal treats the lost connection as a crash: the run is interrupted with the call in doubt.
        let runs = await matterflow(["runs", "--journal", journal])
        #expect(runs.stdout.contains("interrupted"), "\(runs.stdout)")

        let recover = await matterflow(["recover", "--journal", journal, "--hub", try Self.serveCommand("--state", state)])
        #expect(recover.code == 0, "\(recover.stdout)\n\(recover.stderr)")
        #expect(recover.stderr.contains("commissionDevice was in doubt: applied"), "\(recover.stderr)")
        let saved = try savedHome(in: state)
        #expect(saved.activeSession == nil, "recovery took the cancel path and released the session")
        #expect(saved.devices.map(\.id) == ["device-existing"], "the pending device was removed with the session")
    }
}

/// `--hub` on validate, graph and test.
@Suite("static hub checks")
struct HubStaticCheckTests {
    static let minimalHub = "python3 " + Repository.root + "/Examples/hubs/minimal-python/hub.py"

    @Test(
        "validate --hub names each state that needs a method the hub lacks",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func validateNamesUnsupportedStates() async throws {
        let epskc = Repository.workflow("epskc-share")
        let run = await matterflow(["validate", epskc, "--hub", Self.minimalHub])
        #expect(run.code == 0, "warnings only: \(run.stderr)")
        #expect(run.stderr.contains(
            "\(epskc):68:20: warning[unsupportedByHub]: /states/activate/operation: hub minimal-python does not support activateEpskc, which operation activateEpskc of state 'activate' calls"),
            "\(run.stderr)")
        #expect(run.stderr.contains("/states/waitForEnd/event: hub minimal-python sends no events"))
        // The commissioning flow needs nothing the minimal hub lacks.
        let commissioning = await matterflow(["validate", Repository.workflow("commission-device"), "--hub", Self.minimalHub])
        #expect(!commissioning.stderr.contains("unsupportedByHub"), "\(commissioning.stderr)")
        // Against the simulator, which lists every method, there is nothing to report.
        let simulator = await matterflow(["validate", epskc, "--hub", try HubCommandTests.serveCommand()])
        #expect(!simulator.stderr.contains("unsupportedByHub"), "\(simulator.stderr)")
    }

    @Test(
        "graph --hub draws the graph and reports the same findings",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func graphReportsUnsupportedStates() async throws {
        let run = await matterflow(["graph", Repository.workflow("border-router-info"), "--hub", Self.minimalHub])
        #expect(run.code == 0)
        #expect(run.stdout.hasPrefix("digraph"), "\(run.stdout.prefix(80))")
        #expect(run.stderr.contains("does not support threadCapabilities, which operation readThreadCapabilities of state 'readCapabilities'"))
    }

    @Test func testWithHubSaysWhyFixturesNeedTheSimulator() async throws {
        let run = await matterflow(["test", Repository.workflowsDirectory + "/fixtures", "--hub", "some-hub"])
        #expect(run.code == 64)
        #expect(run.stderr.contains("fixtures cannot run on --hub: each one scripts the built-in simulated home"))
        #expect(run.stderr.contains("matterflow hub check SPEC"))
    }
}

