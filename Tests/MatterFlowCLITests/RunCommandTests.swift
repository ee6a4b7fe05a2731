import Foundation
import MatterFlow
import MatterFlowCLI
import MatterFlowSimulator
import Testing

/// `matterflow run`: the result object on stdout, exit codes, and what a run leaves in the home.
@Suite("matterflow run")
struct RunCommandTests {
    let workflow = Repository.workflow("commission-device")

    @Test("commission-device succeeds on a test home: one JSON object on stdout with the device IDs")
    func commissionDevice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let run = await matterflow(["run", workflow, "--home", home] + commissionInputs())
        #expect(run.code == 0, "\(run.stderr)")
        let result = try run.result()
        #expect(Set(result.keys).isSuperset(of: ["workflow", "outcome", "output", "error"]))
        #expect(result["workflow"] as? String == "commission-device")
        #expect(result["outcome"] as? String == "succeeded")
        #expect(result["error"] is NSNull)
        let output = try #require(result["output"] as? [String: Any])
        let deviceIDs = try #require(output["deviceIDs"] as? [String])
        #expect(!deviceIDs.isEmpty)
        #expect(!deviceIDs.contains("device-existing"))
        #expect(output["name"] as? String == "Lamp")
        #expect(output["room"] as? String == "Kitchen")
        #expect(output["configured"] as? Bool == true)
        #expect(output["roomsOffered"] as? [String] == ["Kitchen", "Hall"])
        // Progress went to stderr, never to stdout.
        #expect(!run.stderr.isEmpty)
        #expect(!run.stderr.contains(Payloads.specQR), "the onboarding payload is secret")
    }

    @Test("commission-device succeeds on the built-in home once its simulated latency has passed")
    func defaultHome() async throws {
        let clock = ManualClock()
        let arguments = ["run", workflow, "--trace", "jsonl"] + commissionInputs()
        let task = Task { await matterflow(arguments, clock: clock) }
        // commissionDevice sleeps one simulated second while its timeout timer runs: two sleepers.
        let sleeping = await poll { clock.sleeperCount >= 2 }
        try #require(sleeping, "the run never reached the simulated latency of commissionDevice")
        clock.advance(by: .seconds(1))
        let run = await task.value
        #expect(run.code == 0, "\(run.stderr)")
        let result = try run.result()
        #expect(result["outcome"] as? String == "succeeded")
        let output = try #require(result["output"] as? [String: Any])
        #expect((output["deviceIDs"] as? [String])?.isEmpty == false)
        #expect(output["roomsOffered"] as? [String] == ["Living Room", "Kitchen", "Bedroom", "Office"])
        let finished = try TraceTests.events(run.stderr).first {
            $0["event"] as? String == "hubCallFinished" && $0["operation"] as? String == "commissionDevice"
        }
        #expect(finished?["durationSeconds"] as? Double == 1.0)
    }

    // MARK: - Failures that must leave no session behind

    @Test(
        "commission-device fails with the hub's error and leaves no session of its own",
        arguments: [
            (TestHomes.json(online: false), "unavailable", "hubOffline"),
            (TestHomes.json(permissionGranted: false), "permissionDenied", "permissionNotGranted"),
        ])
    func failsCleanly(home: String, code: String, cause: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        try directory.write(home, to: "state/home.json")
        let run = await matterflow(["run", workflow, "--state", state, "--trace", "none"] + commissionInputs())
        #expect(run.code == 1)
        #expect(run.stderr == "")
        let result = try run.result()
        #expect(result["outcome"] as? String == "failed")
        #expect(result["output"] is NSNull)
        let error = try run.resultError()
        #expect(error["code"] as? String == code)
        #expect(error["cause"] as? String == cause)
        #expect((error["message"] as? String)?.isEmpty == false)
        #expect((error["state"] as? String)?.isEmpty == false)
        let saved = try savedHome(in: state)
        #expect(saved.activeSession == nil)
        #expect(saved.devices.map(\.id) == ["device-existing"])
    }

    @Test(
        "the same failures with --home seeding an empty --state directory leave no session of the run's own",
        arguments: [
            (TestHomes.json(online: false), "hubOffline", nil),
            (TestHomes.json(permissionGranted: false), "permissionNotGranted", nil),
            (TestHomes.json(activeSession: TestHomes.foreignSession), "sessionBusy", "session-foreign"),
        ] as [(String, String, String?)])
    func failsCleanlyFromHomeFile(home: String, cause: String, session: String?) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let homeFile = try directory.write(home, to: "home.json")
        let state = directory.file("state")
        let run = await matterflow(["run", workflow, "--home", homeFile, "--state", state, "--trace", "none"] + commissionInputs())
        #expect(run.code == 1)
        #expect(run.stderr == "")
        #expect(try run.resultError()["cause"] as? String == cause)
        // The state file, if the run wrote one, holds only the session that was there before (if any).
        if let saved = try HomeStateStore.loadSaved(directory: state) {
            #expect(saved.activeSession?.sessionID == session)
        }
    }

    @Test("an unreachable hub is retried by prepare, then fails with unavailable and leaves no session")
    func unreachableHub() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        try directory.write(TestHomes.json(reachable: false), to: "state/home.json")
        let clock = ManualClock()
        let progress = CapturedText()
        let arguments = ["run", workflow, "--state", state, "--trace", "jsonl"] + commissionInputs()
        let task = Task { await matterflow(arguments, clock: clock, stderr: progress) }
        // prepare's retrier: at most 2 retries, 2 s then 4 s. Let each delay pass once it is scheduled.
        for (retry, delay) in [(1, 2), (2, 4)] {
            let scheduled = await poll {
                progress.text.components(separatedBy: "\"event\":\"retryScheduled\"").count - 1 >= retry
                    && clock.sleeperCount >= 1
            }
            try #require(scheduled, "retry \(retry) was never scheduled: \(progress.text)")
            clock.advance(by: .seconds(delay))
        }
        let run = await task.value
        #expect(run.code == 1)
        let error = try run.resultError()
        #expect(error["code"] as? String == "unavailable")
        #expect(error["cause"] as? String == "hubUnreachable")
        let retries = try TraceTests.events(run.stderr).filter { $0["event"] as? String == "retryScheduled" }
        #expect(retries.compactMap { $0["delaySeconds"] as? Double } == [2, 4])
        #expect(try savedHome(in: state).activeSession == nil)
    }

    @Test("a structure with another client's session fails with sessionBusy and leaves that session untouched")
    func sessionBusy() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        try directory.write(TestHomes.json(activeSession: TestHomes.foreignSession), to: "state/home.json")
        let before = try savedHome(in: state)
        let run = await matterflow(["run", workflow, "--state", state, "--trace", "none"] + commissionInputs())
        #expect(run.code == 1)
        #expect(run.stderr == "")
        #expect(try run.result()["outcome"] as? String == "failed")
        let error = try run.resultError()
        #expect(error["cause"] as? String == "sessionBusy")
        #expect(error["code"] as? String == "failedPrecondition")
        let after = try savedHome(in: state)
        #expect(after.activeSession?.sessionID == "session-foreign")
        #expect(after.activeSession?.phase == .requested)
        #expect(after.activeSession == before.activeSession)
        #expect(after.devices == before.devices)
    }

    @Test("a failure after prepare releases the session the run opened")
    func failureAfterPrepareReleases() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        try directory.write(TestHomes.json(), to: "state/home.json")
        let first = await matterflow(["run", workflow, "--state", state, "--trace", "none"] + commissionInputs())
        #expect(first.code == 0, "\(first.stderr)")
        let devices = try savedHome(in: state).devices.map(\.id)
        let again = await matterflow(["run", workflow, "--state", state, "--trace", "none"] + commissionInputs())
        #expect(again.code == 1)
        let error = try again.resultError()
        #expect(error["cause"] as? String == "deviceAlreadyCommissioned")
        let saved = try savedHome(in: state)
        #expect(saved.activeSession == nil)
        #expect(saved.devices.map(\.id) == devices)
    }

    @Test("a mistyped onboarding code is refused before the run: exit 2 naming the input, no hub call")
    func mistypedPayloadRefusedBeforeTheRun() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        let home = TestHomes.json()
        try directory.write(home, to: "state/home.json")
        let mistyped = "MT:Y.K9042C00KA0648G0"
        let run = await matterflow(
            ["run", workflow, "--state", state, "--trace", "jsonl"] + commissionInputs(payload: mistyped))
        #expect(run.code == 2)
        #expect(run.stdout == "")
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("error[invalidValue]"))
        #expect(run.stderr.contains("/onboardingPayload"))
        #expect(!run.stderr.contains(mistyped))
        #expect(!run.stderr.contains("hubCallStarted"))
        let saved = try String(contentsOfFile: state + "/home.json", encoding: .utf8)
        #expect(saved == home, "the hub was not touched")
    }

    // MARK: - Invalid inputs: exit 2, naming the input

    @Test("a missing required input exits 2 naming it")
    func missingInput() async throws {
        let run = await matterflow("run", workflow, "--input", "deviceName=Lamp")
        #expect(run.code == 2)
        #expect(run.stdout == "")
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("error[missingKey]"))
        #expect(run.stderr.contains("\"onboardingPayload\""))
    }

    @Test("a misspelt input name exits 2 with one error, its did-you-mean, not also the required input it meant as missing")
    func misspeltInputName() async throws {
        let run = await matterflow("run", workflow, "--input", "onbordingPayload=MT:Y.K9042C00KA0648G00", "--input", "deviceName=Lamp")
        #expect(run.code == 2)
        #expect(run.stdout == "")
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("error[unknownKey]"), "\(run.stderr)")
        #expect(run.stderr.contains(#"has no input "onbordingPayload" (did you mean "onboardingPayload"?)"#), "\(run.stderr)")
        #expect(!run.stderr.contains("missingKey"), "\(run.stderr)")
        // A required input no hint names is still reported missing.
        let other = await matterflow("run", workflow, "--input", "onbordingPayload=MT:Y.K9042C00KA0648G00")
        #expect(other.code == 2)
        #expect(other.stderr.contains("error[unknownKey]") && other.stderr.contains("error[missingKey]"), "\(other.stderr)")
        #expect(other.stderr.contains(#"required input "deviceName" is missing"#), "\(other.stderr)")
        #expect(!other.stderr.contains(#"required input "onboardingPayload""#), "\(other.stderr)")
    }

    @Test("an empty required text input exits 2 naming it; an empty optional one is accepted")
    func emptyRequiredInput() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let run = await matterflow(
            ["run", workflow, "--home", home, "--trace", "none", "--input", "onboardingPayload=\(Payloads.specQR)",
             "--input", "deviceName="])
        #expect(run.code == 2)
        #expect(run.stdout == "")
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("error[invalidValue]"))
        #expect(run.stderr.contains("/deviceName"))
        #expect(run.stderr.contains("is empty"))
        let optional = await matterflow(
            ["run", workflow, "--home", home, "--trace", "none", "--input", "onboardingPayload=\(Payloads.specQR)",
             "--input", "deviceName=Lamp", "--input", "roomName="])
        #expect(optional.code == 0, "\(optional.stderr)")
    }

    @Test("an unknown input exits 2 naming it")
    func unknownInput() async throws {
        let run = await matterflow(["run", workflow, "--input", "colour=red"] + commissionInputs())
        #expect(run.code == 2)
        #expect(run.stdout == "")
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("error[unknownKey]"))
        #expect(run.stderr.contains("\"colour\""))
    }

    @Test("a wrong-typed input from an inputs file exits 2 naming it")
    func wrongTypeFromFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inputs = try directory.write(
            #"{ "onboardingPayload": "\#(Payloads.specQR)", "deviceName": 42 }"#, to: "inputs.json")
        let run = await matterflow("run", workflow, "--inputs", inputs)
        #expect(run.code == 2)
        #expect(run.stdout == "")
        #expect(run.stderr.contains("error[wrongType]"))
        #expect(run.stderr.contains("\"deviceName\""))
        // The finding names the inputs file and the member's line and column.
        #expect(run.stderr.contains("\(inputs):1:50: error[wrongType]: /deviceName:"), "\(run.stderr)")
    }

    @Test("a wrong-typed --input exits 2 naming it")
    func wrongTypeOnCommandLine() async throws {
        let run = await matterflow("run", Repository.workflow("add-device"), "--input", "homes=not json")
        #expect(run.code == 2)
        #expect(run.stdout == "")
        #expect(run.stderr.contains("error[wrongType]"))
        #expect(run.stderr.contains("\"homes\""))
    }

    @Test("--input without '=' is a usage error (64)")
    func malformedInput() async throws {
        let run = await matterflow("run", workflow, "--input", "deviceName")
        #expect(run.code == 64)
        #expect(run.stderr.contains("NAME=VALUE"))
    }

    @Test("--input overrides the inputs file")
    func inputOverridesFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let inputs = try directory.write(
            #"{ "onboardingPayload": "\#(Payloads.specQR)", "deviceName": "From File", "roomName": "Hall" }"#,
            to: "inputs.json")
        let run = await matterflow(
            "run", workflow, "--home", home, "--inputs", inputs, "--input", "deviceName=From Flag", "--trace", "none")
        #expect(run.code == 0, "\(run.stderr)")
        let output = try #require(try run.result()["output"] as? [String: Any])
        #expect(output["name"] as? String == "From Flag")
        #expect(output["room"] as? String == "Hall")
    }

    @Test("a workflow file that does not exist exits 2 naming it")
    func missingWorkflow() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = directory.file("nope.json")
        let run = await matterflow(["run", missing] + commissionInputs())
        #expect(run.code == 2)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("\(missing): error[fileNotFound]"))
    }

    @Test("an invalid workflow is not run: exit 2 with its diagnostics")
    func invalidWorkflow() async throws {
        let broken = try ValidateCommandTests.BrokenCopy()
        defer { broken.directory.remove() }
        let run = await matterflow(["run", broken.path] + commissionInputs())
        #expect(run.code == 2)
        #expect(run.stdout == "")
        #expect(run.stderrLines.filter { $0.contains(": error[") }.count == 3)
    }

    // MARK: - Invalid homes: exit 2 with file:line:col

    @Test("a home file with a syntax error exits 2 with its line and column")
    func homeSyntaxError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(
            "{\n  \"version\": 1,\n  \"structure\": { \"id\": \"x\" \"name\": \"X\" }\n}\n", to: "home.json")
        let run = await matterflow(["run", workflow, "--home", home] + commissionInputs())
        #expect(run.code == 2)
        #expect(run.stdout == "")
        #expect(run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.hasPrefix("\(home):3:"), "\(run.stderr)")
        #expect(run.stderr.contains(": error[syntaxError]: "))
        let location = run.stderr.dropFirst(home.count + 1).prefix { $0 != " " }
        #expect(location.split(separator: ":").count == 2, "line:col: in \(run.stderr)")
    }

    @Test("a home file with an unknown key exits 2 with its line and column")
    func homeUnknownKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(extra: #""hubb": {}"#), to: "home.json")
        let lines = try String(contentsOfFile: home, encoding: .utf8).components(separatedBy: "\n")
        let line = try #require(lines.firstIndex { $0.contains("\"hubb\"") }) + 1
        let run = await matterflow(["run", workflow, "--home", home] + commissionInputs())
        #expect(run.code == 2)
        #expect(run.stdout == "")
        #expect(run.stderr == "\(home):\(line):3: error[unknownKey]: /hubb: unknown key \"hubb\" (did you mean \"hub\"?)\n")
    }

    @Test("a home file that does not exist exits 2 naming it")
    func homeMissing() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = directory.file("absent-home.json")
        let run = await matterflow(["run", workflow, "--home", home] + commissionInputs())
        #expect(run.code == 2)
        #expect(run.stderr.hasPrefix("\(home): error[fileNotFound]"))
    }

    @Test("a corrupt saved state exits 2 naming the state file")
    func corruptState() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let saved = try directory.write("{ \"version\": 1,\n", to: "state/home.json")
        let run = await matterflow(["run", workflow, "--state", directory.file("state")] + commissionInputs())
        #expect(run.code == 2)
        #expect(run.stdout == "")
        #expect(run.stderr.hasPrefix("\(saved):"), "\(run.stderr)")
    }
}
