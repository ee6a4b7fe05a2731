import Foundation
import MatterFlow
import Testing

/// Input contracts of the command line: an input given twice, a state directory that cannot hold the state, a
/// workflow path that is a symbolic link loop.
@Suite("Input contracts")
struct InputContractTests {
    let workflow = Repository.workflow("commission-device")

    // MARK: - Repeated --input

    @Test("an input given twice by --input is a usage error naming it")
    func repeatedInput() async {
        let run = await matterflow(
            ["run", workflow, "--trace", "none", "--input", "deviceName=Lamp", "--input", "deviceName=Desk Lamp"]
                + ["--input", "onboardingPayload=\(Payloads.specQR)"])
        #expect(run.code == 64)
        #expect(run.stdout.isEmpty, "nothing ran")
        #expect(run.stderr.contains("--input deviceName is given more than once; give each input once"), "\(run.stderr)")
    }

    @Test("--input that is not NAME=VALUE is a usage error, for run, submit and recover alike")
    func malformedPair() async {
        for arguments in [["run", workflow], ["submit", workflow, "--store", "host=/nowhere dbname=x"], ["recover", "--journal", "/nowhere", "--resume"]] {
            let run = await matterflow(arguments + ["--input", "deviceName"])
            #expect(run.code == 64, "\(arguments[0]): \(run.stderr)")
            #expect(run.stderr.contains("--input must be NAME=VALUE; one of them has no NAME="), "\(run.stderr)")
        }
        #expect(await matterflow(["run", workflow, "--input", "=Lamp"]).code == 64)
    }

    @Test("an empty --structure or --worker-id names nothing: a usage error, before the store or hub is reached")
    func emptyIdentifiers() async {
        for arguments in [
            ["submit", workflow, "--store", "host=/nowhere dbname=x", "--structure", ""],
            ["worker", "--store", "host=/nowhere dbname=x", "--worker-id", ""],
            ["run", workflow, "--hub", "/nowhere/hub", "--structure", ""],
        ] {
            let run = await matterflow(arguments)
            #expect(run.code == 64, "\(arguments[0]): \(run.stderr)")
            #expect(run.stderr.contains("cannot be empty"), "\(run.stderr)")
        }
        let drain = await matterflow(["worker", "--store", "host=/nowhere dbname=x", "--drain", "0"])
        #expect(drain.code == 64 && drain.stderr.contains("--drain must be a whole number from 1 to 3600"), "\(drain.stderr)")
    }

    @Test("an empty path option names no file: a usage error, before anything is written (`--journal ''` wrote into /)")
    func emptyPaths() async {
        for arguments in [
            ["run", workflow, "--journal", ""], ["run", workflow, "--state", ""], ["run", workflow, "--home", ""],
            ["runs", "--journal", ""], ["recover", "--journal", ""], ["worker", "--store", "host=/nowhere dbname=x", "--secrets", ""],
        ] {
            let run = await matterflow(arguments)
            #expect(run.code == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.contains("cannot be empty; name a"), "\(run.stderr)")
        }
    }

    @Test("a malformed --input or --answer that may hold a secret is refused without quoting it")
    func malformedPairHidesItsValue() async {
        for (option, text) in [
            ("input", "onboardingPayload:\(Payloads.specQR)"), ("input", Payloads.specQR), ("input", "=\(Payloads.specQR)"),
            ("answer", "20202021"), ("answer", "hunter2"), ("input", "sk_live_abc123"),
        ] {
            let run = await matterflow(["run", workflow, "--\(option)", text] + (option == "answer" ? commissionInputs() : []))
            #expect(run.code == 64, "\(run.stderr)")
            #expect(run.stderr.contains("--\(option) must be NAME=VALUE; one of them has no NAME="), "\(run.stderr)")
            #expect(!run.stderr.contains(text.trimmingCharacters(in: ["="])), "the value was shown: \(run.stderr)")
            #expect(!run.stderr.contains("Y.K9042C00KA0648G00"), "\(run.stderr)")
        }
    }

