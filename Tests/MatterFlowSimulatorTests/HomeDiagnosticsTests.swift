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

    @Test func syntaxError() {
        expectOne("{\n  \"version\": 1,\n  \"structure\": }\n", DiagnosticCode.syntaxError, line: 3, column: 16)
    }

    @Test func unknownKeyWithSuggestion() {
        let text = """
            {
              "version": 1,
              "structure": {"id": "home", "name": "Home"},
              "permisionGranted": true
            }
            """
        let found = expectOne(text, DiagnosticCode.unknownKey, line: 4, column: 3)
        #expect(found?.message.contains("did you mean \"permissionGranted\"") == true)
        #expect(found?.pointer == "/permisionGranted")
    }

    @Test func unknownOperationInLatencies() {
        let text = """
            {
              "version": 1,
              "structure": {"id": "home", "name": "Home"},
              "simulation": {"latencySeconds": {"commisionDevice": 2}}
            }
            """
        let found = expectOne(text, DiagnosticCode.unknownKey, line: 4, column: 37)
        #expect(found?.message.contains("did you mean \"commissionDevice\"") == true)
    }

    @Test func wrongType() {
        let text = """
            {
              "version": 1,
              "structure": {"id": "home", "name": "Home"},
              "hub": {"online": "yes"}
            }
            """
        let found = expectOne(text, DiagnosticCode.wrongType, line: 4, column: 21)
        #expect(found?.message == "\"online\" must be a boolean, found string")
    }

    @Test func missingKey() {
        let text = """
            {
              "version": 1,
              "structure": {"id": "home"}
            }
            """
        let found = expectOne(text, DiagnosticCode.missingKey, line: 3, column: 16)
        #expect(found?.message.contains("\"name\"") == true)
    }

    @Test func duplicateKey() {
        let text = """
            {
              "version": 1,
              "structure": {"id": "home", "name": "Home"},
              "seed": 1,
              "seed": 2
            }
            """
        expectOne(text, DiagnosticCode.duplicateKey, line: 5, column: 3)
    }

    @Test func invalidValue() {
        let text = """
            {
              "version": 1,
              "structure": {"id": "home", "name": "Home"},
              "devices": [
                {"id": "d1", "name": "Lamp", "vendorID": 70000, "productID": 1}
              ]
            }
            """
        let found = expectOne(text, DiagnosticCode.invalidValue, line: 5, column: 46)
        #expect(found?.pointer == "/devices/0/vendorID")
    }

    @Test func unsupportedVersionIsReportedAlone() {
        let text = """
            {
              "version": 2,
              "structure": {"id": "home", "name": "Home"},
              "somethingNew": true
            }
            """
        let found = expectOne(text, DiagnosticCode.unsupportedVersion, line: 2, column: 14)
        #expect(found?.message.contains("newer than this MatterFlow supports") == true)
    }

    @Test func duplicateRoomID() {
        let text = """
            {
              "version": 1,
              "structure": {"id": "home", "name": "Home"},
              "rooms": [{"id": "r1", "name": "Kitchen"},
                        {"id": "r1", "name": "Hall"}]
            }
            """
        let found = expectOne(text, HomeDiagnosticCode.duplicateID, line: 5, column: 20)
        #expect(found?.message.contains("/rooms/0") == true)
    }

    @Test func duplicateDeviceID() {
        let text = """
            {
              "version": 1,
              "structure": {"id": "home", "name": "Home"},
              "devices": [{"id": "d", "name": "A", "vendorID": 1, "productID": 1},
                          {"id": "d", "name": "B", "vendorID": 1, "productID": 2}]
            }
            """
        expectOne(text, HomeDiagnosticCode.duplicateID, line: 5, column: 22)
    }

    @Test func duplicateRoomName() {
        let text = """
            {
              "version": 1,
              "structure": {"id": "home", "name": "Home"},
              "rooms": [{"id": "r1", "name": "Kitchen"}, {"id": "r2", "name": "Kitchen"}]
            }
            """
        expectOne(text, HomeDiagnosticCode.duplicateName, line: 4, column: 67)
    }

    @Test func deviceInUnknownRoom() {
        let text = """
            {
              "version": 1,
              "structure": {"id": "home", "name": "Home"},
              "rooms": [{"id": "r1", "name": "Kitchen"}],
              "devices": [{"id": "d", "name": "A", "room": "Kitchn", "vendorID": 1, "productID": 1}]
            }
            """
        let found = expectOne(text, HomeDiagnosticCode.unknownRoom, line: 5, column: 48)
        #expect(found?.message.contains("did you mean \"Kitchen\"") == true)
    }

    @Test func sessionWithUnknownDevice() {
        let text = """
            {
              "version": 1,
              "structure": {"id": "home", "name": "Home"},
              "activeSession": {"phase": "commissioned", "id": "s",
                "topology": {"ecosystemName": "Google Home", "homes": ["Home"]},
                "deviceIDs": ["device-gone"]}
            }
            """
        expectOne(text, HomeDiagnosticCode.unknownDevice, line: 6, column: 19)
    }

    @Test func sessionInFinishedPhase() {
        let text = """
            {
              "version": 1,
              "structure": {"id": "home", "name": "Home"},
              "activeSession": {"phase": "completed", "id": "s"}
            }
            """
        let found = expectOne(text, DiagnosticCode.invalidValue, line: 4, column: 30)
        #expect(found?.message.contains("remove \"activeSession\"") == true)
    }

    @Test func sessionMissingWhatItsPhaseNeeds() {
        let text = """
            {
              "version": 1,
              "structure": {"id": "home", "name": "Home"},
              "activeSession": {"phase": "requested", "id": "s"}
            }
            """
        let found = expectOne(text, DiagnosticCode.missingKey, line: 4, column: 20)
        #expect(found?.message.contains("topology") == true)
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
            DiagnosticCode.invalidValue, DiagnosticCode.unknownKey, DiagnosticCode.invalidValue, DiagnosticCode.wrongType,
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
        let exercised: Set<String> = [
            DiagnosticCode.syntaxError, DiagnosticCode.fileNotFound, DiagnosticCode.unreadableFile,
            DiagnosticCode.duplicateKey, DiagnosticCode.unknownKey, DiagnosticCode.missingKey, DiagnosticCode.wrongType,
            DiagnosticCode.invalidValue, DiagnosticCode.unsupportedVersion, HomeDiagnosticCode.duplicateID,
            HomeDiagnosticCode.duplicateName, HomeDiagnosticCode.unknownRoom, HomeDiagnosticCode.unknownDevice,
        ]
        #expect(Set(HomeDiagnosticCode.all) == exercised)
    }
}
