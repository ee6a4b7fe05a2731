import Foundation
import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJournal
import MatterFlowSimulator
import MatterFlowStore
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The `matterflow` executable run as a real process: real streams, real exit codes, real signals.
@Suite("matterflow as a process")
struct ProcessTests {
    /// Every wait in this suite gives up after this long, failing the test instead of hanging.
    static let limit: Duration = .seconds(60)

    @Test("--version and a usage error, through the real streams and exit status")
    func basics() async throws {
        let version = try ChildProcess.launch(["--version"])
        defer { version.kill() }
        try #require(await version.waitForExit(), "matterflow --version did not exit")
        #expect(version.status == 0)
        #expect(
            version.stdout.text == "matterflow \(MatterFlowVersion.current) (store schema \(StoreMigrations.latest), journal format "
                + "\(JournalFrame.formatVersion), hub protocol \(HubMethod.protocolVersion))\n")
        #expect(version.stderr.text == "")

        let usage = try ChildProcess.launch(["frobnicate"])
        defer { usage.kill() }
        try #require(await usage.waitForExit(), "matterflow frobnicate did not exit")
        #expect(usage.status == 64)
        #expect(usage.stdout.text == "")
        #expect(usage.stderr.text.hasPrefix("Error: Unknown subcommand 'frobnicate'\nUsage: "))
    }

    @Test("a command without a store runs without libpq: the library is not even mapped into the process")
    func noLibPQWithoutAStore() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.slowCommissioning(), to: "slow-home.json")
        let child = try ChildProcess.launch(
            ["run", Repository.workflow("commission-device"), "--home", home, "--state", directory.file("state"),
             "--trace", "jsonl", "--clock", "real"] + commissionInputs())
        defer { child.kill() }
        // Mid-run, long after the dynamic loader mapped every library the executable needs.
        let pid = child.process.processIdentifier
        let maps = Mutex<String?>(nil)
        let stderr = child.stderr
        let read = await act(when: { stderr.hasLine(startsCommissionDevice) }) {
            // Read to its end: String(contentsOfFile:) stops at the first page of a file /proc reports as empty.
            let bytes = try? FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(pid)/maps")).readToEnd()
            maps.withLock { $0 = bytes.map { String(decoding: $0, as: UTF8.self) } }
        }
        try #require(read != nil, "commissionDevice never started; stderr so far:\n\(child.stderr.text)")
        let mapped = try #require(maps.withLock { $0 }, "/proc/\(pid)/maps could not be read")
        #expect(mapped.contains("libswiftCore"), "the maps read are not the process's")
        #expect(!mapped.contains("libpq"), "libpq is mapped into a process that uses no store")
    }

    @Test("the README's run: commission-device on the built-in home prints the device IDs", arguments: ["virtual", "real"])
    func defaultHome(clock: String) async throws {
        let child = try ChildProcess.launch(
            ["run", Repository.workflow("commission-device"), "--trace", "none", "--clock", clock] + commissionInputs())
        defer { child.kill() }
        try #require(await child.waitForExit(), "the run did not finish")
        #expect(child.status == 0, "\(child.stderr.text)")
        #expect(child.stderr.text == "")
        let result = try #require(try parseJSON(child.stdout.text) as? [String: Any])
        #expect(result["outcome"] as? String == "succeeded")
        #expect(((result["output"] as? [String: Any])?["deviceIDs"] as? [String])?.isEmpty == false)
    }

    @Test("SIGINT while commissioning runs the cancel path, exits 130 and leaves no active session")
    func interruptWhileCommissioning() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.slowCommissioning(), to: "slow-home.json")
        let state = directory.file("state")
        let child = try ChildProcess.launch(
            ["run", Repository.workflow("commission-device"), "--home", home, "--state", state, "--trace", "jsonl", "--clock", "real"]
                + commissionInputs(),
            in: directory.path)
        defer { child.kill() }

        let commissioning = await child.signalWhileCommissioning(SIGINT, state: state)
        try #require(commissioning.signalled, "commissionDevice never started; stderr so far:\n\(child.stderr.text)")
        // The session was open and saved while the device was being commissioned (read just before the signal).
        #expect(commissioning.sessionOpen)

        try #require(await child.waitForExit(), "matterflow did not exit after SIGINT")
        #expect(child.status == 130)

        let result = try #require(try parseJSON(child.stdout.text) as? [String: Any], "stdout: \(child.stdout.text)")
        #expect(result["outcome"] as? String == "cancelled")
        #expect((result["error"] as? [String: Any])?["code"] as? String == "cancelled")

        let events = try TraceTests.events(child.stderr.text)
        let names = events.compactMap { $0["event"] as? String }
        #expect(names.contains("cancelRequested"))
        #expect(events.contains {
            $0["event"] as? String == "hubCallFinished" && $0["operation"] as? String == "cancelCommissioning"
                && $0["succeeded"] as? Bool == true
        })
        #expect(names.last == "runFinished")
        #expect(events.last?["outcome"] as? String == "cancelled")
        #expect(!child.stderr.text.contains(Payloads.specQR))

        let saved = try savedHome(in: state)
        #expect(saved.activeSession == nil)
        #expect(saved.devices.map(\.id) == ["device-existing"], "partial work was undone")
    }
}