    @Test("an integer --input is read as JSON reads it: 30.0 is 30, a whole number past 64 bits is out of range, 30.5 is no integer")
    func integerText() async {
        let epskc = Repository.workflow("epskc-share")
        let home = Repository.root + "/Examples/border-router-home.json"
        let whole = await matterflowVirtual(["run", epskc, "--home", home, "--trace", "none", "--input", "durationSeconds=30.0"])
        #expect(whole.code == 0, "\(whole.stderr)")
        #expect((try? whole.result()["output"] as? [String: Any])??["validDurationSeconds"] as? Int == 30, "\(whole.stdout)")
        let huge = await matterflowVirtual(["run", epskc, "--home", home, "--trace", "none", "--input", "durationSeconds=99999999999999999999"])
        #expect(huge.code == 2)
        #expect(huge.stderr.contains("error[numberOutOfRange]") && huge.stderr.contains("durationSeconds"), "\(huge.stderr)")
        let fraction = await matterflowVirtual(["run", epskc, "--home", home, "--trace", "none", "--input", "durationSeconds=30.5"])
        #expect(fraction.code == 2)
        #expect(fraction.stderr.contains("error[wrongType]") && fraction.stderr.contains("must be an integer"), "\(fraction.stderr)")
        // Not JSON numbers, though Swift's Double(_:) reads them.
        for text in ["0x10", "inf", "nan"] {
            let odd = await matterflowVirtual(["run", epskc, "--home", home, "--trace", "none", "--input", "durationSeconds=\(text)"])
            #expect(odd.code == 2 && odd.stderr.contains("error[wrongType]"), "\(text): \(odd.stderr)")
        }
        // Decimal spellings JSON does not allow: refused, naming the JSON spelling.
        for (text, spelling) in [("+30", "30"), ("030", "30"), ("30.", "30"), (".3e2", "0.3e2")] {
            let odd = await matterflowVirtual(["run", epskc, "--home", home, "--trace", "none", "--input", "durationSeconds=\(text)"])
            #expect(odd.code == 2, "\(text): \(odd.stderr)")
            #expect(
                odd.stderr.contains(
                    #"error[wrongType]: /durationSeconds: input "durationSeconds" must be an integer written as JSON writes one, got "\#(text)"; write "\#(spelling)""#),
                "\(text): \(odd.stderr)")
        }
    }

    @Test("a whole number past 64 bits is no integer anywhere: in an --inputs file, or reaching an integer argument from a number input")
    func integersPast64Bits() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let epskc = Repository.workflow("epskc-share")
        let home = Repository.root + "/Examples/border-router-home.json"
        let inputs = try directory.write(#"{"durationSeconds": 1e19}"#, to: "inputs.json")
        let filed = await matterflowVirtual(["run", epskc, "--home", home, "--trace", "none", "--inputs", inputs])
        #expect(filed.code == 2)
        #expect(filed.stderr.contains(#"input "durationSeconds" must be an integer, got integer beyond 64 bits"#), "\(filed.stderr)")
        // A number input may hold 1e19; the operation's integer argument may not, and says so rather than drop it.
        let text = try String(contentsOfFile: epskc, encoding: .utf8)
            .replacingOccurrences(
                of: #""durationSeconds": { "type": "integer", "minimum": 0, "maximum": 600"#, with: #""durationSeconds": { "type": "number""#)
            .replacingOccurrences(of: #""path": "find-border-router.json""#, with: #""path": "\#(Repository.root)/Workflows/find-border-router.json""#)
        let numbered = try directory.write(text, to: "epskc-number.json")
        for value in ["1e19", "-1e19", "1e300"] {
            let run = await matterflowVirtual(["run", numbered, "--home", home, "--trace", "none", "--input", "durationSeconds=\(value)"])
            #expect(run.code == 1, "\(value): \(run.stderr)")
            let error = try run.resultError()
            #expect(error["cause"] as? String == "invalidArgumentValue", "\(value): \(error)")
            #expect((error["message"] as? String)?.contains("got integer beyond 64 bits") == true, "\(value): \(error)")
        }
    }

    @Test("every input problem is reported at once: text not of its type (with where in the value it fails), out of range, not in the list, unknown")
    func everyInputProblemAtOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try directory.write(
            #"{"workflow": "w", "version": 1, "inputs": {"x": {"type": "array", "default": [1]}, "n": {"type": "integer", "minimum": 1, "maximum": 5}, "e": {"type": "string", "enum": ["a", "b"]}}, "start": "done", "states": {"done": {"type": "succeed"}}}"#,
            to: "w.json")
        let run = await matterflow(["run", workflow, "--input", "n=6", "--input", "e=c", "--input", "x=[1,2,", "--input", "n2=1"])
        #expect(run.code == 2)
        for finding in [
            #"/x: input "x" must be a JSON array: invalid JSON: unexpected end of data"#, "(character 6 of the value)",
            "/n: input \"n\" is not a number in 1...5", "/e: input \"e\" is not one of \"a\", \"b\"", "/n2: workflow w has no input \"n2\"",
        ] {
            #expect(run.stderr.contains(finding), "\(finding): \(run.stderr)")
        }
        #expect(!run.stderr.contains("/x: missing"), "\(run.stderr)")
        // An inputs file that holds no object is said, with the --input problems beside it.
        let list = try directory.write("[1]", to: "list.json")
        let filed = await matterflow(["run", workflow, "--inputs", list, "--input", "x=[1,"])
        #expect(filed.code == 2)
        #expect(filed.stderr.contains("an inputs file must hold a JSON object") && filed.stderr.contains(#"input "x" must be a JSON array"#), "\(filed.stderr)")
    }

    @Test("a sub-workflow's missing input points at the parent state's inputs, not at --input")
    func subworkflowInputAdvice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write(
            #"{"workflow": "child", "version": 1, "inputs": {"name": {"type": "string", "required": true}}, "start": "done", "states": {"done": {"type": "succeed"}}}"#,
            to: "child.json")
        let parent = try directory.write(
            #"{"workflow": "parent", "version": 1, "inputs": {"n": {"type": "string"}}, "start": "c", "states": {"c": {"type": "workflow", "path": "child.json", "inputs": {"name": "${input.n}"}, "next": "done"}, "done": {"type": "succeed"}}}"#,
            to: "parent.json")
        let run = await matterflow(["run", parent, "--trace", "none"])
        #expect(run.code == 1, "\(run.stderr)")
        let message = try run.resultError()["message"] as? String ?? ""
        #expect(message.contains(#"required input "name" is missing (or null); give it in the "inputs" of state c"#), "\(message)")
        #expect(!message.contains("--input"))
    }

