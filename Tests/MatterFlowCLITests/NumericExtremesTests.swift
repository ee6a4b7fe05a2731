import Foundation
import MatterFlowCLI
import MatterFlowJSON
import Synchronization
import Testing

/// Every numeric field of every file format, set to each extreme, through the commands that read it.
///
/// From the shipped workflows, homes and fixtures (and a home that has every optional numeric field), each
/// numeric field is rewritten to each of ``extremes`` in a copy of the file, and the copy goes through the real
/// commands in this process: `validate --budget` then `run` for workflows, `run --home` for homes, `test` for
/// fixtures. Each must end with a located error (exit 2, `file:line:col: error[...]`) or behave (exit 0 or 1),
/// within a bounded time; a trap would end this test process. Numbers JSON cannot carry as a Swift number (NaN, a
/// 400-digit integer) must be rejected at their own pointer. Fields are taken once per kind (state names and
/// array positions folded), so the walk stays within seconds. Everything runs on virtual time.
@Suite("Numeric extremes in every file format")
struct NumericExtremesTests {
    static let fourHundredDigits = String(repeating: "9", count: 400)

    /// 0, negative, tiny, huge, NaN, the largest 64-bit integer, 2^53 (the largest identifier counter), 400 digits.
    static let extremes = ["0", "-1", "1e-300", "1e308", "NaN", "9223372036854775807", "9007199254740992", fourHundredDigits]

    /// Extremes no field may hold: the JSON layer reports them where they stand.
    static let unrepresentable: Set<String> = ["NaN", fourHundredDigits]

    /// The phases of the end-to-end flow: a change to any of them is run through commission-device.
    static let commissionTree: Set<String> = [
        "prepare", "add-device", "commission", "rooms", "configure", "complete", "cancel", "commission-device",
    ]

