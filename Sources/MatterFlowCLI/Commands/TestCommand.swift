import Foundation
import MatterFlow
import MatterFlowFixtures
import MatterFlowJSON
import MatterFlowSimulator

/// `matterflow test FIXTURE|DIR ...`: runs fixture scenarios on the simulated home, one line per fixture, and
/// optionally reports which states and transitions of each workflow they exercised.
struct TestCommand {
    static let spec = CommandSpec(
        name: "test",
        abstract: "Run fixture scenarios (faults, events, expectations) and report coverage.",
        arguments: [
            ("<fixture>", "Fixture files, or directories searched for *\(FixtureLoader.fileSuffix) files.", true)
        ],
        options: [
            .init(name: "json", valueName: nil, help: "Print one JSON report on stdout instead of lines."),
            .init(
                name: "filter", valueName: "<pattern>", help: "Run only fixtures whose name or path contains this text."
            ),
            .init(name: "coverage", valueName: nil, help: "Report the states and transitions each workflow exercised."),
            .init(
                name: "min-coverage", valueName: "<percent>",
                help: "Fail (exit 1) when a workflow's states or transitions are covered less than this (0-100); implies --coverage."),
            .init(
                name: "junit", valueName: "<file>",
                help: "Also write the results as JUnit XML to <file>, for CI test reports (replaced whole)."),
            HubOption.option,
            CatalogOption.option,
        ],
        discussion: """
            Each fixture runs on virtual time with a seeded random source, so it gives the same run every time.
            The last line is "N passed, N failed". Invalid fixture files are reported like compiler errors
            and count as failed. The format is documented in docs/fixtures.md.

            Fixtures script the built-in simulated home, so --hub is refused with the reason: see
            `matterflow hub check` and `matterflow validate --hub` for testing a hub of your own.

            --junit FILE writes one <testsuite> per workflow and one <testcase> per fixture (its classname and file
            the fixture file), a <failure> with every mismatch for a fixture that failed, and an <error> per invalid
            fixture or --catalog file; no times (fixtures run on virtual time). The other output is unchanged. A
            report that cannot be written is an error on stderr, and the exit status is at least 1.

            --min-coverage P fails a run whose fixtures all passed when some workflow they ran has less than P% of
            its states or of its counted transitions exercised, naming each on stderr (with --json, also in the
            report's "minimumCoverage": {"percent", "met", "below"}), so that CI keeps a library's coverage from
            slipping. When a fixture failed, coverage is not judged (only passing fixtures count).

            Exit status: 0 when every fixture passed (and coverage is at least --min-coverage), 1 when one failed
            (or none matched --filter, or coverage is below --min-coverage), 2 when a fixture file is invalid, 64
            usage error.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    /// Why fixtures cannot run on another hub.
    static let hubRefusal = """
        fixtures cannot run on --hub: each one scripts the built-in simulated home (its home file, faults per \
        operation and attempt, events such as the hub going offline or a commissioner using a key, cancelling on \
        entering a state, and expectations on the home afterwards), which only the simulator can play. The \
        whole fixture library does run with the simulator behind the hub protocol in `swift test`. To test your \
        own hub, use `matterflow hub check SPEC`, and `matterflow validate WORKFLOW --hub SPEC` for what a \
        workflow needs of it
        """

    func execute() async -> Int32 {
        let out = environment.standardOutput
        let err = environment.standardError
        if arguments.value("hub") != nil {
            return MatterflowTool.usageError(UsageError(message: Self.hubRefusal, command: Self.spec.name), err)
        }
        let minimumCoverage: Int?
        do {
            minimumCoverage = try arguments.wholeNumber("min-coverage", range: 0...100, command: Self.spec.name)
        } catch {
            return MatterflowTool.usageError(error, err)
        }
        let catalog: OperationCatalog
        switch CatalogOption.load(arguments) {
        case .success(let loaded):
            catalog = loaded
        case .failure(let error):
            let catalogFiles = Array(Set(error.diagnostics.compactMap(\.file))).sorted()
            // Exit 2 whether or not the report could be written.
            _ = writeJUnit(JUnitReport(results: [], invalidFiles: catalogFiles, diagnostics: error.diagnostics, display: Self.display))
            // A CI reading --json gets the findings as JSON too.
            if arguments.flag("json") {
                out.line(
                    JSONWriter.pretty([
                        "results": [], "invalid": [], "diagnostics": .array(error.diagnostics.map(\.jsonValue)), "passed": 0, "failed": 0,
                    ]))
            } else {
                MatterflowTool.report(error.diagnostics, to: err)
            }
            return ExitCode.invalidInput
        }
        let loader = FixtureLoader(catalog: catalog)
        let filter = arguments.value("filter")
        func selected(_ texts: String...) -> Bool {
            guard let filter, !filter.isEmpty else { return true }
            return texts.contains { $0.localizedCaseInsensitiveContains(filter) }
        }
        let (files, missing) = loader.discover(arguments.positionals)
        var diagnostics = missing
        var invalidFiles = missing.compactMap(\.file)
        var fixtures: [Fixture] = []
        var named: [String: String] = [:]
        for file in files {
            let outcome = loader.load(path: file)
            if let fixture = outcome.fixture {
                guard selected(fixture.name, file) else { continue }
                fixtures.append(fixture)
                diagnostics += outcome.diagnostics
                if let first = named[fixture.name] {
                    diagnostics.append(
                        Diagnostic(
                            severity: .warning, code: FixtureDiagnosticCode.duplicateFixtureName,
                            message: "fixture \"\(fixture.name)\" has the name of \(Self.display(first)) too; give each fixture its own name, so that their results can be told apart",
                            file: file, pointer: "/fixture", location: fixture.sourceMap.locations().location(of: "/fixture")))
                } else {
                    named[fixture.name] = file
                }
            } else {
                // Whatever its name, an invalid fixture is reported: --filter cannot tell whether it was meant.
                diagnostics += outcome.diagnostics
                invalidFiles.append(file)
            }
        }
        // A workflow's own findings come with every fixture that runs it: each is reported once.
        var reported = Set<String>()
        diagnostics = diagnostics.filter { reported.insert($0.description).inserted }
        let results = await FixtureRunner(engine: WorkflowEngine(catalog: catalog)).run(fixtures)
        let passed = results.filter(\.passed).count
        let failed = results.count - passed + invalidFiles.count
        let coverage = arguments.flag("coverage") || minimumCoverage != nil ? CoverageReport(results: results) : nil
        // The workflows covered less than --min-coverage asks, as the report names them; judged only when every
        // fixture passed, since only passing fixtures count as coverage. In whole numbers: 29 of 50 is 58%.
        let below: [CoverageReport.WorkflowCoverage] = minimumCoverage.map { minimum -> [CoverageReport.WorkflowCoverage] in
            guard failed == 0 else { return [] }
            return coverage?.workflows.filter { workflow in
                workflow.coveredStates.count * 100 < minimum * workflow.states.count
                    || workflow.coveredTransitions.count * 100 < minimum * workflow.transitions.count
            } ?? []
        } ?? []
        if arguments.flag("json") {
            var report = JSONObject()
            report["results"] = .array(results.map(\.jsonValue))
            // As the diagnostics name them, so that a script can join the two.
            report["invalid"] = .array(invalidFiles.map { .string($0) })
            report["diagnostics"] = .array(diagnostics.map(\.jsonValue))
            if let coverage { report["coverage"] = coverage.jsonValue }
            if let minimumCoverage {
                report["minimumCoverage"] = [
                    "percent": .int(minimumCoverage), "met": .bool(below.isEmpty), "below": .array(below.map { .string($0.file) }),
                ]
            }
            report["passed"] = .int(passed)
            report["failed"] = .int(failed)
            out.line(JSONWriter.pretty(.object(report)))
        } else {
            MatterflowTool.report(diagnostics, to: err)
            // In the order of the files: missing ones first, as given, then each file's line where it was found.
            var resultsByFile: [String: [FixtureResult]] = [:]
            for result in results { resultsByFile[result.fixture.file, default: []].append(result) }
            let invalid = Set(invalidFiles)
            for file in missing.compactMap(\.file) { out.line("INVALID  \(Self.display(file))") }
            for file in files {
                if invalid.contains(file) { out.line("INVALID  \(Self.display(file))") }
                for result in resultsByFile.removeValue(forKey: file) ?? [] { TestReportText.write(result, to: out) }
            }
            for result in results where resultsByFile[result.fixture.file] != nil { TestReportText.write(result, to: out) }
            if let coverage { TestReportText.write(coverage, to: out, glyphs: environment.glyphs) }

            out.line("\(passed) passed, \(failed) failed")
        }
        let shortfalls = below.map { workflow in
            (file: workflow.file,
             message: "[\(workflow.name)] is covered less than --min-coverage \(minimumCoverage ?? 0)%: states \(TestReportText.percent(workflow.stateRatio)), transitions \(TestReportText.percent(workflow.transitionRatio)); add fixtures for what the coverage report lists as not exercised")
        }
        for shortfall in shortfalls { err.line("error: \(Self.display(shortfall.file)) \(shortfall.message)") }
        let written = writeJUnit(
            JUnitReport(results: results, invalidFiles: invalidFiles, diagnostics: diagnostics, display: Self.display, coverageShortfalls: shortfalls))
        if diagnostics.hasErrors { return ExitCode.invalidInput }
        guard written else { return ExitCode.failure }
        if results.isEmpty && invalidFiles.isEmpty {
            err.line(filter.map { "no fixture matches --filter '\($0)'" } ?? "no fixtures to run")
            return ExitCode.failure
        }
        return failed == 0 && below.isEmpty ? ExitCode.success : ExitCode.failure
    }

    /// Writes `report` to the `--junit` file, when one is given, replacing it whole (a reader never sees half a
    /// report); false, after saying why on stderr, when it could not be written.
    private func writeJUnit(_ report: @autoclosure () -> JUnitReport) -> Bool {
        guard let path = arguments.value("junit") else { return true }
        guard let problem = ReportFile.write(report().xml, to: path, what: "JUnit report") else { return true }
        environment.standardError.line("error[\(ReportFile.notWrittenCode)]: \(problem)")
        return false
    }

    /// A path relative to the current directory when it is inside it.
    static func display(_ path: String) -> String {
        let current = FileManager.default.currentDirectoryPath
        let prefix = current.hasSuffix("/") ? current : current + "/"
        return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
}

/// The text report of `matterflow test`.
enum TestReportText {
    static func write(_ result: FixtureResult, to out: any TextSink) {
        guard !result.passed else {
            out.line("PASS  \(result.fixture.name)")
            return
        }
        out.line("FAIL  \(result.fixture.name)")
        out.line("      \(TestCommand.display(result.fixture.file))")
        for mismatch in result.mismatches {
            // Where the expectation was written comes first, as a compiler names a line, for editors to jump to.
            let place = mismatch.location.map { "\(TestCommand.display(result.fixture.file)):\($0): " } ?? ""
            for (number, line) in mismatch.description.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                out.line("      " + (number == 0 ? place : "") + line)
            }
        }
    }

    /// `glyphs`: how the arrows reach the person's terminal (``ToolEnvironment/glyphs(_:)``).
    static func write(_ report: CoverageReport, to out: any TextSink, glyphs: (String) -> String = { $0 }) {
        out.line("Coverage (each error, timeout, cancel and event edge counts as a transition of its own):")
        for workflow in report.workflows {
            let states =
                "states \(workflow.coveredStates.count)/\(workflow.states.count) (\(percent(workflow.stateRatio)))"
            let transitions =
                "transitions \(workflow.coveredTransitions.count)/\(workflow.transitions.count) (\(percent(workflow.transitionRatio)))"
            out.line("  \(TestCommand.display(workflow.file)) [\(workflow.name)]: \(states), \(transitions)")
            for state in workflow.missedStates { out.line("    not exercised: state \(state)") }
            for edge in workflow.missedTransitions {
                out.line(glyphs("    not exercised: \(edge.from) → \(edge.to) [\(edge.kind)]"))
            }
            if !workflow.uncountedTransitions.isEmpty {
                let count = workflow.uncountedTransitions.count
                out.line(
                    "    not counted: \(count) cancel edge\(count == 1 ? "" : "s") of states only the (shielded) cancel path reaches"
                )
            }
        }
    }

    static func percent(_ ratio: Double) -> String {
        NumberRange.format((ratio * 1000).rounded() / 10) + "%"
    }
}
