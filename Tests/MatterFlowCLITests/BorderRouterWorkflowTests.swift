import Foundation
import MatterFlow
import MatterFlowCLI
import MatterFlowJSON
import MatterFlowSimulator
import MatterPayload
import Testing
import ThreadTestVectors

/// The shipped border-router workflows, end to end through `matterflow run` on the example homes, on virtual time
/// (the CLI's default): every ePSKc outcome, joining, migrating and leaving networks, the internet-access policy,
/// and secrets kept out of traces and saved state.
@Suite("Border-router workflows from the CLI")
struct BorderRouterWorkflowTests {
    static func example(_ name: String) -> String { Repository.root + "/Examples/\(name).json" }
    static let fullHome = example("border-router-home")
    static let basicHome = example("border-router-basic-home")
    static let onNetworkHome = example("border-router-on-network-home")

    /// OpenThread-5938 from OpenThread's CLI documentation: the network of the on-network home.
    static let dataset5938 =
        PublishedVectors.openThread5938
    static let networkKey = PublishedVectors.openThread5938NetworkKey
    static let pskc = PublishedVectors.openThread5938PSKc
    /// Runs the tool in-process on a fresh virtual clock; returns what it printed and how long it took.
    /// - Parameter terminal: Whether standard error is taken for a terminal a person reads.
    static func run(_ arguments: [String], terminal: Bool = false) async -> (ToolRun, Duration) {
        let out = CapturedText()
        let err = CapturedText()
        let started = ContinuousClock.now
        var environment = ToolEnvironment(standardOutput: out, standardError: err, handlesInterrupts: false, clock: VirtualClock())
        environment.standardErrorIsTerminal = terminal
        let code = await MatterflowTool.main(arguments: arguments, environment: environment)
        return (ToolRun(code: code, stdout: out.text, stderr: err.text), ContinuousClock.now - started)
    }

    static func output(_ run: ToolRun, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(try run.result(sourceLocation: sourceLocation)["output"] as? [String: Any], "\(run.stdout)\n\(run.stderr)", sourceLocation: sourceLocation)
    }

    static func workflow(_ name: String) -> String { Repository.workflow(name) }

    // MARK: - border-router-info

    @Test("border-router-info describes each example router", arguments: [
        (fullHome, true, true, true), (basicHome, false, false, false), (onNetworkHome, true, true, true),
    ])
    func borderRouterInfo(_ home: String, _ epskc: Bool, _ membership: Bool, _ internet: Bool) async throws {
        let (run, _) = await Self.run(["run", Self.workflow("border-router-info"), "--home", home])
        #expect(run.code == 0, "\(run.stderr)")
        let output = try Self.output(run)
        #expect(output["deviceType"] as? String == borderRouterDeviceType)
        #expect(output["canShareCredentials"] as? Bool == epskc)
        #expect(output["canJoinAndLeaveNetworks"] as? Bool == membership)
        #expect(output["providesInternetAccess"] as? Bool == internet)
        #expect((output["capabilities"] as? [String: Any])?["epskcSupported"] as? Bool == epskc)
        #expect(output["vendorName"] is String && output["softwareVersion"] is Int)
    }

    // MARK: - epskc-share

    struct Share: Sendable, CustomTestStringConvertible {
        var name: String
        var commissioner: [String]
        var reason: String
        var detail: String
        var shared: Bool
        var endsAt: Double
        var testDescription: String { name }
    }

    static let shares: [Share] = [
        Share(name: "the home's commissioner uses the key at 30 s", commissioner: [], reason: "keyUsed", detail: "commissionerFinished", shared: true, endsAt: 35),
        Share(name: "nobody connects", commissioner: ["--commissioner", "never"], reason: "expired", detail: "timeout", shared: false, endsAt: 120),
        Share(name: "another app deactivates", commissioner: ["--commissioner", "deactivate@10"], reason: "cancelled", detail: "deactivated", shared: false, endsAt: 10),
        Share(name: "ten wrong keys", commissioner: ["--commissioner", "wrongKey*10@5"], reason: "cancelled", detail: "tooManyFailedAttempts", shared: false, endsAt: 5),
        Share(name: "a commissioner connects and stays", commissioner: ["--commissioner", "connect@60"], reason: "expired", detail: "timeoutEndedSession", shared: false, endsAt: 120),
    ]

