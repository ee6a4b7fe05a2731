import Foundation
import MatterFlow
import MatterFlowCLI
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// Paths inside the repository, found from this file rather than the working directory.
enum Repository {
    /// The package root: the nearest directory above this file holding both `Package.swift` and `Workflows/`.
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            let manifest = url.appendingPathComponent("Package.swift").path
            let workflows = url.appendingPathComponent("Workflows").path
            if FileManager.default.fileExists(atPath: manifest), FileManager.default.fileExists(atPath: workflows) {
                return url.path
            }
            url.deleteLastPathComponent()
        }
        preconditionFailure("no package root above \(#filePath)")
    }()

    static var workflowsDirectory: String { root + "/Workflows" }

    /// The path of a shipped workflow, e.g. `workflow("commission-device")`.
    static func workflow(_ name: String) -> String { workflowsDirectory + "/" + name + ".json" }

    /// Every shipped workflow file, sorted.
    static func shippedWorkflows() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: workflowsDirectory)
            .filter { $0.hasSuffix(".json") }
            .sorted()
            .map { workflowsDirectory + "/" + $0 }
    }
}

/// Onboarding payloads (from the Matter specification and the simulator tests).
enum Payloads {
    /// The specification's example QR code: vendor 0xFFF1, product 0x8000, discriminator 3840.
    static let specQR = "MT:Y.K9042C00KA0648G00"
    /// Vendor 0xFFF2, product 0x1001, discriminator 2048.
    static let lampQR = "MT:634J0KGB00AJVH7SR00"
}

/// A fresh temporary directory; the test removes it with ``remove()``.
struct TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("matterflow-cli-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Path of a file or directory inside.
    func file(_ name: String) -> String { path + "/" + name }

    /// Writes text to a file inside and returns its path (creating intermediate directories).
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        let target = file(name)
        let parent = URL(fileURLWithPath: target).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        try text.write(toFile: target, atomically: true, encoding: .utf8)
        return target
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// Home description files for the tests. None has simulated latency unless asked, so runs on a `ManualClock`
/// never wait.
enum TestHomes {
    static let structureID = "test-home"

    /// A home in the documented format; `extra` is spliced in as more members of the top-level object.
    static func json(
        online: Bool = true, reachable: Bool = true, permissionGranted: Bool = true, activeSession: String? = nil,
        extra: String? = nil
    ) -> String {
        var members = [
            #""version": 1"#,
            #""structure": { "id": "\#(structureID)", "name": "Test Home" }"#,
            #""hub": { "online": \#(online), "reachable": \#(reachable) }"#,
            #""permissionGranted": \#(permissionGranted)"#,
            #""rooms": [ { "id": "room-kitchen", "name": "Kitchen" }, { "id": "room-hall", "name": "Hall" } ]"#,
            #""devices": [ { "id": "device-existing", "name": "Hall Light", "room": "Hall", "vendorID": 65522, "productID": 1, "vendorName": "Lumen Works", "productName": "Bulb", "softwareVersion": 7 } ]"#,
            #""seed": 42"#,
        ]
        if let activeSession { members.append(#""activeSession": \#(activeSession)"#) }
        if let extra { members.append(extra) }
        return "{\n  " + members.joined(separator: ",\n  ") + "\n}\n"
    }

    /// A home whose hub takes `seconds` of real time to commission a device: a process run on it (`--clock real`)
    /// can be watched, signalled or killed while commissioning.
    static func slowCommissioning(seconds: Int = 30) -> String {
        json(extra: #""simulation": { "latencySeconds": { "commissionDevice": \#(seconds) } }"#)
    }

    /// A session some other client left active (phase `requested`).
    static let foreignSession =
        #"{ "phase": "requested", "id": "session-foreign", "topology": { "ecosystemName": "Other App", "homes": ["Test Home"] } }"#
}

/// What one in-process invocation of the tool printed and returned.
struct ToolRun: Sendable {
    var code: Int32
    var stdout: String
    var stderr: String

    /// Stdout parsed as one JSON object (the result of `run`).
    func result(sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any],
            "stdout is not one JSON object: \(stdout)", sourceLocation: sourceLocation)
    }

    /// The `error` member of the result.
    func resultError(sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> [String: Any] {
        try #require(
            try result(sourceLocation: sourceLocation)["error"] as? [String: Any], "no error object in \(stdout)",
            sourceLocation: sourceLocation)
    }

    /// Non-empty stderr lines.
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// Runs `matterflow` in-process with captured output, on a manual clock (time never passes unless the test
/// advances it).
/// Pass `stderr` to watch progress while the run is going, and `standardInput` for the file `--inputs -` reads.
func matterflow(
    _ arguments: [String], clock: ManualClock = ManualClock(), stderr err: CapturedText = CapturedText(), now: Double? = nil,
    standardInput: String? = nil, asciiGlyphs: Bool = false
) async -> ToolRun {
    let out = CapturedText()
    var environment = ToolEnvironment(standardOutput: out, standardError: err, handlesInterrupts: false, clock: clock)
    environment.asciiGlyphs = asciiGlyphs
    if let now { environment.now = { now } }
    if let standardInput { environment.standardInputPath = standardInput }
    let code = await MatterflowTool.main(arguments: arguments, environment: environment)
    return ToolRun(code: code, stdout: out.text, stderr: err.text)
}

func matterflow(_ arguments: String..., clock: ManualClock = ManualClock()) async -> ToolRun {
    await matterflow(arguments, clock: clock)
}

/// The inputs of a commission-device run.
func commissionInputs(payload: String = Payloads.specQR, name: String = "Lamp", room: String? = "Kitchen") -> [String] {
    var arguments = ["--input", "onboardingPayload=\(payload)", "--input", "deviceName=\(name)"]
    if let room { arguments += ["--input", "roomName=\(room)"] }
    return arguments
}

/// Parses JSON text (any top-level value).
func parseJSON(_ text: String) throws -> Any {
    try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed])
}

/// The home saved in a state directory.
func savedHome(in directory: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> HomeDescription {
    try #require(
        try HomeStateStore.loadSaved(directory: directory), "no home.json in \(directory)", sourceLocation: sourceLocation)
}

/// Whether a `--trace jsonl` line says the hub call commissionDevice started.
@Sendable func startsCommissionDevice(_ line: String) -> Bool {
    line.contains(#""event":"hubCallStarted""#) && line.contains(#""operation":"commissionDevice""#)
}

/// Waits, polling, until a condition holds; false when `timeout` passes first.
///
/// The default limit is generous: on a 2-core machine the suite's parallel tests can keep both cooperative threads
/// busy for half a minute at its start, so an in-process run may not reach the awaited point within 30 s.
func poll(timeout: Duration = .seconds(120), every interval: Duration = .milliseconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: interval)
    }
    return true
}

/// Whether two JSON values are equal member for member, whatever order their objects' members come in (PostgreSQL's
/// `jsonb` orders them its own way; a record keeps the order it was written in).
func sameJSON(_ lhs: JSONValue?, _ rhs: JSONValue?) -> Bool {
    switch (lhs, rhs) {
    case (.object(let left)?, .object(let right)?):
        let members = Dictionary(right.members.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        return left.members.count == members.count
            && left.members.allSatisfy { member in members[member.key].map { sameJSON(member.value, $0) } ?? false }
    case (.array(let left)?, .array(let right)?):
        return left.count == right.count && zip(left, right).allSatisfy { sameJSON($0, $1) }
    default:
        return lhs == rhs
    }
}
