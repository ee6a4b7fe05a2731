import MatterFlowFixtures
import MatterFlowJSON

/// `matterflow test --junit FILE`: the fixtures' results as JUnit XML, the report CI systems (Jenkins, GitLab,
/// GitHub Actions' test reporters, Azure Pipelines) read to show each fixture as a test.
///
/// One `<testsuite>` per workflow the fixtures run (named by its file), one `<testcase>` per fixture (`classname` its
/// fixture file, `file` too), a `<failure>` per fixture that failed (its message the first mismatch, its text every
/// mismatch as the text report prints them), and a `<testsuite name="invalid files">` with an `<error>` per
/// invalid fixture or catalog file (its findings), and a `<testsuite name="coverage">` with a `<failure>` per workflow
/// covered less than `--min-coverage` asks. No `time` is given: fixtures run on virtual time, and the seconds a fixture
/// simulated are no measure of the job. Text is escaped for XML 1.0, which cannot hold most control characters at
/// all: those are written as `\uXXXX`.
struct JUnitReport {
    var results: [FixtureResult]
    var invalidFiles: [String]
    var diagnostics: [Diagnostic]
    /// How a path is shown: relative to the working directory when inside it, as the text report shows it.
    var display: (String) -> String
    /// The workflows covered less than `--min-coverage` asks, each with what the text report says of it: a
    /// `<testsuite name="coverage">` with a failing `<testcase>` each, so that CI shows why the job failed.
    var coverageShortfalls: [(file: String, message: String)] = []

    /// The whole document.
    var xml: String {
        var suites: [(workflow: String, results: [FixtureResult])] = []
        for result in results {
            let workflow = display(result.fixture.workflowFile)
            if let index = suites.firstIndex(where: { $0.workflow == workflow }) {
                suites[index].results.append(result)
            } else {
                suites.append((workflow, [result]))
            }
        }
        let failures = results.filter { !$0.passed }.count + coverageShortfalls.count
        let tests = results.count + invalidFiles.count + coverageShortfalls.count
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="matterflow test" tests="\#(tests)" failures="\#(failures)" errors="\#(invalidFiles.count)">"#,
        ]
        for suite in suites {
            let failed = suite.results.filter { !$0.passed }.count
            lines.append(#"  <testsuite name="\#(Self.escaped(suite.workflow))" tests="\#(suite.results.count)" failures="\#(failed)" errors="0">"#)
            for result in suite.results { lines += testcase(result) }
            lines.append("  </testsuite>")
        }
        if !invalidFiles.isEmpty {
            lines.append(#"  <testsuite name="invalid files" tests="\#(invalidFiles.count)" failures="0" errors="\#(invalidFiles.count)">"#)
            for file in invalidFiles {
                let shown = Self.escaped(display(file))
                let findings = diagnostics.filter { $0.file == file && $0.severity == .error }
                let first = findings.first.map { "\($0.code): \($0.message)" } ?? "the file is invalid"
                lines.append(#"    <testcase name="\#(shown)" classname="\#(shown)" file="\#(shown)">"#)
                lines.append(#"      <error type="invalidFile" message="\#(Self.escaped(first))">\#(Self.escaped(findings.map(\.description).joined(separator: "\n")))</error>"#)
                lines.append("    </testcase>")
            }
            lines.append("  </testsuite>")
        }
        if !coverageShortfalls.isEmpty {
            lines.append(#"  <testsuite name="coverage" tests="\#(coverageShortfalls.count)" failures="\#(coverageShortfalls.count)" errors="0">"#)
            for shortfall in coverageShortfalls {
                let shown = Self.escaped(display(shortfall.file))
                lines.append(#"    <testcase name="\#(shown)" classname="coverage" file="\#(shown)">"#)
                lines.append(#"      <failure type="coverage" message="\#(Self.escaped(shortfall.message))"/>"#)
                lines.append("    </testcase>")
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    private func testcase(_ result: FixtureResult) -> [String] {
        let file = Self.escaped(display(result.fixture.file))
        let opening = #"    <testcase name="\#(Self.escaped(result.fixture.name))" classname="\#(file)" file="\#(file)""#
        guard !result.passed else { return [opening + "/>"] }
        let described = result.mismatches.map { mismatch in
            (mismatch.location.map { "\(display(result.fixture.file)):\($0): " } ?? "") + mismatch.description
        }
        let first = result.mismatches.first.map { "\($0.subject): expected \($0.expected), got \($0.actual)" }
            ?? "the run did not take place"
        return [
            opening + ">",
            #"      <failure type="mismatch" message="\#(Self.escaped(first))">\#(Self.escaped(described.joined(separator: "\n")))</failure>"#,
            "    </testcase>",
        ]
    }

    /// `text` as XML 1.0 character data or an attribute value: the five markup characters as entities, and each
    /// character XML 1.0 cannot hold (controls but tab, LF and CR; U+FFFE, U+FFFF) as `\uXXXX`; in an attribute,
    /// tab, LF and CR as character references, which attribute-value normalisation would otherwise turn into spaces.
    static func escaped(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t": out += "&#9;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += UnicodeEscaping.escaping(String(scalar)) { _ in true }
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
