import Foundation
@testable import MatterFlowCLI
import Testing

/// `matterflow test`: one line per fixture, a closing `N passed, N failed`, exit 0 / 1 / 2, `--filter`,
/// `--json` and `--coverage`.
@Suite("matterflow test")
struct TestCommandTests {
    static var library: String { Repository.workflowsDirectory + "/fixtures" }

    static var libraryCount: Int {
        (FileManager.default.enumerator(atPath: library)?.allObjects as? [String] ?? [])
            .filter { $0.hasSuffix(".fixture.json") }.count
    }

    /// A fixture running rooms.json on the shared ready home, with `expect` as its expectations.
    static func roomsFixture(name: String = "rooms listed", expect: String) -> String {
        """
        {
          "fixture": "\(name)",
          "version": 1,
          "workflow": "\(Repository.workflow("rooms"))",
          "home": "\(library)/homes/ready.json",
          "expect": \(expect)
        }
        """
    }

    @Test func theLibraryPassesWithOneLinePerFixtureAndFullCoverage() async {
        let run = await matterflow(["test", Self.library, "--coverage"])
        #expect(run.code == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr == "")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(Self.libraryCount >= 40)
        #expect(lines.last == "\(Self.libraryCount) passed, 0 failed")
        #expect(lines.filter { $0.hasPrefix("PASS  ") }.count == Self.libraryCount)
        #expect(!lines.contains { $0.hasPrefix("FAIL") || $0.hasPrefix("INVALID") })
        // Every workflow line of the coverage report says 100% of states and of transitions.
        let workflows = lines.filter { $0.hasPrefix("  ") && $0.contains(": states ") }
        #expect(workflows.count == (try? Self.shippedWorkflowCount()))
        for line in workflows {
            #expect(line.contains("(100%), transitions") && line.hasSuffix("(100%)"), "\(line)")
        }
        #expect(!lines.contains { $0.contains("not exercised") })
    }

