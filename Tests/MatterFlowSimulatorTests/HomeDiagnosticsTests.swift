import Foundation
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// Every diagnostic code a home description can produce, each triggered by an input, with its line and column.
@Suite("Home description diagnostics")
struct HomeDiagnosticsTests {
    /// A minimal valid home, to which cases add their mistake.
    static let valid = """
        {
          "version": 1,
          "structure": {"id": "home", "name": "Home"},
          "rooms": [{"id": "r1", "name": "Kitchen"}]
        }
        """

    private func diagnostics(_ text: String) -> [Diagnostic] {
        do {
            return HomeDescription.decode(try JSONDocument.parse(text, file: "home.json")).diagnostics
        } catch {
            return error.diagnostics
        }
    }

    /// Checks that the input yields exactly one diagnostic, with a code and position, and returns it.
    @discardableResult
    private func expectOne(
        _ text: String, _ code: String, line: Int, column: Int,
        sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> Diagnostic? {
        let found = diagnostics(text)
        #expect(found.count == 1, "\(found)", sourceLocation: sourceLocation)
        guard let first = found.first else { return nil }
        #expect(first.code == code, "\(first)", sourceLocation: sourceLocation)
        #expect(first.severity == .error, sourceLocation: sourceLocation)
        #expect(first.file == "home.json", sourceLocation: sourceLocation)
        #expect(first.location?.line == line, "\(first)", sourceLocation: sourceLocation)
        #expect(first.location?.column == column, "\(first)", sourceLocation: sourceLocation)
        return first
    }

    @Test func validHomeHasNoFindings() throws {
        #expect(diagnostics(Self.valid).isEmpty)
        let home = try HomeDescription.parse(Self.valid, file: "home.json")
        #expect(home.hub == .init(online: true, reachable: true))
        #expect(home.permissionGranted)
        #expect(home.devices.isEmpty)
        #expect(home.seed == 0 && home.issuedIDs == 0)
    }

    /// A home with a mistake added: version and structure on lines 2 and 3, then `members`, one per line and
    /// indented by two spaces, from line 4.
    static func home(version: Int = 1, _ members: String...) -> String {
        let header = ["{", "  \"version\": \(version),", #"  "structure": {"id": "home", "name": "Home"},"#]
        return (header + members.map { "  " + $0 } + ["}"]).joined(separator: "\n")
    }

    /// Each mistake, the one error it produces, where, and what its message or pointer must say.
    static let mistakes: [HomeMistake] = [
        HomeMistake(
            "syntax error", "{\n  \"version\": 1,\n  \"structure\": }\n", DiagnosticCode.syntaxError,
            line: 3, column: 16),
        HomeMistake(
            "unknown key with a suggestion", home(#""permisionGranted": true"#), DiagnosticCode.unknownKey,
            line: 4, column: 3, mentioning: #"did you mean "permissionGranted""#, pointer: "/permisionGranted"),
        HomeMistake(
            "unknown operation in latencies", home(#""simulation": {"latencySeconds": {"commisionDevice": 2}}"#),
            DiagnosticCode.unknownKey, line: 4, column: 37, mentioning: #"did you mean "commissionDevice""#),
        HomeMistake(
            "wrong type", home(#""hub": {"online": "yes"}"#), DiagnosticCode.wrongType, line: 4, column: 21,
            message: #""online" must be a boolean, found string"#),
        HomeMistake(
            "missing key", "{\n  \"version\": 1,\n  \"structure\": {\"id\": \"home\"}\n}",
            DiagnosticCode.missingKey, line: 3, column: 16, mentioning: #""name""#),
        HomeMistake(
            "duplicate key", home(#""seed": 1,"#, #""seed": 2"#), DiagnosticCode.duplicateKey, line: 5, column: 3),
        HomeMistake(
            "number out of range",
            home(#""devices": ["#, #"  {"id": "d1", "name": "Lamp", "vendorID": 70000, "productID": 1}"#, "]"),
            DiagnosticCode.numberOutOfRange, line: 5, column: 46, mentioning: "0...65535", pointer: "/devices/0/vendorID"),
        HomeMistake(
            "a workflow given as a home is said to be one, alone",
            #"{"workflow": "rooms", "version": 1, "start": "a", "states": {"a": {"type": "succeed"}}}"#,
            HomeDiagnosticCode.notAHome, line: 1, column: 1, mentioning: "this looks like a workflow, not a home description"),
        HomeMistake(
            "unsupported version is reported alone", home(version: 2, #""somethingNew": true"#),
            DiagnosticCode.unsupportedVersion, line: 2, column: 14,
            mentioning: "newer than this MatterFlow supports"),
        HomeMistake(
            "duplicate room ID",
            home(#""rooms": [{"id": "r1", "name": "Kitchen"},"#, #"          {"id": "r1", "name": "Hall"}]"#),
            HomeDiagnosticCode.duplicateID, line: 5, column: 20, mentioning: "/rooms/0"),
        HomeMistake(
            "duplicate device ID",
            home(
                #""devices": [{"id": "d", "name": "A", "vendorID": 1, "productID": 1},"#,
                #"            {"id": "d", "name": "B", "vendorID": 1, "productID": 2}]"#),
            HomeDiagnosticCode.duplicateID, line: 5, column: 22),
        HomeMistake(
            "two bridge entries for one product",
            home(
                #""simulation": {"bridges": [{"vendorID": 65521, "productID": 32768, "bridgedDevices": 256},"#,
                #"                           {"vendorID": 65521, "productID": 32768, "bridgedDevices": 1}]}"#),
            HomeDiagnosticCode.duplicateID, line: 5, column: 30, mentioning: "/simulation/bridges/0"),
        HomeMistake(
            "duplicate room name",
            home(#""rooms": [{"id": "r1", "name": "Kitchen"}, {"id": "r2", "name": "Kitchen"}]"#),
            HomeDiagnosticCode.duplicateName, line: 4, column: 67),
        HomeMistake(
            "device in an unknown room",
            home(
                #""rooms": [{"id": "r1", "name": "Kitchen"}],"#,
                #""devices": [{"id": "d", "name": "A", "room": "Kitchn", "vendorID": 1, "productID": 1}]"#),
            HomeDiagnosticCode.unknownRoom, line: 5, column: 48, mentioning: #"did you mean "Kitchen""#),
        HomeMistake(
            "session with an unknown device",
            home(
                #""activeSession": {"phase": "commissioned", "id": "s","#,
                #"  "topology": {"ecosystemName": "Google Home", "homes": ["Home"]},"#,
                #"  "deviceIDs": ["device-gone"]}"#),
            HomeDiagnosticCode.unknownDevice, line: 6, column: 19),
        HomeMistake(
            "session in a finished phase", home(#""activeSession": {"phase": "completed", "id": "s"}"#),
            DiagnosticCode.invalidValue, line: 4, column: 30, mentioning: #"remove "activeSession""#),
        HomeMistake(
            "session missing what its phase needs", home(#""activeSession": {"phase": "requested", "id": "s"}"#),
            DiagnosticCode.missingKey, line: 4, column: 20, mentioning: "topology"),
    ]

    @Test("A mistake yields exactly one error, at its line and column", arguments: mistakes)
    func mistakeIsReported(_ mistake: HomeMistake) {
        let found = expectOne(mistake.text, mistake.code, line: mistake.line, column: mistake.column)
        if let fragment = mistake.fragment {
            #expect(found?.message.contains(fragment) == true, "\(found?.message ?? "none")")
        }
        if let message = mistake.message {
            #expect(found?.message == message)
        }
        if let pointer = mistake.pointer {
            #expect(found?.pointer == pointer)
        }
    }

    @Test func everyProblemIsReportedInOrder() {
        let text = """
            {
              "version": 1,
              "structure": {"id": "", "name": "Home"},
              "hub": {"onlin": true},
              "issuedIDs": -1,
              "devices": [3]
            }
            """
        let found = diagnostics(text)
        #expect(found.map(\.code) == [
            DiagnosticCode.invalidValue, DiagnosticCode.unknownKey, DiagnosticCode.numberOutOfRange, DiagnosticCode.wrongType,
        ])
        #expect(found.map { $0.location?.line } == [3, 4, 5, 6])
    }

    @Test func fileNotFoundAndUnreadable() throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        #expect(throws: DiagnosticsError.self) { try HomeDescription.load(path: directory + "/missing.json") }
        do {
            _ = try HomeDescription.load(path: directory + "/missing.json")
        } catch {
            #expect(error.diagnostics.map(\.code) == [DiagnosticCode.fileNotFound])
        }
        do {
            _ = try HomeDescription.load(path: directory)
        } catch {
            #expect(error.diagnostics.map(\.code) == [DiagnosticCode.unreadableFile])
        }
    }

    @Test("every code in HomeDiagnosticCode.all is exercised by this suite")
    func codesAreCovered() {
        // The table above, plus the two file errors `fileNotFoundAndUnreadable` triggers.
        let exercised = Set(Self.mistakes.map(\.code) + [DiagnosticCode.fileNotFound, DiagnosticCode.unreadableFile])
        #expect(Set(HomeDiagnosticCode.all) == exercised)
    }
}

/// A home description with one mistake, and the error it must produce.
struct HomeMistake: Sendable, CustomTestStringConvertible {
    let name: String
    let text: String
    let code: String
    let line: Int
    let column: Int
    /// Text the message must contain.
    let fragment: String?
    /// The whole message, when it is checked exactly.
    let message: String?
    /// The JSON pointer the error must carry.
    let pointer: String?

    init(
        _ name: String, _ text: String, _ code: String, line: Int, column: Int, mentioning fragment: String? = nil,
        message: String? = nil, pointer: String? = nil
    ) {
        self.name = name
        self.text = text
        self.code = code
        self.line = line
        self.column = column
        self.fragment = fragment
        self.message = message
        self.pointer = pointer
    }

    var testDescription: String { name }
}
