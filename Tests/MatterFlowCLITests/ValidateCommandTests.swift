import Foundation
import MatterFlow
import Testing

/// `matterflow validate FILE...`: compiler-style diagnostics on stderr, `--json` on stdout, exit 0 or 2.
@Suite("matterflow validate")
struct ValidateCommandTests {
    @Test("every shipped workflow validates, together and one by one")
    func shippedWorkflows() async throws {
        let files = try Repository.shippedWorkflows()
        #expect(files.count >= 8)
        for name in ["prepare", "add-device", "commission", "rooms", "configure", "cancel", "complete", "commission-device"] {
            #expect(files.contains(Repository.workflow(name)), "Workflows/\(name).json is shipped")
        }
        let all = await matterflow(["validate"] + files)
        #expect(all.code == 0, "\(all.stderr)")
        #expect(all.stdout == "")
        #expect(!all.stderr.contains("error["))
        #expect(all.stderrLines.last?.hasPrefix("\(files.count) files valid") == true)
        for file in files {
            let one = await matterflow("validate", file)
            #expect(one.code == 0, "\(file): \(one.stderr)")
            #expect(!one.stderr.contains("error["), "\(file)")
        }
    }

    @Test(
        "a home description, fixture or catalog given as a workflow is one notAWorkflow error at the file",
        arguments: [
            ("Examples/default-home.json", "--home"),
            ("Workflows/fixtures/commission/no-session.fixture.json", "matterflow test"),
            ("Examples/custom-operations/firmware.catalog.json", "--catalog"),
        ])
    func otherFileKinds(file: String, hint: String) async throws {
        let path = Repository.root + "/" + file
        for command in ["validate", "run"] {
            let run = await matterflow(command, path)
            #expect(run.code == 2, "\(command): \(run.stderr)")
            #expect(run.stdout == "")
            let errors = run.stderrLines.filter { $0.contains("error[") }
            #expect(errors.count == 1, "\(command): \(run.stderr)")
            #expect(errors.first?.hasPrefix("\(path):1:1: error[notAWorkflow]: this looks like ") == true, "\(run.stderr)")
            #expect(errors.first?.contains(hint) == true, "\(run.stderr)")
        }
    }

    @Test("a file whose errors kept it from the proofs over every path says so, and how many files; one the proofs found errors in, or one that could not be read, does not")
    func unprovedFilesAreSaid() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let unreachable = try directory.write(
            #"{"workflow": "u", "version": 1, "start": "a", "states": {"a": {"type": "succeed"}, "b": {"type": "succeed"}}}"#, to: "u.json")
        let leaking = try directory.write(
            #"{"workflow": "l", "version": 1, "start": "prepare", "states": {"prepare": {"type": "action", "operation": "prepareCommissioning", "next": "done"}, "done": {"type": "succeed"}}}"#,
            to: "l.json")
        let broken = try directory.write(#"{"workflow": "#, to: "b.json")
        let note = "was not proved over every path (sessionLeak, operationOutOfOrder, unsafeRetry, ...: docs/workflow-language.md section 18)"
        let one = await matterflow("validate", unreachable)
        #expect(one.code == 2)
        #expect(one.stderr.hasSuffix("note: \(unreachable) \(note), which needs a file without other errors; validate again once its errors are fixed\n"), "\(one.stderr)")
        for path in [leaking, broken] {
            let proved = await matterflow("validate", path)
            #expect(proved.code == 2)
            #expect(!proved.stderr.contains("note: "), "\(proved.stderr)")
        }
        let unknown = try directory.write(
            #"{"workflow": "v", "version": 1, "start": "a", "states": {"a": {"type": "succeed", "bogus": 1}}}"#, to: "v.json")
        let two = await matterflow("validate", unreachable, leaking, broken, unknown)
        #expect(two.stderr.contains("note: \(unreachable), \(unknown) were not proved over every path"), "\(two.stderr)")
        #expect(two.stderr.hasSuffix("validate again once their errors are fixed\n"), "\(two.stderr)")
    }

    @Test("every code the proofs report (Sources/MatterFlow/Verification) is a proof's, so that the note is not said of a proved file")
    func proofCodesAreListed() throws {
        let directory = Repository.root + "/Sources/MatterFlow/Verification"
        var reported = Set<String>()
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: directory + "/" + file, encoding: .utf8)
            for match in text.matches(of: /(?:WorkflowDiagnosticCode|[^A-Za-z]Code)\.([a-zA-Z]+)/) { reported.insert(String(match.1)) }
        }
        // Generic codes the proofs share with the checks before them, about values they read.
        let shared: Set<String> = ["invalidValue", "missingArgument"]
        let missing = reported.subtracting(shared).subtracting(WorkflowDiagnosticCode.proofs)
        #expect(reported.contains("sessionLeak"), "the scan finds the proofs' codes: \(reported)")
        #expect(missing.isEmpty, "codes of proofs missing from WorkflowDiagnosticCode.proofs: \(missing.sorted())")
    }

