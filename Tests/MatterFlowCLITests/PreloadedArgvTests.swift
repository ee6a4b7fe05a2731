import Testing

/// A process into which libfaketime is preloaded directly (not through faketime(1) or env) reaches the Swift runtime
/// with no arguments at all (argc 0): the command line then reads as empty, a usage error, not a trap.
@Suite struct PreloadedArgvTests {
    @Test(
        "matterflow with libfaketime preloaded into it directly exits 64 with its usage, without a trap",
        .enabled(if: FleetClockTests.fakeTimeLibrary != nil, "no libfaketime (install faketime; .ci/run does)"))
    func noArgumentsSeen() async throws {
        let library = try #require(FleetClockTests.fakeTimeLibrary)
        let child = try ChildProcess.launch(["--version"], environment: ["LD_PRELOAD": library, "FAKETIME": "-3600"])
        defer { child.kill() }
        try #require(await child.waitForExit(), "matterflow did not exit: \(child.stderr.text)")
        #expect(!child.stderr.text.contains("Fatal error"), "\(child.stderr.text)")
        #expect(child.status == 64, "\(child.status): \(child.stderr.text)")
    }
}