    @Test("epskc-share ends with the reason of each scenario at its virtual time", arguments: shares)
    func epskcShare(_ share: Share) async throws {
        let (run, elapsed) = await Self.run(
            ["run", Self.workflow("epskc-share"), "--home", Self.fullHome, "--trace", "jsonl"] + share.commissioner)
        #expect(run.code == 0, "\(run.stderr)")
        let output = try Self.output(run)
        let key = try #require(output["epskc"] as? String)
        #expect(key.count == 9 && key.allSatisfy(\.isNumber) && Verhoeff.isValid(key), "\(key)")
        #expect(output["validDurationSeconds"] as? Int == 120)
        #expect(output["reason"] as? String == share.reason)
        #expect(output["detail"] as? String == share.detail)
        #expect(output["shared"] as? Bool == share.shared)
        // The end came at its simulated time, and no real time was waited for.
        let received = try TraceTests.events(run.stderr).first { $0["event"] as? String == "eventReceived" }
        #expect(received?["time"] as? Double == share.endsAt)
        _ = elapsed
        // The key is shown at activation, before its end; a trace file keeps it redacted.
        let events = try TraceTests.events(run.stderr)
        let shown = try #require(events.firstIndex { $0["event"] as? String == "shown" }, "\(run.stderr)")
        let value = events[shown]["value"] as? [String: Any]
        #expect(value?["epskc"] as? String == "<redacted>")
        #expect(value?["validDurationSeconds"] as? Int == 120)
        #expect(value?["deviceID"] as? String == output["deviceID"] as? String)
        #expect(events[shown]["time"] as? Double == 0)
        #expect(shown < (events.firstIndex { $0["event"] as? String == "eventReceived" } ?? -1))
        #expect(!run.stderr.contains(key), "\(run.stderr)")
    }