    @Test("--strict fails a check with warnings (exit 2) that passes without it; files without findings pass either way")
    func strictFailsOnWarnings() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Retrying an invalid payload only delays the failure: a warning, not an error.
        let file = try directory.write(
            #"""
            {"workflow": "w", "version": 1, "start": "commission",
             "inputs": {"code": {"type": "onboardingPayload", "required": true}},
             "states": {
              "commission": {"type": "action", "operation": "commissionDevice",
                             "arguments": {"onboardingPayload": "${input.code}", "commissioningID": "c"},
                             "retry": [{"errors": ["invalidPayload"], "maxRetries": 2}],
                             "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#, to: "w.json")
        let lenient = await matterflow("validate", file)
        #expect(lenient.code == 0, "\(lenient.stderr)")
        #expect(lenient.stderr.contains("warning["), "\(lenient.stderr)")
        let strict = await matterflow("validate", file, "--strict")
        #expect(strict.code == 2, "\(strict.stderr)")
        #expect(strict.stderr.hasSuffix("--strict: warnings fail the check (exit 2)\n"), "\(strict.stderr)")
        let strictJSON = await matterflow("validate", file, "--strict", "--json")
        #expect(strictJSON.code == 2)
        #expect(await matterflow("validate", Repository.workflow("rooms"), "--strict").code == 0)
    }

    @Test("a directory stands for its *.json files (not its subdirectories'); one without any is an error")
    func directories() async throws {
        let files = try Repository.shippedWorkflows()
        let shipped = await matterflow("validate", Repository.root + "/Workflows")
        #expect(shipped.code == 0, "\(shipped.stderr)")
        #expect(shipped.stderrLines.last == "\(files.count) files valid", "\(shipped.stderr)")
        let json = await matterflow("validate", "--json", Repository.root + "/Workflows/")
        #expect(json.code == 0 && json.stdout == "[]\n", "\(json.stdout)\(json.stderr)")

        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.file("nested.json"), withIntermediateDirectories: true)
        let empty = await matterflow("validate", directory.path)
        #expect(empty.code == 2)
        #expect(
            empty.stderr.contains("\(directory.path): error[fileNotFound]: this directory holds no workflow file (*.json)"), "\(empty.stderr)")
        // Fixtures and catalogs beside a workflow are not taken for workflows.
        try FileManager.default.copyItem(atPath: Repository.workflow("cancel"), toPath: directory.file("cancel.json"))
        try directory.write("{}", to: "cancel.fixture.json")
        try directory.write("{}", to: "extra.catalog.json")
        let mixed = await matterflow("validate", directory.path)
        #expect(mixed.code == 0, "\(mixed.stderr)")
        #expect(mixed.stderrLines.last == "1 file valid", "\(mixed.stderr)")
    }

    @Test("a sub-workflow's finding is reported once when the sub-workflow is also given, by another spelling of its path")
    func findingOnceWhateverTheSpelling() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        _ = try directory.write(
            #"{"workflow": "outer", "version": 1, "start": "inner", "states": {"inner": {"type": "workflow", "path": "inner.json", "next": "done"}, "done": {"type": "succeed"}}}"#,
            to: "outer.json")
        _ = try directory.write(
            #"{"workflow": "inner", "version": 1, "start": "first", "states": {"first": {"type": "assign", "next": "nowhere"}}}"#,
            to: "inner.json")
        let run = await matterflow("validate", directory.file("outer.json"), directory.path + "/./inner.json")
        #expect(run.code == 2)
        let undefined = run.stderrLines.filter { $0.contains("error[undefinedState]") }
        #expect(undefined.count == 1, "\(run.stderr)")
        // A file given twice is one file, checked and counted once.
        let valid = try directory.write(#"{"workflow": "v", "version": 1, "start": "done", "states": {"done": {"type": "succeed"}}}"#, to: "v.json")
        #expect(await matterflow("validate", valid, directory.path + "/./v.json").stderr == "1 file valid\n")
    }

    @Test("many findings of one code in one file: the first 20 are printed, then one line counts the rest; --json has them all")
    func repeatedFindingsAreCounted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let states = (0..<30).map { #""s\#($0)": {"type": "assign", "next": "nowhere\#($0)"}"# }.joined(separator: ", ")
        let file = try directory.write(
            #"{"workflow": "w", "version": 1, "start": "s0", "states": {\#(states), "end": {"type": "succeed"}}}"#, to: "many.json")
        let text = await matterflow("validate", file)
        #expect(text.code == 2)
        #expect(text.stderrLines.filter { $0.contains("error[undefinedState]") }.count == 21, "\(text.stderr)")
        #expect(text.stderr.contains("\(file): error[undefinedState]: 10 more like the 20 above, not shown\n"), "\(text.stderr)")
        let json = await matterflow("validate", "--json", file)
        let findings = try #require(try parseJSON(json.stdout) as? [[String: Any]])
        #expect(findings.filter { $0["code"] as? String == "undefinedState" }.count == 30)
    }

    @Test("--json on valid files prints an empty array")
    func jsonForValidFiles() async throws {
        let run = await matterflow(["validate", "--json"] + (try Repository.shippedWorkflows()))
        #expect(run.code == 0)
        #expect(run.stderr == "")
        let findings = try #require(try parseJSON(run.stdout) as? [Any])
        #expect(findings.isEmpty)
    }

    /// A copy of the shipped workflows in which commission-device.json has a misspelled state reference, a
    /// duplicated key and an extra unreachable state, and the positions where each should be reported.
    struct BrokenCopy {
        let directory: TemporaryDirectory
        let path: String
        /// (code, line, column) of each planted mistake, in file order.
        let expected: [(code: String, line: Int, column: Int)]

        init() throws {
            directory = try TemporaryDirectory()
            for file in try Repository.shippedWorkflows() {
                let name = URL(fileURLWithPath: file).lastPathComponent
                try directory.write(try String(contentsOfFile: file, encoding: .utf8), to: name)
            }
            var text = try String(contentsOfFile: Repository.workflow("commission-device"), encoding: .utf8)
            func replaceOnce(_ old: String, _ new: String) throws {
                let parts = text.components(separatedBy: old)
                try #require(parts.count == 2, "expected exactly one \(old) in commission-device.json")
                text = parts.joined(separator: new)
            }
            // A duplicated key (same value, so only the duplicate itself is wrong).
            try replaceOnce("  \"start\": \"prepare\",\n", "  \"start\": \"prepare\",\n  \"start\": \"prepare\",\n")
            // An extra state nothing leads to.
            try replaceOnce("  \"states\": {\n", "  \"states\": {\n    \"orphan\": { \"type\": \"succeed\", \"output\": {} },\n")
            // A misspelled reference to a state that stays reachable another way (cancel's error route).
            try replaceOnce("\"next\": \"cancelled\",", "\"next\": \"canceled\",")
            path = try directory.write(text, to: "commission-device.json")

            let lines = text.components(separatedBy: "\n")
            func position(of needle: String, occurrence: Int = 1) throws -> (line: Int, column: Int) {
                var seen = 0
                for (index, line) in lines.enumerated() {
                    guard let range = line.range(of: needle) else { continue }
                    seen += 1
                    if seen == occurrence { return (index + 1, line.distance(from: line.startIndex, to: range.lowerBound) + 1) }
                }
                throw CocoaError(.fileReadCorruptFile)
            }
            let duplicate = try position(of: "\"start\"", occurrence: 2)
            let orphan = try position(of: "\"orphan\"")
            let misspelled = try position(of: "\"canceled\"")
            expected = [
                ("duplicateKey", duplicate.line, duplicate.column),
                ("unreachableState", orphan.line, orphan.column),
                ("undefinedState", misspelled.line, misspelled.column),
            ]
        }
    }

    @Test("three planted mistakes give exactly three errors, each with path:line:col")
    func brokenCopy() async throws {
        let broken = try BrokenCopy()
        defer { broken.directory.remove() }
        let run = await matterflow("validate", broken.path)
        #expect(run.code == 2)
        #expect(run.stdout == "")
        let errorLines = run.stderrLines.filter { $0.contains(": error[") }
        #expect(errorLines.count == 3, "\(run.stderr)")
        #expect(run.stderrLines.count == 5, "three diagnostics, a summary and the note that the file was not proved: \(run.stderr)")
        #expect(run.stderrLines.dropLast().last == "3 errors, 0 warnings")
        #expect(run.stderrLines.last?.hasPrefix("note: \(broken.path) was not proved over every path") == true, "\(run.stderr)")
        for (line, expected) in zip(errorLines, broken.expected) {
            #expect(line.hasPrefix("\(broken.path):\(expected.line):\(expected.column): error[\(expected.code)]: "), "\(line)")
        }
        #expect(errorLines.first { $0.contains("error[undefinedState]") }?.contains("did you mean \"cancelled\"?") == true)
        #expect(errorLines.first { $0.contains("error[unreachableState]") }?.contains("\"orphan\"") == true)
        #expect(errorLines.first { $0.contains("error[duplicateKey]") }?.contains("\"start\"") == true)
    }

    @Test("--json reports the same findings with code, line and column")
    func brokenCopyAsJSON() async throws {
        let broken = try BrokenCopy()
        defer { broken.directory.remove() }
        let run = await matterflow("validate", "--json", broken.path)
        #expect(run.code == 2)
        #expect(run.stderr == "")
        let findings = try #require(try parseJSON(run.stdout) as? [[String: Any]])
        #expect(findings.count == 3)
        for (finding, expected) in zip(findings, broken.expected) {
            #expect(finding["code"] as? String == expected.code)
            #expect(finding["line"] as? Int == expected.line)
            #expect(finding["column"] as? Int == expected.column)
            #expect(finding["severity"] as? String == "error")
            #expect(finding["file"] as? String == broken.path)
            #expect((finding["pointer"] as? String)?.hasPrefix("/") == true)
            #expect((finding["message"] as? String)?.isEmpty == false)
        }
    }

    @Test("a missing file exits 2 and names the file")
    func missingFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = directory.file("no-such-workflow.json")
        let run = await matterflow("validate", missing)
        #expect(run.code == 2)
        #expect(run.stdout == "")
        #expect(run.stderrLines.first?.hasPrefix("\(missing): error[fileNotFound]: ") == true, "\(run.stderr)")
        #expect(run.stderrLines.last == "1 error, 0 warnings")
    }

    @Test("a missing file among valid ones still fails the whole command")
    func missingAmongValid() async throws {
        let missing = "/nonexistent-\(UUID().uuidString)/x.json"
        let run = await matterflow("validate", Repository.workflow("cancel"), missing)
        #expect(run.code == 2)
        #expect(run.stderr.contains(missing))
    }

    @Test("a syntax error is reported at its line and column")
    func syntaxError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = try directory.write("{\n  \"workflow\": \"x\"\n  \"version\": 1\n}\n", to: "broken.json")
        let run = await matterflow("validate", path)
        #expect(run.code == 2)
        #expect(run.stderrLines.first?.hasPrefix("\(path):3:3: error[syntaxError]: ") == true, "\(run.stderr)")
    }