    @Test("workflows: validate --budget, then run, never trap")
    func workflows() async throws {
        let copy = try RepositoryCopy()
        defer { copy.remove() }
        var seen = Set<String>()
        var checked = 0
        for file in try copy.files(in: "Workflows", suffix: ".json", recursive: false) {
            let original = try String(contentsOfFile: file, encoding: .utf8)
            let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            for field in try NumericField.all(in: original) where seen.insert(field.kind).inserted {
                for extreme in Self.extremes {
                    try field.write(extreme, into: original, at: file)
                    defer { try? original.write(toFile: file, atomically: true, encoding: .utf8) }
                    let validated = try await Self.check(["validate", "--budget", file], allowed: [0, 2], file: file, field, extreme)
                    checked += 1
                    guard validated == 0 else { continue }
                    let run = Self.commissionTree.contains(name)
                        ? [
                            "run", copy.path("Workflows/commission-device.json"), "--input", "onboardingPayload=MT:Y.K9042C00KA0648G00",
                            "--input", "deviceName=Lamp",
                        ]
                        : ["run", file, "--home", copy.path("Examples/border-router-home.json")]
                    _ = try await Self.check(run + ["--trace", "none"], allowed: [0, 1, 2], file: file, field, extreme)
                }
            }
        }
        #expect(seen.isSuperset(of: [
            "/states/*/timeoutSeconds", "/states/*/retry/#/maxRetries", "/states/*/retry/#/intervalSeconds",
            "/states/*/retry/#/backoffRate", "/states/*/retry/#/maxDelaySeconds", "/version",
        ]), "fields walked: \(seen.sorted())")
        #expect(checked >= seen.count * Self.extremes.count)
    }

    @Test("homes: run on each variant, never trap")
    func homes() async throws {
        let copy = try RepositoryCopy()
        defer { copy.remove() }
        // Every optional numeric field, beside the shipped examples.
        try copy.write(
            TestHomes.json(
                activeSession: #"{ "phase": "prepared", "id": "session-1", "leaseExpiresAt": 1000 }"#,
                extra: #""issuedIDs": 3, "simulation": { "latencySeconds": { "prepareCommissioning": 0.5 }, "sessionLeaseSeconds": 300, "bridges": [ { "vendorID": 1, "productID": 2, "bridgedDevices": 2 } ] }"#),
            to: "Examples/complete-home.json")
        var seen = Set<String>()
        for file in try copy.files(in: "Examples", suffix: ".json", recursive: false) {
            let original = try String(contentsOfFile: file, encoding: .utf8)
            let borderRouters = original.contains("\"borderRouters\"")
            for field in try NumericField.all(in: original) where seen.insert(field.kind).inserted {
                for extreme in Self.extremes {
                    try field.write(extreme, into: original, at: file)
                    defer { try? original.write(toFile: file, atomically: true, encoding: .utf8) }
                    let run = borderRouters
                        ? ["run", copy.path("Workflows/epskc-share.json")]
                        : [
                            "run", copy.path("Workflows/commission-device.json"), "--input", "onboardingPayload=MT:Y.K9042C00KA0648G00",
                            "--input", "deviceName=Lamp",
                        ]
                    _ = try await Self.check(run + ["--home", file, "--trace", "none"], allowed: [0, 1, 2], file: file, field, extreme)
                }
            }
        }
        #expect(seen.isSuperset(of: [
            "/issuedIDs", "/seed", "/simulation/latencySeconds/prepareCommissioning", "/simulation/sessionLeaseSeconds",
            "/activeSession/leaseExpiresAt", "/devices/#/vendorID", "/simulation/bridges/#/bridgedDevices",
        ]), "fields walked: \(seen.sorted())")
    }

    @Test("fixtures: test each variant, never trap")
    func fixtures() async throws {
        let copy = try RepositoryCopy()
        defer { copy.remove() }
        var seen = Set<String>()
        for file in try copy.files(in: "Workflows/fixtures", suffix: ".json", recursive: true) {
            let original = try String(contentsOfFile: file, encoding: .utf8)
            guard original.contains("\"workflow\"") else { continue }
            for field in try NumericField.all(in: original) where seen.insert(field.kind).inserted {
                for extreme in Self.extremes {
                    try field.write(extreme, into: original, at: file)
                    defer { try? original.write(toFile: file, atomically: true, encoding: .utf8) }
                    _ = try await Self.check(["test", file], allowed: [0, 1, 2], file: file, field, extreme)
                }
            }
        }
        #expect(seen.isSuperset(of: ["/faults/#/delaySeconds", "/events/#/at", "/expect/elapsedSeconds"]), "fields walked: \(seen.sorted())")
    }

    @Test("--commissioner times and counts, and a numeric --input, never trap")
    func commandLine() async throws {
        let copy = try RepositoryCopy()
        defer { copy.remove() }
        let run = ["run", copy.path("Workflows/epskc-share.json"), "--home", copy.path("Examples/border-router-home.json"), "--trace", "none"]
        for extreme in Self.extremes {
            let time = try #require(await Self.bounded(run + ["--commissioner", "useKey@\(extreme)"]))
            let inRange = Double(extreme).map { $0 >= 0 && $0 <= 86_400 } ?? false
            #expect(inRange ? [0, 1].contains(time.code) : time.code == 64, "useKey@\(extreme.prefix(30)): \(time.stderr)")
            if time.code == 64, Double(extreme) != nil {
                #expect(time.stderr.contains("the time after @, \(extreme.prefix(20))"), "the number as written: \(time.stderr)")
            }
            let count = try #require(await Self.bounded(run + ["--commissioner", "wrongKey*\(extreme)@1"]))
            #expect([0, 1, 64].contains(count.code), "wrongKey*\(extreme.prefix(30)): \(count.stderr)")
            let input = try #require(await Self.bounded(run + ["--input", "durationSeconds=\(extreme)"]))
            #expect([0, 1, 2].contains(input.code), "durationSeconds=\(extreme.prefix(30)): \(input.stderr)")
        }
    }

    // MARK: - Support

    /// Runs the tool and checks the outcome: an allowed exit code within the time bound, and on exit 2 a located
    /// error; an unrepresentable number must be reported at its own pointer. Returns the exit code.
    static func check(
        _ arguments: [String], allowed: Set<Int32>, file: String, _ field: NumericField, _ extreme: String,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) async throws -> Int32 {
        let what = "\(field.pointer) = \(extreme.prefix(30)) in \(file): \(arguments.first ?? "")"
        let run = try #require(await bounded(arguments), "\(what) did not finish in time", sourceLocation: sourceLocation)
        #expect(allowed.contains(run.code), "\(what) exited \(run.code): \(run.stderr)", sourceLocation: sourceLocation)
        if run.code == 2 {
            let located = run.stderrLines.contains { line in
                line.range(of: #"^[^ ]+:\d+:\d+: error\["#, options: .regularExpression) != nil
                    || line.hasPrefix("--input")
            }
            #expect(located, "\(what): no located error in \(run.stderr)", sourceLocation: sourceLocation)
        }
        if unrepresentable.contains(extreme) {
            #expect(
                run.code == 2 && run.stderr.contains("error[numberOutOfRange]: \(field.pointer): "),
                "\(what): not rejected at its pointer: \(run.stderr)", sourceLocation: sourceLocation)
        }
        return run.code
    }

    /// The tool's outcome, or nil when it has not finished within `limit` (virtual time makes every run fast).
    static func bounded(_ arguments: [String], limit: Duration = .seconds(60)) async -> ToolRun? {
        let outcome = FirstOutcome()
        let timer = Task {
            try? await Task.sleep(for: limit)
            outcome.finish(nil)
        }
        Task {
            let out = CapturedText()
            let err = CapturedText()
            let code = await MatterflowTool.main(
                arguments: arguments, environment: ToolEnvironment(standardOutput: out, standardError: err))
            outcome.finish(ToolRun(code: code, stdout: out.text, stderr: err.text))
        }
        let result = await outcome.value()
        timer.cancel()
        return result
    }
}