extension ProcessTests {
    @Test("output that cannot be written (a full disk) is said on stderr and exits 1, without a crash")
    func unwritableOutput() async throws {
        let executable = try #require(Executable.path)
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"), "no /dev/full")
        let errors = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["test", Repository.root + "/Workflows/fixtures/prepare"]
        process.standardOutput = full
        process.standardError = errors
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit, "\(stderr)")
        #expect(process.terminationStatus == 1, "\(stderr)")
        #expect(stderr == "error[outputNotWritten]: the output could not be written to standard output (No space left on device); it is lost\n", "\(stderr)")
    }
}

// MARK: - Running the executable

/// The built `matterflow` executable: next to the test bundle, or else under a `.build` directory of the package.
enum Executable {
    static let path: String? = {
        let fileManager = FileManager.default
        var candidates: [URL] = []
        let bundle = Bundle.main.bundleURL
        candidates.append(bundle.appendingPathComponent("matterflow"))
        candidates.append(bundle.deletingLastPathComponent().appendingPathComponent("matterflow"))
        for test in Bundle.allBundles where test.bundlePath.hasSuffix(".xctest") {
            candidates.append(test.bundleURL.deletingLastPathComponent().appendingPathComponent("matterflow"))
        }
        if let runner = CommandLine.arguments.first {
            candidates.append(URL(fileURLWithPath: runner).deletingLastPathComponent().appendingPathComponent("matterflow"))
        }
        if let found = candidates.first(where: { fileManager.isExecutableFile(atPath: $0.path) }) {
            return found.path
        }
        // Fall back to the newest .build/debug/matterflow or .build/*/debug/matterflow above this file.
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            let build = directory.appendingPathComponent(".build")
            var options = [build.appendingPathComponent("debug/matterflow").path]
            for entry in (try? fileManager.contentsOfDirectory(atPath: build.path)) ?? [] {
                options.append(build.appendingPathComponent(entry).appendingPathComponent("debug/matterflow").path)
            }
            let existing = options.filter { fileManager.isExecutableFile(atPath: $0) }
            if let newest = existing.max(by: { modificationDate($0) < modificationDate($1) }) { return newest }
            directory.deleteLastPathComponent()
        }
        return nil
    }()

    private static func modificationDate(_ path: String) -> Date {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast
    }
}

/// Collects everything written to a pipe on a thread of its own, so the child never blocks on a full pipe.
final class PipeCollector: Sendable {
    private let buffer = Mutex((data: Data(), ended: false))