    @Test("epskc-share shows the key to a person at a terminal as soon as it is active, whatever the trace; a log gets it redacted, with a note; no journal keeps it")
    func epskcShareShowsTheKeyAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        func shownLine(_ run: ToolRun, key: String, deviceID: String) -> String {
            "shown: {\"deviceID\":\"\(deviceID)\",\"epskc\":\"\(key)\",\"validDurationSeconds\":120}"
        }
        for trace in ["text", "none"] {
            let (run, _) = await Self.run(
                ["run", Self.workflow("epskc-share"), "--home", Self.fullHome, "--trace", trace, "--journal", journal, "--commissioner", "never"],
                terminal: true)
            #expect(run.code == 0, "\(run.stderr)")
            let output = try Self.output(run)
            let key = try #require(output["epskc"] as? String)
            let line = shownLine(run, key: key, deviceID: output["deviceID"] as? String ?? "")
            let lines = run.stderr.split(separator: "\n").map(String.init)
            #expect(lines.filter { $0.contains(key) } == [line], "only the shown line, on a terminal: \(run.stderr)")
            if trace == "text" {
                // Shown before the wait for the key's end starts.
                #expect((lines.firstIndex(of: line) ?? .max) < (lines.firstIndex { $0.contains("waiting for epskcModeDeactivated") } ?? -1))
            }
            let runID = try #require(try run.result()["runID"] as? String)
            let records = try String(contentsOfFile: journal + "/" + runID + ".journal", encoding: .utf8)
            #expect(!records.contains(key), "the journal never holds the key")
            #expect(!records.contains(#""type":"shown""#), "shown events are not journaled: \(records)")
        }
        // Into a log: redacted, with a note saying how to see it.
        let (logged, _) = await Self.run(["run", Self.workflow("epskc-share"), "--home", Self.fullHome, "--trace", "none", "--commissioner", "never"])
        let key = try #require(try Self.output(logged)["epskc"] as? String)
        #expect(!logged.stderr.contains(key), "\(logged.stderr)")
        #expect(logged.stderr.contains(#""epskc":"<redacted>""#) && logged.stderr.contains("note: what the workflow shows holds secrets, hidden because standard error is no terminal"), "\(logged.stderr)")
        // --show-secrets asks for it, in a trace file too.
        let (asked, _) = await Self.run(["run", Self.workflow("epskc-share"), "--home", Self.fullHome, "--trace", "jsonl", "--show-secrets", "--commissioner", "never"])
        let askedKey = try #require(try Self.output(asked)["epskc"] as? String)
        let shown = try TraceTests.events(asked.stderr).first { $0["event"] as? String == "shown" }
        #expect((shown?["value"] as? [String: Any])?["epskc"] as? String == askedKey, "\(asked.stderr)")
    }

    @Test("--commissioner against a home with no border router offering ePSKc says it has no effect")
    func aCommissionerWithNoRouterIsNamed() async throws {
        let (run, _) = await Self.run(["run", Self.workflow("rooms"), "--trace", "none", "--commissioner", "useKey"])
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: --commissioner has no effect: the home has no border router offering ePSKc"), "\(run.stderr)")
    }

    @Test("run --strict exits 1 for a run that succeeded with warnings, which exits 0 without it")
    func strictRunFailsOnWarnings() async throws {
        let arguments = ["run", Self.workflow("epskc-share"), "--home", Self.fullHome, "--commissioner", "never", "--trace", "none"]
        let (lenient, _) = await Self.run(arguments)
        #expect(lenient.code == 0, "\(lenient.stderr)")
        let (strict, _) = await Self.run(arguments + ["--strict"])
        #expect(strict.code == 1, "\(strict.stderr)")
        #expect(try strict.result()["outcome"] as? String == "succeeded", "the result says what happened")
        #expect(strict.stderr.contains("error: the run succeeded with 1 warning (its result's \"warnings\"), which --strict makes a failure"), "\(strict.stderr)")
        let (clean, _) = await Self.run(["run", Self.workflow("epskc-share"), "--home", Self.fullHome, "--trace", "none", "--strict"])
        #expect(clean.code == 0, "a run without warnings: \(clean.stderr)")
    }

    @Test func epskcShareGrantsTheRequestedDuration() async throws {
        let (run, _) = await Self.run([
            "run", Self.workflow("epskc-share"), "--home", Self.fullHome, "--input", "durationSeconds=45",
            "--commissioner", "never", "--trace", "none",
        ])
        let output = try Self.output(run)
        #expect(output["validDurationSeconds"] as? Int == 45)
        #expect(output["reason"] as? String == "expired")
        #expect(try run.result()["warnings"] as? [String] == ["the key expired after 45 s without being used (timeout; wrong keys tried: 0)"])
    }

    @Test func epskcShareFailsWithUnimplementedBeforeActivatingAnything() async throws {
        let (run, _) = await Self.run(["run", Self.workflow("epskc-share"), "--home", Self.basicHome, "--trace", "jsonl"])
        #expect(run.code == 1)
        let error = try run.resultError()
        #expect(error["code"] as? String == "unimplemented")
        #expect(error["cause"] as? String == "notSupported")
        #expect((error["message"] as? String)?.contains("ThreadNetworkManagement.activateEpskcMode") == true)
        let calls = try TraceTests.events(run.stderr).filter { $0["event"] as? String == "hubCallStarted" }.compactMap { $0["operation"] as? String }
        #expect(calls == ["listBorderRouters"])
    }

    @Test func epskcShareRefusesTooLongADuration() async throws {
        let (run, _) = await Self.run([
            "run", Self.workflow("epskc-share"), "--home", Self.fullHome, "--input", "durationSeconds=601", "--trace", "none",
        ])
        // Refused as the run's input, before any router is looked for: the input declares 0...600.
        #expect(run.code == 2, "\(run.stderr)")
        #expect(run.stderr.contains(#"input "durationSeconds" is not a number in 0...600 (601 is outside it)"#), "\(run.stderr)")
    }

    @Test func epskcStopWithNoActiveKeySaysSo() async throws {
        let (run, _) = await Self.run(["run", Self.workflow("epskc-stop"), "--home", Self.fullHome, "--trace", "none"])
        #expect(run.code == 0, "\(run.stderr)")
        let output = try Self.output(run)
        #expect(output["stopped"] as? Bool == false)
        #expect(output["detail"] as? String == "no key was active")
        let (basic, _) = await Self.run(["run", Self.workflow("epskc-stop"), "--home", Self.basicHome, "--trace", "none"])
        #expect(try basic.resultError()["cause"] as? String == "notSupported")
    }

    @Test("--commissioner must name an action", arguments: ["useKeys@3", "wrongKey*0", "useKey*2", "connect@-1", "deactivate@soon"])
    func badCommissioner(_ value: String) async {
        let (run, _) = await Self.run(["run", Self.workflow("epskc-share"), "--home", Self.fullHome, "--commissioner", value])
        #expect(run.code == ExitCode.usage)
        #expect(run.stderr.contains("--commissioner '\(value)'"))
    }

    @Test("--commissioner never with other steps contradicts itself: a usage error, not the last one silently")
    func neverWithOtherSteps() async {
        let (run, _) = await Self.run(
            ["run", Self.workflow("epskc-share"), "--home", Self.fullHome, "--commissioner", "never", "--commissioner", "useKey"])
        #expect(run.code == ExitCode.usage)
        #expect(run.stderr.contains("--commissioner never says no commissioner connects; it cannot be given with other steps (useKey)"), "\(run.stderr)")
    }

    // MARK: - Networks

    @Test func joinNetworkMigratesTheRouterWithItsThreadDevices() async throws {
        let (run, _) = await Self.run([
            "run", Self.workflow("join-network"), "--home", Self.fullHome, "--input", "operationalDataset=\(Self.dataset5938)",
        ])
        #expect(run.code == 0, "\(run.stderr)")
        let output = try Self.output(run)
        #expect(output["status"] as? String == "migrated")
        #expect(output["migratedDevices"] as? [String] == ["device-a41c9e07f3b8"])
        #expect((output["network"] as? [String: Any])?["networkName"] as? String == "OpenThread-5938")
        #expect(!run.stderr.lowercased().contains(Self.networkKey))
    }

    @Test func joinNetworkOnTheRouterAlreadyOnThatNetworkReportsAlreadyJoined() async throws {
        let (run, _) = await Self.run([
            "run", Self.workflow("join-network"), "--home", Self.onNetworkHome, "--input", "operationalDataset=\(Self.dataset5938.uppercased())",
        ])
        #expect(run.code == 0, "\(run.stderr)")
        let output = try Self.output(run)
        #expect(output["status"] as? String == "alreadyJoined")
        #expect(output["message"] as? String == "already joined OpenThread-5938; nothing changed")
    }

    @Test("join-network's dataset input is checked before the run: one without its Network Key is refused naming it, exit 2")
    func joinNetworkWithoutTheNetworkKeyIsRefused() async throws {
        let noKey = Self.dataset5938.replacingOccurrences(of: "0510" + Self.networkKey, with: "")
        let (run, _) = await Self.run([
            "run", Self.workflow("join-network"), "--home", Self.fullHome, "--input", "operationalDataset=\(noKey)", "--trace", "jsonl",
        ])
        #expect(run.code == 2)
        #expect(run.stdout.isEmpty, "no run started")
        #expect(
            run.stderr.contains("error[invalidValue]: /operationalDataset: input \"operationalDataset\" is not a dataset a border router can join")
                && run.stderr.contains("Network Key (type 5) is missing"), "\(run.stderr)")
        #expect(!run.stderr.contains("runStarted"))
        #expect(!run.stderr.contains(Self.pskc))
    }

    @Test("a dataset default is checked at load, and in a workflow built in code, when the run resolves its inputs")
    func aDatasetDefaultIsChecked() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let noKey = Self.dataset5938.replacingOccurrences(of: "0510" + Self.networkKey, with: "")
        let text = try String(contentsOfFile: Self.workflow("join-network"), encoding: .utf8)
            .replacingOccurrences(of: #""path": "find-border-router.json""#, with: #""path": "\#(Repository.root)/Workflows/find-border-router.json""#)
            .replacingOccurrences(of: #""required": true"#, with: #""default": "\#(noKey)""#)
        let workflow = try directory.write(text, to: "join-default.json")
        let (run, _) = await Self.run(["run", workflow, "--home", Self.fullHome])
        #expect(run.code == 2)
        #expect(
            run.stderr.contains("/inputs/operationalDataset/default")
                && run.stderr.contains("the default of input \"operationalDataset\" is not a dataset a border router can join")
                && run.stderr.contains("Network Key (type 5) is missing"), "\(run.stderr)")
        #expect(!run.stderr.contains(Self.pskc))
        let built = try WorkflowEngine().load(path: Self.workflow("join-network")).with {
            $0.inputs[0].defaultValue = .string(noKey)
            $0.inputs[0].required = false
        }
        do {
            _ = try built.resolveInputs([:])
            Issue.record("a dataset default without its Network Key was taken")
        } catch {
            #expect(error.diagnostics.map(\.pointer) == ["/operationalDataset"])
            #expect(
                error.diagnostics.first?.message.contains(
                    "the default of input \"operationalDataset\" is not a dataset a border router can join (") == true)
            #expect(!error.diagnostics.contains { $0.message.contains(Self.pskc) })
        }
        #expect(
            try built.resolveInputs(["operationalDataset": .string(Self.dataset5938)])["operationalDataset"] == .string(Self.dataset5938))
    }

    @Test("a dataset with several problems is refused naming each, as `matterflow dataset` does")
    func joinNetworkNamesEveryProblem() async throws {
        let broken = Self.dataset5938.replacingOccurrences(of: "000300000f", with: "000300001b")
            .replacingOccurrences(of: "01025938", with: "010159")
        let (run, _) = await Self.run(["run", Self.workflow("join-network"), "--home", Self.fullHome, "--input", "operationalDataset=\(broken)"])
        #expect(run.code == 2)
        #expect(
            run.stderr.contains("found 27") && run.stderr.contains("PAN ID (type 1) at offset 78: expected 2 bytes, found 1 byte"), "\(run.stderr)")
        #expect(!run.stderr.contains(Self.networkKey))
    }

    @Test("a joinable dataset holding what a network should not (the broadcast PAN ID) is joined with the warnings `matterflow dataset` gives, and --strict fails the run")
    func joinNetworkWarnsOfTheDataset() async throws {
        let broadcast = Self.dataset5938.replacingOccurrences(of: "01025938", with: "0102ffff")
        let (run, _) = await Self.run(["run", Self.workflow("join-network"), "--home", Self.fullHome, "--input", "operationalDataset=\(broadcast)"])
        #expect(run.code == 0, "\(run.stderr)")
        let warnings = try #require(try run.result()["warnings"] as? [String])
        #expect(warnings.contains { $0.hasPrefix("operational dataset: broadcastPANID: ") }, "\(warnings)")
        #expect(!run.stdout.contains(Self.networkKey) && !run.stderr.contains(Self.networkKey))
        let (strict, _) = await Self.run(["run", Self.workflow("join-network"), "--home", Self.fullHome, "--input", "operationalDataset=\(broadcast)", "--strict"])
        #expect(strict.code == 1, "\(strict.stderr)")
        let (clean, _) = await Self.run(["run", Self.workflow("join-network"), "--home", Self.fullHome, "--input", "operationalDataset=\(Self.dataset5938)"])
        #expect(try clean.result()["warnings"] as? [String] == [], "\(clean.stdout)")
    }

    @Test("--commissioner never with a time or count says never takes none, rather than calling never unknown")
    func commissionerNeverTakesNoTime() async throws {
        for given in ["never@5", "never*2"] {
            let (run, _) = await Self.run(["run", Self.workflow("epskc-share"), "--home", Self.fullHome, "--commissioner", given])
            #expect(run.code == 64, "\(run.stderr)")
            #expect(run.stderr.contains("never takes no count or time"), "\(run.stderr)")
            #expect(!run.stderr.contains("unknown action"), "\(run.stderr)")
        }
    }

    @Test("a dataset given as a plain string is still checked by joinThreadNetwork before the hub sees it")
    func plainStringDatasetIsCheckedAtTheCall() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let text = try String(contentsOfFile: Self.workflow("join-network"), encoding: .utf8)
            .replacingOccurrences(of: #""type": "operationalDataset""#, with: #""type": "string""#)
            .replacingOccurrences(of: #""path": "find-border-router.json""#, with: #""path": "\#(Repository.root)/Workflows/find-border-router.json""#)
        let workflow = try directory.write(text, to: "join-plain.json")
        let noKey = Self.dataset5938.replacingOccurrences(of: "0510" + Self.networkKey, with: "")
        let (run, _) = await Self.run(["run", workflow, "--home", Self.fullHome, "--input", "operationalDataset=\(noKey)", "--trace", "jsonl"])
        #expect(run.code == 1, "\(run.stderr)")
        let error = try run.resultError()
        #expect(error["code"] as? String == "invalidArgument")
        #expect(error["cause"] as? String == "invalidDataset")
        #expect((error["message"] as? String)?.contains("Network Key (type 5) is missing") == true)
        let calls = try TraceTests.events(run.stderr).filter { $0["event"] as? String == "hubCallFinished" && $0["operation"] as? String == "joinThreadNetwork" }
        #expect(calls.first?["succeeded"] as? Bool == false)
    }

    @Test func leaveThenJoinAcrossRunsWithSavedState() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        let (left, _) = await Self.run(["run", Self.workflow("leave-network"), "--home", Self.onNetworkHome, "--state", state])
        #expect(try Self.output(left)["status"] as? String == "left")
        let (again, _) = await Self.run(["run", Self.workflow("leave-network"), "--state", state])
        #expect(try Self.output(again)["status"] as? String == "notOnNetwork")
        let (joined, _) = await Self.run([
            "run", Self.workflow("join-network"), "--state", state, "--input", "operationalDataset=\(Self.dataset5938)",
        ])
        #expect(try Self.output(joined)["status"] as? String == "joined")
        let (same, _) = await Self.run([
            "run", Self.workflow("join-network"), "--state", state, "--input", "operationalDataset=\(Self.dataset5938)",
        ])
        #expect(try Self.output(same)["status"] as? String == "alreadyJoined")
        let saved = try String(contentsOfFile: state + "/home.json", encoding: .utf8).lowercased()
        #expect(!saved.contains(Self.networkKey) && !saved.contains(Self.pskc))
    }

    @Test func leaveNetworkNeedsTheManagementTrait() async throws {
        let (run, _) = await Self.run(["run", Self.workflow("leave-network"), "--home", Self.basicHome, "--trace", "none"])
        #expect(run.code == 1)
        #expect((try run.resultError()["message"] as? String)?.contains("ThreadNetworkManagement.leaveNetwork") == true)
    }

    // MARK: - Internet access

    @Test func internetAccessAppliesToTheRoutersThatSupportIt() async throws {
        let (run, _) = await Self.run(["run", Self.workflow("internet-access"), "--home", Self.fullHome, "--input", "option=nat64Only"])
        #expect(run.code == 0, "\(run.stderr)")
        let output = try Self.output(run)
        #expect(output["previous"] as? String == "unspecified")
        #expect(output["internetAccessOption"] as? String == "nat64Only")
        #expect(output["appliedTo"] as? [String] == ["device-5b0e7a13c2d9"])
        #expect(output["defaultThreadNetworkId"] as? String == "d196fa2040e973b6")
    }

    @Test("internet-access is refused where it cannot apply", arguments: [
        (basicHome, "all", "unimplemented"), (onNetworkHome, "all", "unimplemented"),
    ])
    func internetAccessRefused(_ home: String, _ option: String, _ code: String) async throws {
        let (run, _) = await Self.run(["run", Self.workflow("internet-access"), "--home", home, "--input", "option=\(option)"])
        #expect(run.code == 1)
        #expect(try run.resultError()["code"] as? String == code)
    }

    @Test("an option internet-access does not take is refused as its input, listing the four policies")
    func internetAccessOptionRefused() async throws {
        let (run, _) = await Self.run(["run", Self.workflow("internet-access"), "--home", Self.fullHome, "--input", "option=everything"])
        #expect(run.code == 2, "\(run.stderr)")
        #expect(run.stderr.contains(#"is not one of "none", "all", "nat64Only", "dhcpv6PdOnly""#), "\(run.stderr)")
    }

    // MARK: - Secrets

    @Test func secretsStayOutOfTracesAndSavedState() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        let (share, _) = await Self.run([
            "run", Self.workflow("epskc-share"), "--home", Self.fullHome, "--state", state, "--trace", "jsonl",
        ])
        let key = try #require(try Self.output(share)["epskc"] as? String)
        let (join, _) = await Self.run([
            "run", Self.workflow("join-network"), "--home", Self.fullHome, "--state", state, "--trace", "jsonl",
            "--input", "operationalDataset=\(Self.dataset5938)",
        ])
        #expect(join.code == 0, "\(join.stderr)")
        let (text, _) = await Self.run([
            "run", Self.workflow("join-network"), "--home", Self.fullHome, "--state", state, "--input", "operationalDataset=\(Self.dataset5938)",
        ])
        let saved = try String(contentsOfFile: state + "/home.json", encoding: .utf8).lowercased()
        for secret in [key, Self.networkKey, Self.pskc, Self.dataset5938] {
            #expect(!share.stderr.lowercased().contains(secret))
            #expect(!join.stderr.lowercased().contains(secret))
            #expect(!join.stdout.lowercased().contains(secret))
            #expect(!text.stderr.lowercased().contains(secret))
            #expect(!saved.contains(secret))
        }
        #expect(join.stderr.contains(#""operationalDataset":"<redacted>""#))
    }
}
