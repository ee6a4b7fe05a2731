import MatterFlow
import MatterFlowFixtures
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// Each loader, given a shipped file of another kind, says once what the file is and where it goes.
@Suite struct FileKindTests {
    static let files: [(FileKind, String)] = [
        (.workflow, Repository.workflows + "/rooms.json"),
        (.home, Repository.root + "/Examples/default-home.json"),
        (.fixture, Repository.workflows + "/fixtures/cancel/nothing-to-release.fixture.json"),
        (.catalog, Repository.root + "/Examples/custom-operations/firmware.catalog.json"),
    ]

    static let uses: [FileKind: String] = [
        .workflow: #"give it as the workflow to run, or name it from a fixture's "workflow" member (see docs/workflow-language.md)"#,
        .home: #"pass it with --home, or name it from a fixture's "home" member (see docs/home-format.md)"#,
        .fixture: "run it with matterflow test (see docs/fixtures.md)",
        .catalog: "pass it with --catalog (see docs/operation-catalog.md)",
    ]

    static let names: [FileKind: String] = [
        .workflow: "a workflow", .home: "a home description", .fixture: "a fixture", .catalog: "an operation catalog",
    ]

    /// What a loader that throws its findings found: none when `load` succeeds.
    static func diagnostics(_ load: () throws(DiagnosticsError) -> Void) -> [Diagnostic] {
        do {
            try load()
            return []
        } catch {
            return error.diagnostics
        }
    }

    /// The one finding each loader has for `path`: its code and message.
    static func findings(loading path: String, as kind: FileKind) -> [String] {
        let diagnostics: [Diagnostic]
        switch kind {
        case .workflow: diagnostics = WorkflowLoader().load(path: path).diagnostics
        case .home: diagnostics = Self.diagnostics { () throws(DiagnosticsError) in _ = try HomeDescription.load(path: path) }
        case .fixture: diagnostics = FixtureLoader().load(path: path).diagnostics
        case .catalog: diagnostics = Self.diagnostics { () throws(DiagnosticsError) in _ = try OperationDeclarations.load(path: path) }
        }
        return diagnostics.filter { $0.severity == .error }.map { "\($0.code): \($0.message)" }
    }

    @Test(arguments: [FileKind.workflow, .home, .fixture, .catalog])
    func aFileOfAnotherKindIsOneErrorSayingWhatItIsAndWhereItGoes(expected: FileKind) throws {
        let code = switch expected {
        case .workflow: "notAWorkflow"
        case .home: "notAHome"
        case .fixture: "notAFixture"
        case .catalog: "notACatalog"
        }
        for (kind, path) in Self.files where kind != expected {
            let message = "this looks like \(Self.names[kind]!), not \(Self.names[expected]!); \(Self.uses[kind]!)"
            #expect(Self.findings(loading: path, as: expected) == ["\(code): \(message)"], "\(path)")
        }
    }

    @Test func keysTellTheKindOnlyWhenNoOtherKindHasThem() {
        #expect(FileKind(keys: ["fixture", "workflow", "expect"]) == .fixture)
        #expect(FileKind(keys: ["workflow", "version", "start", "states"]) == .workflow)
        #expect(FileKind(keys: ["catalog", "version", "operations"]) == .catalog)
        #expect(FileKind(keys: ["version", "structure", "rooms"]) == .home)
        #expect(FileKind(keys: ["workflow", "version", "structure"]) == nil, "a workflow with a stray key")
        #expect(FileKind(keys: ["version"]) == nil)
        #expect(FileKind.home.misplaced(as: .home) == nil)
    }

    @Test("a file with the expected kind's own key is taken as that kind, stray keys and all")
    func aFileWithTheExpectedKindsOwnKeyIsNotMisplaced() throws {
        let strayFixture = try #require(try JSONDocument.parse(#"{"states": {}, "fixture": "x"}"#, file: "t").value.objectValue)
        #expect(FileKind.misplaced(strayFixture, as: .workflow) == nil)
        #expect(FileKind.misplaced(strayFixture, as: .catalog) != nil)
        let strayCatalog = try #require(try JSONDocument.parse(#"{"structure": {}, "catalog": "x"}"#, file: "t").value.objectValue)
        #expect(FileKind.misplaced(strayCatalog, as: .home) == nil)
        #expect(FileKind.misplaced(strayCatalog, as: .catalog) == nil)
        #expect(FileKind.misplaced(strayCatalog, as: .workflow) != nil)
    }
}