    /// Collects what `handle` delivers until its end; the collector closes it then.
    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                let ended = chunk.isEmpty
                buffer.withLock { state in
                    state.data.append(chunk)
                    state.ended = ended
                }
                if ended { return }
            }
        }
        thread.start()
    }

    /// Everything read so far.
    var text: String { String(decoding: buffer.withLock { $0.data }, as: UTF8.self) }

    /// Whether the writer closed the pipe.
    var ended: Bool { buffer.withLock { $0.ended } }

    /// Whether a complete line read so far satisfies a condition.
    func hasLine(_ matches: (String) -> Bool) -> Bool {
        let text = buffer.withLock { String(decoding: $0.data, as: UTF8.self) }
        return text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().contains { matches(String($0)) }
    }

    /// Waits, polling, until a complete line satisfies a condition; false when the pipe ends or time is up first.
    func waitForLine(within limit: Duration = ProcessTests.limit, _ matches: (String) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + limit
        var checked = 0
        while ContinuousClock.now < deadline {
            let (text, ended) = buffer.withLock { (String(decoding: $0.data, as: UTF8.self), $0.ended) }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            for line in lines.dropFirst(checked) where matches(String(line)) { return true }
            checked = lines.count
            if ended { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return false
    }
}

/// Thrown when a child did not exit in time (the issue recorded says what it was doing).
struct ChildProcessHung: Error {}

/// A running `matterflow` with its output collected.
final class ChildProcess {
    let process: SpawnedProcess
    let stdout: PipeCollector
    let stderr: PipeCollector

    private init(process: SpawnedProcess, stdout: PipeCollector, stderr: PipeCollector) {
        self.process = process
        self.stdout = stdout
        self.stderr = stderr
    }

    /// When the process exited, taken on the thread that saw it exit (not when the test got round to looking).
    var exitedAt: ContinuousClock.Instant? { process.exitedAt }

    /// Starts `matterflow` (or `program`). The crash-test hook variables are never inherited; `environment` adds
    /// variables.
    static func launch(
        _ arguments: [String], in directory: String? = nil, environment extra: [String: String] = [:], program: String? = nil
    ) throws -> ChildProcess {
        let executable = try program ?? #require(Executable.path, "the matterflow executable was not found next to the tests or under .build")
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "MATTERFLOW_CRASH_AT")
        environment.removeValue(forKey: "MATTERFLOW_TEST_HOOKS")
        for (key, value) in extra { environment[key] = value }
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw SpawnError(message: "cannot open /dev/null: \(String(cString: strerror(errno)))") }
        defer { close(input) }
        let out = try SpawnedProcess.pipe()
        let err: (read: Int32, write: Int32)
        do {
            err = try SpawnedProcess.pipe()
        } catch {
            close(out.read)
            close(out.write)
            throw error
        }
        let process: SpawnedProcess
        do {
            // Any directory will do: nothing may depend on the working directory.
            process = try SpawnedProcess(
                executable: executable, arguments: arguments, environment: environment,
                directory: directory ?? FileManager.default.temporaryDirectory.path, input: input, output: out.write, error: err.write)
        } catch {
            for descriptor in [out.read, out.write, err.read, err.write] { close(descriptor) }
            throw error
        }
        close(out.write)
        close(err.write)
        return ChildProcess(
            process: process,
            stdout: PipeCollector(FileHandle(fileDescriptor: out.read, closeOnDealloc: true)),
            stderr: PipeCollector(FileHandle(fileDescriptor: err.read, closeOnDealloc: true)))
    }

    /// Waits, polling, for the process to exit and its output to be read to the end; false on time-out.
    func waitForExit(within limit: Duration = ProcessTests.limit) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while process.isRunning || !stdout.ended || !stderr.ended {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    /// The exit status (only after ``waitForExit(within:)`` returned true).
    var status: Int32 {
        process.terminationReason == .exit ? process.terminationStatus : 128 + process.terminationStatus
    }

    func signal(_ number: Int32) { process.send(number) }

    /// Runs to the end (or the time limit) and returns the exit status (128 + signal when killed by a signal).
    /// `label` (or else the crash boundary in `environment`) is named if the child does not exit.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], label: String? = nil, program: String? = nil
    ) async throws -> (status: Int32, stdout: String, stderr: String) {
        let child = try launch(arguments, environment: environment, program: program)
        defer { child.kill() }
        if await !child.waitForExit() {
            let boundary = (label ?? environment["MATTERFLOW_CRASH_AT"].map { "MATTERFLOW_CRASH_AT=\($0)" }).map { " (\($0))" } ?? ""
            let report = await child.hangReport()
            Issue.record("matterflow \(arguments.joined(separator: " "))\(boundary) did not exit\n\(report)")
            throw ChildProcessHung()
        }
        return (child.status, child.stdout.text, child.stderr.text)
    }

    /// What a child that did not exit was doing: its standard error so far and, where gdb is installed, every
    /// thread's stack (gdb is given 30 s).
    func hangReport() async -> String {
        var report = "stderr so far:\n\(stderr.text)"
        let gdb = "/usr/bin/gdb"
        guard process.isRunning, FileManager.default.isExecutableFile(atPath: gdb),
            let dump = try? ChildProcess.launch(
                ["-s", "KILL", "30", gdb, "-p", "\(process.processIdentifier)", "-batch", "-nx", "-ex", "thread apply all bt"],
                program: "/usr/bin/timeout")
        else { return report }
        defer { dump.kill() }
        _ = await dump.waitForExit(within: .seconds(40))
        report += "\nthreads (gdb):\n\(dump.stdout.text)\(dump.stderr.text)"
        return report
    }

    /// Makes sure the child is gone (a failed test must not leave it running).
    func kill() {
        process.send(SIGKILL)
    }
}

extension ProcessTests {
    /// What standard input is, as a parent process makes it.
    enum InputChannel: String, CaseIterable, Sendable {
        /// A shell's pipe.
        case pipe
        /// A socket pair, as Node.js's child processes get.
        case socket
    }

    @Test("--inputs - reads the inputs object from standard input: a pipe, or a socket (which cannot be opened as /dev/stdin)", arguments: InputChannel.allCases)
    func inputsFromStandardInput(_ channel: InputChannel) async throws {
        let executable = try #require(Executable.path)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        // The child's end first.
        var ends: [Int32] = [0, 0]
        switch channel {
        case .pipe: try #require(pipe(&ends) == 0)
        case .socket:
            try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        }
        let (theirs, ours) = (ends[0], ends[1])
        let output = Pipe()
        let errors = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "run", Repository.workflow("commission-device"), "--home", home, "--trace", "none", "--inputs", "-",
            "--input", "roomName=Kitchen",
        ]
        process.standardInput = FileHandle(fileDescriptor: theirs, closeOnDealloc: false)
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            close(theirs)
            close(ours)
            throw error
        }
        close(theirs)
        let text = Array(#"{"onboardingPayload": "\#(Payloads.specQR)", "deviceName": "Piped Lamp"}"#.utf8)
        #expect(text.withUnsafeBytes { write(ours, $0.baseAddress, $0.count) } == text.count)
        close(ours)
        let stdout = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(stderr)")
        let result = try #require(try parseJSON(stdout) as? [String: Any], "\(stdout)")
        #expect((result["output"] as? [String: Any])?["name"] as? String == "Piped Lamp", "\(stdout)")
    }
}
