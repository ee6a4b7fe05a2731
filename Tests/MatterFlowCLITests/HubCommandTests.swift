import Foundation
import MatterFlowSimulator
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

    @Test func aHubThatCannotBeStartedExitsTwoAndSaysWhy() async throws {
        let run = await matterflow(["run", Repository.workflow("prepare"), "--hub", "/nonexistent/hub-binary --flag"])
        #expect(run.code == 2)
        #expect(run.stderr.contains("/nonexistent/hub-binary"), "\(run.stderr)")
        #expect(run.stdout.isEmpty)
    }

    @Test func hubCheckPassesOnHubServe() async throws {
        let home = Repository.root + "/Examples/border-router-home.json"
        let run = await matterflow(["hub", "check", try Self.serveCommand("--home", home)])
        #expect(run.code == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(!run.stdout.contains("FAIL"))
        // Only the unlisted-method check is skipped: the simulator lists every method.
        #expect(run.stdout.components(separatedBy: "SKIP").count == 2, "\(run.stdout)")
        #expect(run.stdout.contains("PASS an event caused while subscribed arrives as an event notification"))
        #expect(run.stdout.hasSuffix(" passed, 0 failed\n"), "\(run.stdout)")
    }

    @Test func hubServeListensOnAUnixSocketUntilSIGTERM() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let socket = directory.file("hub.sock")
        let server = try ChildProcess.launch(["hub", "serve", "--listen", "unix:\(socket)"])
        defer { server.kill() }
        let ready = await server.stderr.waitForLine { $0 == "listening on unix:\(socket)" }
        try #require(ready, "hub serve did not start listening: \(server.stderr.text)")
        let check = await matterflow(["hub", "check", "unix:\(socket)"])
        #expect(check.code == 0, "\(check.stdout)")
        // A second client is served as well.
        let run = await matterflow(["run", Repository.workflow("prepare"), "--hub", "unix:\(socket)", "--trace", "none"])
        #expect(run.code == 0, "\(run.stderr)")
        server.signal(SIGTERM)
        try #require(await server.waitForExit(), "hub serve did not exit on SIGTERM")
        #expect(server.status == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket file was removed")
    }
}
