import Testing

/// A process into which libfaketime is preloaded directly (not through faketime(1) or env) usually reaches the Swift
/// runtime with no arguments at all (argc 0): the command line then reads as empty, a usage error, not a trap. On a
/// loaded machine libfaketime has once let the arguments through, and `--version` then answered as usual; either
/// way the process must not trap.
@Suite struct PreloadedArgvTests {
    @Test(
        "matterflow with libfaketime preloaded into it directly exits 64 with its usage (or answers --version), without a trap",
        .enabled(if: FleetClockTests.fakeTimeLibrary != nil, "no libfaketime (install faketime; .ci/run does)"))
    func noArgumentsSeen() async throws {
        let library = try #require(FleetClockTests.fakeTimeLibrary)
        let child = try ChildProcess.launch(["--version"], environment: ["LD_PRELOAD": library, "FAKETIME": "-3600"])
        defer { child.kill() }
        try #require(await child.waitForExit(), "matterflow did not exit: \(child.stderr.text)")
        #expect(!child.stderr.text.contains("Fatal error"), "\(child.stderr.text)")
        let answeredVersion = child.status == 0 && child.stdout.text.hasPrefix("matterflow ")
        #expect(child.status == 64 || answeredVersion, "\(child.status): \(child.stdout.text) \(child.stderr.text)")
        if child.status == 64 { #expect(child.stderr.text.contains("USAGE"), "\(child.stderr.text)") }
    }
}