    @Test("--inputs FILE with one --input for a name in it: the command line wins")
    func fileThenOverride() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inputs = try directory.write(
            #"{"onboardingPayload": "\#(Payloads.specQR)", "deviceName": "From File"}"#, to: "inputs.json")
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let run = await matterflow(
            ["run", workflow, "--home", home, "--trace", "none", "--inputs", inputs, "--input", "deviceName=Override"])
        #expect(run.code == 0, "\(run.stderr)")
        #expect((try run.result()["output"] as? [String: Any])?["name"] as? String == "Override")
    }

    @Test("--inputs - reads standard input; its findings name <stdin> at their line and column, and a device that never ends is refused")
    func inputsFromStandardInput() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        func run(standardInput: String, _ extra: [String] = []) async -> ToolRun {
            await matterflow(
                ["run", workflow, "--home", home, "--trace", "none", "--inputs", "-"] + extra, standardInput: standardInput)
        }
        let piped = try directory.write(
            #"{"onboardingPayload": "\#(Payloads.specQR)", "deviceName": "Piped", "roomName": "Kitchen"}"#, to: "piped.json")
        let fine = await run(standardInput: piped, ["--input", "deviceName=Override"])
        #expect(fine.code == 0, "\(fine.stderr)")
        #expect((try fine.result()["output"] as? [String: Any])?["name"] as? String == "Override")

        let wrong = try directory.write("{\n  \"onboardingPayload\": \"\(Payloads.specQR)\",\n  \"deviceName\": 7\n}", to: "wrong.json")
        let typed = await run(standardInput: wrong)
        #expect(typed.code == 2)
        #expect(typed.stderr.contains("<stdin>:3:3: error[wrongType]"), "\(typed.stderr)")
        #expect(!typed.stderr.contains(wrong), "\(typed.stderr)")

        let broken = try directory.write("{\"deviceName\": ", to: "broken.json")
        let syntax = await run(standardInput: broken)
        #expect(syntax.code == 2)
        #expect(syntax.stderr.contains("<stdin>:1:"), "\(syntax.stderr)")

        let device = await run(standardInput: "/dev/zero")
        #expect(device.code == 2)
        #expect(
            device.stderr.contains("<stdin>: error[unreadableFile]: standard input is a device, not a pipe or a file; pipe the inputs' JSON object in"),
            "\(device.stderr)")
        let latin1 = directory.file("latin1.json")
        #expect(FileManager.default.createFile(atPath: latin1, contents: Data(Array("{\"deviceName\": \"K".utf8) + [0xFC] + Array("che\"}".utf8))))
        let encoded = await run(standardInput: latin1)
        #expect(encoded.code == 2)
        #expect(encoded.stderr.contains("<stdin>:1:18: error[syntaxError]: the file is not valid UTF-8 text: byte 0xFC"), "\(encoded.stderr)")
    }

    @Test("recover rejects an input given twice too")
    func repeatedInputOnRecover() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = await matterflow(
            ["recover", "--journal", directory.path, "--resume", "--input", "a=1", "--input", "a=2"])
        #expect(run.code == 64)
        #expect(run.stderr.contains("--input a is given more than once"), "\(run.stderr)")
    }

    // MARK: - --state

    /// Runs commission-device on a state directory, starting from a home without latency (the manual clock never
    /// moves).
    private func runOnState(_ state: String) async throws -> ToolRun {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        return await matterflow(["run", workflow, "--home", home, "--state", state, "--trace", "none"] + commissionInputs())
    }

    @Test("a --state that is a file fails before any hub call, naming the path")
    func stateIsAFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("not a directory", to: "state")
        let run = try await runOnState(file)
        #expect(run.code == 2)
        #expect(run.stdout.isEmpty, "no run started: \(run.stdout)")
        #expect(run.stderr.hasPrefix("\(file): error[unusableStateDirectory]: the state directory exists but is not a directory"), "\(run.stderr)")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "not a directory")
    }

    @Test("a --state below a file fails before any hub call")
    func stateBelowAFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("x", to: "plain")
        let run = try await runOnState(file + "/state")
        #expect(run.code == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("error[unusableStateDirectory]"), "\(run.stderr)")
        #expect(run.stderr.contains("not a directory"), "\(run.stderr)")
    }

    @Test("a --state where no directory can be created fails before any hub call")
    func stateCannotBeCreated() async throws {
        // procfs takes no new directories, whoever asks (root included).
        let state = "/proc/self/matterflow-state-\(UUID().uuidString)"
        let run = try await runOnState(state)
        #expect(run.code == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.hasPrefix("\(state): error[unusableStateDirectory]: the state directory cannot be created"), "\(run.stderr)")
    }

    @Test("a --state that does not exist yet is created, and the check leaves nothing behind")
    func stateIsCreated() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("new/state")
        let run = try await runOnState(state)
        #expect(run.code == 0, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: state) == ["home.json"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["new"])
    }

    // MARK: - Symbolic link loops

    @Test("a workflow path that is a symbolic link loop says so")
    func workflowLinkLoop() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let loop = directory.file("loop.json")
        try FileManager.default.createSymbolicLink(atPath: loop, withDestinationPath: "loop.json")
        let run = await matterflow("validate", loop)
        #expect(run.code == 2)
        #expect(run.stderr.contains("\(loop): error[unreadableFile]: this path is a symbolic link loop"), "\(run.stderr)")
    }

    @Test("a sub-workflow path that is a symbolic link loop is not reported as missing")
    func subworkflowLinkLoop() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createSymbolicLink(atPath: directory.file("a.json"), withDestinationPath: "b.json")
        try FileManager.default.createSymbolicLink(atPath: directory.file("b.json"), withDestinationPath: "a.json")
        let parent = try directory.write(
            #"""
            {"workflow": "parent", "version": 1, "start": "child",
             "states": {"child": {"type": "workflow", "path": "a.json", "next": "done"}, "done": {"type": "succeed"}}}
            """#, to: "parent.json")
        let run = await matterflow("validate", parent)
        #expect(run.code == 2)
        #expect(run.stderr.contains("symbolic link loop"), "\(run.stderr)")
        #expect(!run.stderr.contains("does not exist"), "\(run.stderr)")
    }

    @Test("a workflow path that is a directory or unreadable has its own message")
    func otherReasons() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = await matterflow("run", directory.path)
        #expect(run.stderr.contains("error[unreadableFile]: this is a directory; name a JSON file"), "\(run.stderr)")
        let missing = await matterflow("validate", directory.file("nothere/x.json"))
        #expect(missing.stderr.contains("error[fileNotFound]"), "\(missing.stderr)")
    }

    @Test("a sub-workflow path that is a directory or empty is one error at the path, saying what to name")
    func subworkflowPathThatIsNoFile() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try FileManager.default.createDirectory(atPath: directory.file("sub"), withIntermediateDirectories: true)
        for (path, message) in [
            ("sub", #"error[undefinedWorkflowFile]: /states/c/path: "sub" is a directory ("#),
            ("", #"error[invalidValue]: /states/c/path: "path" is empty; name the sub-workflow's JSON file"#),
        ] {
            let file = try directory.write(
                #"{"workflow": "t", "version": 1, "start": "c", "states": {"c": {"type": "workflow", "path": "\#(path)", "next": "d"}, "d": {"type": "succeed"}}}"#,
                to: "t.json")
            let run = await matterflow("validate", file)
            #expect(run.code == 2)
            #expect(run.stderr.contains(message), "\(run.stderr)")
            #expect(run.stderr.contains("\n1 error, 0 warnings\nnote: \(file) was not proved"), "one error, at the path: \(run.stderr)")
        }
    }
}