/// The first of several racing results; later ones are dropped.
final class FirstOutcome: Sendable {
    private enum State {
        case waiting(CheckedContinuation<ToolRun?, Never>?)
        case finished(ToolRun?)
    }

    private let state = Mutex<State>(.waiting(nil))

    /// Records a result, and resumes the waiter with it, unless a result came first.
    func finish(_ result: ToolRun?) {
        let waiter = state.withLock { state -> CheckedContinuation<ToolRun?, Never>? in
            guard case .waiting(let continuation) = state else { return nil }
            state = .finished(result)
            return continuation
        }
        waiter?.resume(returning: result)
    }

    /// The first result, once there is one.
    func value() async -> ToolRun? {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> ToolRun?? in
                switch state {
                case .finished(let result):
                    return .some(result)
                case .waiting:
                    state = .waiting(continuation)
                    return nil
                }
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// One numeric value of a JSON file: where it stands, and the kind of field it is.
struct NumericField {
    enum Token: Hashable {
        case key(String)
        case index(Int)
    }

    var path: [Token]
    /// The JSON pointer of the value.
    var pointer: String
    /// The pointer with array positions as `#` and state names as `*`: one kind of field.
    var kind: String

    /// Every numeric value of a JSON text, in document order.
    static func all(in text: String) throws -> [NumericField] {
        var fields: [NumericField] = []
        collect(try JSONDocument.parse(text, file: "<original>").value, path: [], into: &fields)
        return fields
    }

    private static func collect(_ value: JSONValue, path: [Token], into fields: inout [NumericField]) {
        switch value {
        case .int, .double:
            fields.append(NumericField(path: path))
        case .array(let elements):
            for (index, element) in elements.enumerated() { collect(element, path: path + [.index(index)], into: &fields) }
        case .object(let object):
            for member in object.members { collect(member.value, path: path + [.key(member.key)], into: &fields) }
        case .null, .bool, .string:
            break
        }
    }

    init(path: [Token]) {
        self.path = path
        var pointer = ""
        var kind = ""
        var previous: Token?
        for token in path {
            switch token {
            case .key(let key):
                pointer = JSONPointer.appending(key, to: pointer)
                kind = JSONPointer.appending(previous == .key("states") ? "*" : key, to: kind)
            case .index(let index):
                pointer = JSONPointer.appending(index, to: pointer)
                kind += "/#"
            }
            previous = token
        }
        self.pointer = pointer
        self.kind = kind
    }

    /// Writes `text` to `file` with this value replaced by `literal`, written as it is (it may be no valid Swift
    /// number: `NaN`, 400 digits).
    func write(_ literal: String, into text: String, at file: String) throws {
        let marker = "numeric-extreme-\(UUID().uuidString)"
        let value = Self.replacing(try JSONDocument.parse(text, file: file).value, at: path[...], with: .string(marker))
        let variant = JSONWriter.pretty(value).replacingOccurrences(of: "\"\(marker)\"", with: literal)
        try variant.write(toFile: file, atomically: true, encoding: .utf8)
    }

    private static func replacing(_ value: JSONValue, at path: ArraySlice<Token>, with replacement: JSONValue) -> JSONValue {
        guard let first = path.first else { return replacement }
        switch (first, value) {
        case (.key(let key), .object(var object)):
            if let member = object[key] { object[key] = replacing(member, at: path.dropFirst(), with: replacement) }
            return .object(object)
        case (.index(let index), .array(var elements)):
            if elements.indices.contains(index) {
                elements[index] = replacing(elements[index], at: path.dropFirst(), with: replacement)
            }
            return .array(elements)
        default:
            return value
        }
    }
}

/// A copy of the repository's `Workflows/` and `Examples/*.json` in a temporary directory, so variants can be
/// written next to the files they refer to.
struct RepositoryCopy {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.copyItem(atPath: Repository.workflowsDirectory, toPath: directory.file("Workflows"))
        try FileManager.default.createDirectory(atPath: directory.file("Examples"), withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: Repository.root + "/Examples") where name.hasSuffix(".json") {
            try FileManager.default.copyItem(atPath: Repository.root + "/Examples/" + name, toPath: directory.file("Examples/" + name))
        }
    }

    func path(_ relative: String) -> String { directory.file(relative) }

    @discardableResult
    func write(_ text: String, to relative: String) throws -> String { try directory.write(text, to: relative) }

    /// The files under a directory of the copy whose names end with `suffix`, sorted.
    func files(in relative: String, suffix: String, recursive: Bool) throws -> [String] {
        let base = directory.file(relative)
        let names = recursive
            ? (FileManager.default.enumerator(atPath: base)?.allObjects as? [String] ?? [])
            : try FileManager.default.contentsOfDirectory(atPath: base)
        return names.filter { $0.hasSuffix(suffix) }.sorted().map { base + "/" + $0 }
    }

    func remove() { directory.remove() }
}