    @Test("a truncated file is reported where its text ends, not at its first character")
    func truncatedFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let whole = try String(contentsOfFile: Repository.workflow("prepare"), encoding: .utf8)
        // Drops the closing brace and the final line break, as `head -c -2` does: the text ends with the line
        // before, and a line break.
        let truncated = String(whole.utf8.dropLast(2))!
        let lines = truncated.split(separator: "\n")
        let path = try directory.write(truncated, to: "truncated.json")
        let run = await matterflow("validate", path)
        #expect(run.code == 2)
        // Just after the last character of the last line.
        let expected = "\(path):\(lines.count):\(lines.last!.count + 1): error[syntaxError]: "
        #expect(run.stderrLines.first?.hasPrefix(expected) == true, "\(run.stderr)")

        let unclosed = try directory.write(#"{"workflow": "x"#, to: "unclosed.json")
        let short = await matterflow("validate", unclosed)
        #expect(short.code == 2)
        #expect(short.stderrLines.first?.hasPrefix("\(unclosed):1:16: error[syntaxError]: ") == true, "\(short.stderr)")
    }

    @Test("a path holding line breaks cannot fake a diagnostic line; --json keeps the path exactly")
    func pathWithLineBreaks() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let name = "broken\r\nforged.json:1:1: error[fake]: planted.json"
        let path = try directory.write("{\n  \"workflow\": \"x\"\n  \"version\": 1\n}\n", to: name)
        let missing = directory.file("gone\nforged.json:1:1: error[fake]: planted.json")
        let shown = directory.path + "/broken\\u000d\\u000aforged.json:1:1: error[fake]: planted.json"
        let shownMissing = directory.path + "/gone\\u000aforged.json:1:1: error[fake]: planted.json"
        let run = await matterflow("validate", path, missing)
        #expect(run.code == 2)
        #expect(run.stderrLines.count == 3, "two diagnostics and a summary, one line each: \(run.stderr)")
        #expect(run.stderrLines.first?.hasPrefix("\(shown):3:3: error[syntaxError]: ") == true, "\(run.stderr)")
        #expect(run.stderrLines.dropFirst().first?.hasPrefix("\(shownMissing): error[fileNotFound]: ") == true, "\(run.stderr)")
        #expect(run.stderrLines.last == "2 errors, 0 warnings")
        #expect(!run.stderr.contains("\r"))
        #expect(!run.stderrLines.contains { $0.hasPrefix("forged.json") }, "\(run.stderr)")
        let json = await matterflow("validate", "--json", path, missing)
        let findings = try #require(try parseJSON(json.stdout) as? [[String: Any]])
        #expect(findings.map { $0["file"] as? String } == [path, missing])
    }
}