    static func shippedWorkflowCount() throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: Repository.workflowsDirectory).filter {
            $0.hasSuffix(".json")
        }
        .count
    }

    @Test func aBrokenExpectationShowsTheDifference() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write(
            Self.roomsFixture(
                expect:
                    #"{ "outcome": "succeeded", "path": ["fetch", "noRooms", "emptyRooms"], "output": { "rooms": ["Kitchen"] } }"#
            ),
            to: "broken.fixture.json")
        let run = await matterflow(["test", file])
        #expect(run.code == 1)
        #expect(
            run.stdout == """
                FAIL  rooms listed
                      \(file)
                      \(file):6:47: path: expected #2 noRooms, got #2 fetchedRooms
                        expected (3): fetch → noRooms → emptyRooms
                        actual (2):   fetch → fetchedRooms
                      \(file):6:104: output.rooms: expected ["Kitchen"], got ["Kitchen","Hall"]
                0 passed, 1 failed

                """)
    }

    @Test func anInvalidFixtureIsReportedLikeACompilerErrorAndExitsTwo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(Self.roomsFixture(expect: #"{ "outcome": "succeeded" }"#), to: "good.fixture.json")
        let bad = try directory.write(
            Self.roomsFixture(name: "bad", expect: #"{ "outcome": "succeeded", "warnigns": [] }"#),
            to: "bad.fixture.json")
        let run = await matterflow(["test", directory.path])
        #expect(run.code == 2)
        #expect(
            run.stderr
                == "\(bad):6:39: error[unknownKey]: /expect/warnigns: unknown key \"warnigns\" (did you mean \"warnings\"?)\n"
        )
        #expect(run.stdout == "INVALID  \(bad)\nPASS  rooms listed\n1 passed, 1 failed\n")
    }

    @Test("--min-coverage fails a passing run whose workflows are covered less, naming them; it passes one covered enough, and refuses a share outside 0-100")
    func minimumCoverage() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(Self.roomsFixture(name: "rooms listed", expect: #"{ "outcome": "succeeded" }"#), to: "a.fixture.json")
        let low = await matterflow(["test", directory.path, "--min-coverage", "90"])
        #expect(low.code == 1, "\(low.stderr)")
        #expect(low.stdout.contains("Coverage ("), "implies --coverage: \(low.stdout)")
        #expect(low.stdout.hasSuffix("1 passed, 0 failed\n"), "\(low.stdout)")
        #expect(low.stderr.contains("[rooms] is covered less than --min-coverage 90%: states "), "\(low.stderr)")
        let json = try #require(try parseJSON(await matterflow(["test", directory.path, "--min-coverage", "90", "--json"]).stdout) as? [String: Any])
        let minimum = try #require(json["minimumCoverage"] as? [String: Any], "\(json)")
        #expect(minimum["met"] as? Bool == false)
        #expect((minimum["below"] as? [String])?.first?.hasSuffix("Workflows/rooms.json") == true, "\(minimum)")
        let enough = await matterflow(["test", directory.path, "--min-coverage", "10"])
        #expect(enough.code == 0, "\(enough.stderr)")
        #expect(await matterflow(["test", directory.path, "--min-coverage", "101"]).code == 64)
        // And in the JUnit report, where CI shows why the job failed.
        let junit = directory.file("junit.xml")
        #expect(await matterflow(["test", directory.path, "--min-coverage", "90", "--junit", junit]).code == 1)
        let xml = try String(contentsOfFile: junit, encoding: .utf8)
        #expect(xml.contains(#"<testsuites name="matterflow test" tests="2" failures="1" errors="0">"#), "\(xml)")
        #expect(xml.contains(#"<testsuite name="coverage" tests="1" failures="1" errors="0">"#), "\(xml)")
        #expect(xml.contains(#"<failure type="coverage" message="[rooms] is covered less than --min-coverage 90%: states "#), "\(xml)")
        // Said on stderr with --json too.
        let jsonLow = await matterflow(["test", directory.path, "--min-coverage", "90", "--json"])
        #expect(jsonLow.code == 1)
        #expect(jsonLow.stderr.contains("[rooms] is covered less than --min-coverage 90%"), "\(jsonLow.stderr)")
        // A failing fixture is the news: coverage, which counts passing fixtures only, is not judged.
        try directory.write(Self.roomsFixture(name: "rooms failing", expect: #"{ "outcome": "failed" }"#), to: "b.fixture.json")
        let failing = await matterflow(["test", directory.path, "--min-coverage", "90"])
        #expect(failing.code == 1)
        #expect(!failing.stderr.contains("--min-coverage"), "\(failing.stderr)")
        // The shipped library is complete.
        #expect(await matterflow(["test", Self.library, "--min-coverage", "100"]).code == 0)
    }

    @Test("the text report keeps the order of the files: an invalid fixture's line stands where its file is")
    func reportKeepsFileOrder() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(Self.roomsFixture(name: "first", expect: #"{ "outcome": "succeeded" }"#), to: "a.fixture.json")
        let bad = try directory.write(Self.roomsFixture(name: "second", expect: #"{ "outcme": "succeeded" }"#), to: "b.fixture.json")
        try directory.write(Self.roomsFixture(name: "third", expect: #"{ "outcome": "succeeded" }"#), to: "c.fixture.json")
        let run = await matterflow(["test", directory.path])
        #expect(run.code == 2, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").map(String.init) == ["PASS  first", "INVALID  \(bad)", "PASS  third", "2 passed, 1 failed"], "\(run.stdout)")
    }

    @Test("an invalid fixture is reported whatever --filter says; --json lists it; two fixtures of one name are warned of")
    func invalidFixturesAreNeverFilteredOut() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(Self.roomsFixture(name: "smoke: rooms", expect: #"{ "outcome": "succeeded" }"#), to: "good.fixture.json")
        try directory.write(Self.roomsFixture(name: "smoke: rooms", expect: #"{ "outcome": "succeeded" }"#), to: "twin.fixture.json")
        let bad = try directory.write(
            Self.roomsFixture(name: "smoke: broken", expect: #"{ "outcome": "succeeded", "warnigns": [] }"#), to: "bad.fixture.json")
        let run = await matterflow(["test", directory.path, "--filter", "smoke"])
        #expect(run.code == 2, "\(run.stderr)")
        #expect(run.stdout.hasPrefix("INVALID  \(bad)\n"), "\(run.stdout)")
        #expect(run.stderr.contains("error[unknownKey]: /expect/warnigns"), "\(run.stderr)")
        #expect(run.stderr.contains("twin.fixture.json:2:14: warning[duplicateFixtureName]: /fixture: fixture \"smoke: rooms\" has the name of"), "\(run.stderr)")
        let json = try #require(try parseJSON(await matterflow(["test", directory.path, "--json"]).stdout) as? [String: Any])
        #expect(json["invalid"] as? [String] == [bad], "\(json)")
        // Named as the diagnostics name the file, so that the two join.
        let files = (json["diagnostics"] as? [[String: Any]] ?? []).compactMap { $0["file"] as? String }
        #expect(files.contains(bad), "\(files)")
        // Also from the directory above it, where the text report names it relatively.
        let child = try ChildProcess.launch(["test", directory.path, "--json"], in: (directory.path as NSString).deletingLastPathComponent)
        defer { child.kill() }
        try #require(await child.waitForExit(), "matterflow test did not exit")
        let report = try #require(try parseJSON(child.stdout.text) as? [String: Any], "\(child.stdout.text)")
        #expect(report["invalid"] as? [String] == [bad], "\(report)")
        #expect(json["failed"] as? Int == 1)
    }

    @Test("fixtures of custom operations run without their catalog say to pass it; a workflow's findings come once")
    func aForgottenCatalogIsNamed() async {
        let run = await matterflow(["test", Repository.root + "/Examples/custom-operations/fixtures"])
        #expect(run.code == 2)
        #expect(run.stderr.contains("a custom operation needs its catalog: --catalog FILE"), "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n")
        #expect(Set(lines).count == lines.count, "a finding repeated: \(run.stderr)")
    }

    @Test("a catalog named twice is read once; one that cannot be read is reported in --json too")
    func catalogsTwiceAndMissing() async throws {
        let catalog = Repository.root + "/Examples/custom-operations/firmware.catalog.json"
        let fixtures = Repository.root + "/Examples/custom-operations/fixtures"
        let twice = await matterflow(["test", fixtures, "--catalog", catalog, "--catalog", catalog])
        #expect(twice.code == 0, "\(twice.stderr)")
        let missing = await matterflow(["test", fixtures, "--catalog", "/nonexistent/catalog.json", "--json"])
        #expect(missing.code == 2)
        let report = try #require(try parseJSON(missing.stdout) as? [String: Any], "\(missing.stdout)")
        #expect((report["diagnostics"] as? [[String: Any]])?.first?["code"] as? String == "fileNotFound", "\(report)")
    }

    @Test("--junit writes a testcase per fixture, grouped by workflow: a failure with its mismatches, an error per invalid file, text escaped for XML")
    func junitReportForCI() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(Self.roomsFixture(name: "rooms <listed> & 'quoted'", expect: #"{ "outcome": "succeeded" }"#), to: "good.fixture.json")
        try directory.write(
            Self.roomsFixture(name: "rooms wrong", expect: #"{ "outcome": "failed" }"#), to: "wrong.fixture.json")
        let bad = try directory.write(
            Self.roomsFixture(name: "bad", expect: #"{ "outcome": "succeeded", "warnigns": [] }"#), to: "bad.fixture.json")
        let report = directory.path + "/report.xml"
        let run = await matterflow(["test", directory.path, "--junit", report])
        #expect(run.code == 2, "the invalid file decides the status, as without --junit: \(run.stderr)")
        #expect(run.stdout.hasSuffix("1 passed, 2 failed\n"), "the other output is unchanged: \(run.stdout)")
        let xml = try String(contentsOfFile: report, encoding: .utf8)
        let lines = xml.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.first == #"<?xml version="1.0" encoding="UTF-8"?>"#)
        #expect(lines.contains(#"<testsuites name="matterflow test" tests="3" failures="1" errors="1">"#), "\(xml)")
        #expect(lines.contains(#"<testsuite name="\#(TestCommand.display(Repository.workflow("rooms")))" tests="2" failures="1" errors="0">"#), "\(xml)")
        let good = directory.path + "/good.fixture.json"
        let shown = TestCommand.display(good)
        #expect(
            lines.contains(#"<testcase name="rooms &lt;listed&gt; &amp; &apos;quoted&apos;" classname="\#(shown)" file="\#(shown)"/>"#), "\(xml)")
        let failure = try #require(lines.first { $0.hasPrefix("<failure ") }, "\(xml)")
        #expect(failure.hasPrefix(#"<failure type="mismatch" message="outcome: expected failed, got succeeded">"#), "\(failure)")
        #expect(failure.contains("wrong.fixture.json:6:"), "the text names where the expectation was written: \(failure)")
        #expect(lines.contains(#"<testsuite name="invalid files" tests="1" failures="0" errors="1">"#), "\(xml)")
        let error = try #require(lines.first { $0.hasPrefix("<error ") }, "\(xml)")
        #expect(error.hasPrefix(#"<error type="invalidFile" message="unknownKey: unknown key &quot;warnigns&quot; (did you mean &quot;warnings&quot;?)">\#(bad):6:39: error[unknownKey]"#), "\(error)")
        #expect(xml.contains(#"<testcase name="\#(TestCommand.display(bad))""#), "an invalid file is named as the text report names it")
        #expect(xml.hasSuffix("</testsuites>\n"))

        #expect(JUnitReport.escaped("a\u{1B}b\u{0}\tc\nd'") == "a\\u001bb\\u0000&#9;c&#10;d&apos;", "XML 1.0 cannot hold most controls at all")

        let unwritable = await matterflow(["test", good, "--junit", directory.path + "/missing/report.xml"])
        #expect(unwritable.code == 1, "the fixture passed, but the report CI waits for is missing: \(unwritable.stderr)")
        #expect(unwritable.stderr.contains("error[outputNotWritten]: the JUnit report could not be written (cannot create "), "\(unwritable.stderr)")
        let intoDirectory = await matterflow(["test", good, "--junit", directory.path])
        #expect(intoDirectory.code == 1)
        #expect(
            intoDirectory.stderr.contains("the JUnit report could not be written: \(directory.path) is a directory; give the path of a file"),
            "\(intoDirectory.stderr)")
    }

    @Test("--junit writes through a symbolic link and into a device or a FIFO, never replacing one with a file")
    func junitIntoLinksAndDevices() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let good = try directory.write(Self.roomsFixture(name: "rooms", expect: #"{ "outcome": "succeeded" }"#), to: "good.fixture.json")
        try FileManager.default.createDirectory(atPath: directory.file("reports"), withIntermediateDirectories: true)
        try "old".write(toFile: directory.file("reports/report.xml"), atomically: true, encoding: .utf8)
        let link = directory.file("report.xml")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "reports/report.xml")
        let linked = await matterflow(["test", good, "--junit", link])
        #expect(linked.code == 0, "\(linked.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "reports/report.xml", "the link stays a link")
        #expect(try String(contentsOfFile: directory.file("reports/report.xml"), encoding: .utf8).hasPrefix("<?xml"))

        let fifo = directory.file("fifo")
        #expect(mkfifo(fifo, 0o644) == 0)
        let unread = await matterflow(["test", good, "--junit", fifo])
        #expect(unread.code == 1 && unread.stderr.contains("which is not a regular file (no process reads it)"), "\(unread.stderr)")
        var info = stat()
        #expect(stat(fifo, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO, "the FIFO is still one")

        // A device of the test's own (the null device's numbers), never the system's: only where devices may be made.
        let device = directory.file("null")
        if mknod(device, S_IFCHR | 0o666, dev_t((1 << 8) | 3)) == 0 {
            let null = await matterflow(["test", good, "--junit", device])
            #expect(null.code == 0, "\(null.stderr)")
            #expect(stat(device, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR, "the device is still one")
        }
        // A socket, and a block device (a loop device's numbers, never opened), are refused and left as they are.
        let socketPath = directory.file("socket")
        let listener = try StartingServer.unixSocket(path: socketPath, listen: true)
        defer { close(listener) }
        var refusedPaths = [socketPath]
        let block = directory.file("block")
        if mknod(block, S_IFBLK | 0o600, dev_t((7 << 8) | 200)) == 0 { refusedPaths.append(block) }
        for path in refusedPaths {
            let refused = await matterflow(["test", good, "--junit", path])
            #expect(refused.code == 1 && refused.stderr.contains("\(path) is a block device or a socket; give the path of a file"), "\(refused.stderr)")
            let kind = path == block ? S_IFBLK : S_IFSOCK
            #expect(stat(path, &info) == 0 && info.st_mode & S_IFMT == kind, "\(path) is still what it was")
        }
    }

    @Test func aMissingPathExitsTwo() async {
        let run = await matterflow(["test", "/nonexistent/fixtures"])
        #expect(run.code == 2)
        #expect(run.stderr.contains("/nonexistent/fixtures: error[fileNotFound]"))
        #expect(run.stdout.hasSuffix("0 passed, 1 failed\n"))
    }

    @Test func filterRunsASubset() async {
        let run = await matterflow(["test", Self.library, "--filter", "/ROOMS/"])
        #expect(run.code == 0)
        #expect(
            run.stdout == """
                PASS  rooms: an offline hub gives an empty list and a warning
                PASS  rooms: the home's rooms are offered
                2 passed, 0 failed

                """)
        let none = await matterflow(["test", Self.library, "--filter", "no such fixture"])
        #expect(none.code == 1)
        #expect(none.stdout == "0 passed, 0 failed\n")
        #expect(none.stderr == "no fixture matches --filter 'no such fixture'\n")
    }

    @Test func coverageListsWhatWasNotExercised() async {
        let run = await matterflow(["test", Self.library + "/rooms/lists-rooms.fixture.json", "--coverage"])
        #expect(run.code == 0)
        #expect(
            run.stdout.contains(
                """
                rooms.json [rooms]: states 2/4 (50%), transitions 1/3 (33.3%)
                    not exercised: state noRooms
                    not exercised: state emptyRooms
                    not exercised: fetch → noRooms [onError[0] *]
                    not exercised: noRooms → emptyRooms [next]

                """))
        #expect(run.stdout.hasSuffix("1 passed, 0 failed\n"))
        // A terminal that takes no UTF-8 (LC_ALL=C) gets the arrows in ASCII.
        let ascii = await matterflow(["test", Self.library + "/rooms/lists-rooms.fixture.json", "--coverage"], asciiGlyphs: true)
        #expect(ascii.stdout.contains("    not exercised: fetch -> noRooms [onError[0] *]\n"), "\(ascii.stdout)")
        let allASCII = ascii.stdout.unicodeScalars.allSatisfy { $0.isASCII }
        #expect(allASCII, "\(ascii.stdout)")
    }

    @Test func jsonCarriesResultsAndCoverage() async throws {
        let run = await matterflow(["test", Self.library, "--filter", "/rooms/", "--coverage", "--json"])
        #expect(run.code == 0)
        let report = try #require(try parseJSON(run.stdout) as? [String: Any])
        #expect(report["passed"] as? Int == 2)
        #expect(report["failed"] as? Int == 0)
        #expect((report["results"] as? [[String: Any]])?.map { $0["passed"] as? Bool } == [true, true])
        // The run's own warnings, as the fixture's warnings expectation reads them (the offline hub's: one).
        let warnings = (report["results"] as? [[String: Any]])?.map { ($0["warnings"] as? [String])?.count }
        #expect(warnings == [1, 0], "\(String(describing: report["results"]))")
        let coverage = try #require(report["coverage"] as? [[String: Any]])
        let rooms = try #require(coverage.first { $0["workflow"] as? String == "rooms" })
        #expect(rooms["complete"] as? Bool == true)
        let transitions = try #require(rooms["transitions"] as? [String: Any])
        #expect(transitions["covered"] as? Int == 3)
        #expect(transitions["total"] as? Int == 3)
    }

    @Test func jsonReportsMismatchesForMachines() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write(Self.roomsFixture(expect: #"{ "outcome": "failed" }"#), to: "x.fixture.json")
        let run = await matterflow(["test", "--json", file])
        #expect(run.code == 1)
        let report = try #require(try parseJSON(run.stdout) as? [String: Any])
        let result = try #require((report["results"] as? [[String: Any]])?.first)
        #expect(result["passed"] as? Bool == false)
        #expect(result["outcome"] as? String == "succeeded")
        let mismatch = try #require((result["mismatches"] as? [[String: Any]])?.first)
        #expect(mismatch["subject"] as? String == "outcome")
        #expect(mismatch["expected"] as? String == "failed")
        // Where the expectation was written: "expect" is on line 6, its "outcome" value at column 26.
        #expect(mismatch["pointer"] as? String == "/expect/outcome")
        #expect(mismatch["line"] as? Int == 6)
        #expect(mismatch["column"] as? Int == 26)
        #expect(report["failed"] as? Int == 1)
    }

    @Test func helpDescribesTheCommand() async {
        let run = await matterflow("help", "test")
        #expect(run.code == 0)
        #expect(run.stdout.contains("USAGE: matterflow test <fixture> ... [--json] [--filter <pattern>] [--coverage]"))
        let overview = await matterflow("--help")
        #expect(overview.stdout.contains("\n  test "))
    }
}
