import Foundation
import MatterFlow
import MatterFlowFixtures
import MatterFlowJSON
import Testing

/// The JSON Schemas published in docs/ (workflow, fixture and operation catalog files): every shipped file conforms,
/// the schemas refuse what the loaders refuse, and their lists of names are the engine's own, so they cannot drift.
@Suite("JSON Schemas")
struct SchemaTests {
    static let docs = Repository.root + "/docs"
    static let examples = Repository.root + "/Examples"

    static func validator(_ name: String) throws -> JSONSchemaValidator {
        JSONSchemaValidator(schema: try JSONDocument.load(path: docs + "/" + name).value)
    }

    /// Every `.json` file below `directory`, sorted.
    static func jsonFiles(below directory: String) -> [String] {
        let found = FileManager.default.enumerator(atPath: directory)?.allObjects as? [String] ?? []
        return found.filter { $0.hasSuffix(".json") }.sorted().map { directory + "/" + $0 }
    }

    /// The shipped workflow files: those in Workflows/ and Examples/ that are workflows (fixtures and homes aside).
    static func workflowFiles() throws -> [String] {
        try (jsonFiles(below: Repository.workflows) + jsonFiles(below: examples)).filter { path in
            guard !path.hasSuffix(FixtureLoader.fileSuffix), !path.contains("/hubs/") else { return false }
            let object = try JSONDocument.load(path: path).value.objectValue
            return object?["states"] != nil && object?["workflow"] != nil
        }
    }

    static func fixtureFiles() -> [String] {
        (jsonFiles(below: Repository.workflows) + jsonFiles(below: examples)).filter { $0.hasSuffix(FixtureLoader.fileSuffix) }
    }

    @Test func everyShippedWorkflowConformsToTheWorkflowSchema() throws {
        let schema = try Self.validator("workflow.schema.json")
        let files = try Self.workflowFiles()
        #expect(files.count >= 17, "\(files)")
        #expect(files.contains { $0.hasSuffix("Examples/custom-operations/update-firmware.json") })
        for file in files {
            let problems = try schema.problems(of: try JSONDocument.load(path: file).value)
            #expect(problems.isEmpty, "\(file): \(problems.joined(separator: "\n"))")
        }
    }

    @Test func everyShippedFixtureConformsToTheFixtureSchema() throws {
        let schema = try Self.validator("fixture.schema.json")
        let files = Self.fixtureFiles()
        #expect(files.count >= 100, "\(files.count) fixtures")
        for file in files {
            let problems = try schema.problems(of: try JSONDocument.load(path: file).value)
            #expect(problems.isEmpty, "\(file): \(problems.joined(separator: "\n"))")
        }
    }

    @Test func theExampleCatalogConformsToTheCatalogSchema() throws {
        let schema = try Self.validator("operation-catalog.schema.json")
        let file = Self.examples + "/custom-operations/firmware.catalog.json"
        #expect(try schema.problems(of: try JSONDocument.load(path: file).value).isEmpty)
    }

    /// The complete catalog files shown in docs/operation-catalog.md load, and conform to the schema.
    @Test func theDocumentedCatalogLoadsAndConforms() throws {
        let text = try String(contentsOfFile: Self.docs + "/operation-catalog.md", encoding: .utf8)
        let blocks = text.components(separatedBy: "```json\n").dropFirst().map { $0.components(separatedBy: "```")[0] }
            .filter { $0.hasPrefix("{") && $0.contains("\"catalog\"") }
        #expect(blocks.count == 1)
        let schema = try Self.validator("operation-catalog.schema.json")
        for block in blocks {
            let declarations = try OperationDeclarations.parse(block, file: "docs/operation-catalog.md")
            #expect(declarations.operations.map(\.name) == ["readFirmwareStatus"])
            #expect(try schema.problems(of: try JSONDocument.parse(block, file: "doc").value).isEmpty)
        }
    }

    // MARK: - The schemas refuse what the loaders refuse

    /// A valid workflow with one state of most kinds, as a base for mistakes.
    static let baseWorkflow = """
        {
          "workflow": "base", "version": 1, "start": "read",
          "inputs": { "code": { "type": "onboardingPayload", "required": true } },
          "states": {
            "read": { "type": "action", "operation": "readHubStatus", "guards": ["permission"], "result": "status",
                      "retry": [{ "errors": ["unavailable"], "maxRetries": 2, "jitter": "full" }],
                      "next": "decide", "onError": [{ "errors": ["*"], "next": "failed" }] },
            "decide": { "type": "choice", "choices": [{ "if": { "equals": ["${vars.status.online}", true] }, "next": "note" }], "default": "failed" },
            "note": { "type": "assign", "warning": "vendor ${input.code.vendorID}", "next": "done" },
            "done": { "type": "succeed", "output": { "ok": true } },
            "failed": { "type": "fail", "code": "unavailable", "message": "not online" }
          }
        }
        """

    @Test(arguments: [
        (#""version": 1,"#, #""version": 1, "verison": 1,"#),
        (#""type": "assign""#, #""type": "asign""#),
        (#"["permission"]"#, #"["permission", "no session"]"#),
        (#""jitter": "full""#, #""jitter": "sometimes""#),
        (#""maxRetries": 2"#, #""maxRetries": 101"#),
        (#""type": "onboardingPayload""#, #""type": "payload""#),
        (#""code": "unavailable", "message": "not online""#, #""code": "unavaliable", "message": "not online""#),
        (#""code": "unavailable", "message": "not online""#, #""error": "${error}", "code": "unavailable", "message": "x""#),
        (#"{ "equals": ["${vars.status.online}", true] }"#, #"{ "equals": ["${vars.status.online}", true], "exists": "x" }"#),
        (#""next": "decide", "onError""#, #""onError""#),
        (#""states": {"#, #""deadlineSeconds": 0, "states": {"#),
        (#""workflow": "base", "#, ""),
    ])
    func theWorkflowSchemaRefusesWhatTheLoaderRefuses(original: String, mistake: String) throws {
        #expect(Self.baseWorkflow.contains(original))
        let text = Self.baseWorkflow.replacingOccurrences(of: original, with: mistake)
        let file = Repository.workflows + "/schema-test.json"
        let loaded = WorkflowLoader().load(text: text, file: file, baseDirectory: Repository.workflows)
        #expect(loaded.diagnostics.hasErrors, "the loader accepts \(mistake)")
        let schema = try Self.validator("workflow.schema.json")
        #expect(!(try schema.problems(of: try JSONDocument.parse(text, file: file).value)).isEmpty, "the schema accepts \(mistake)")
        // The base itself is valid for both.
        #expect(!WorkflowLoader().load(text: Self.baseWorkflow, file: file, baseDirectory: Repository.workflows).diagnostics.hasErrors)
        #expect(try schema.problems(of: try JSONDocument.parse(Self.baseWorkflow, file: file).value).isEmpty)
    }

    static let baseFixture = """
        {
          "fixture": "base", "version": 1, "workflow": "../../prepare.json",
          "faults": [{ "operation": "prepareCommissioning", "attempts": "1-2", "fail": { "cause": "hubOffline" } }],
          "events": [{ "after": "readHubStatus", "action": "hubOnline" }],
          "expect": { "outcome": "failed", "calls": { "prepareCommissioning": { "atLeast": 1 } }, "hub": { "activeSession": null } }
        }
        """

    @Test(arguments: [
        (#""faults""#, #""fautls""#),
        (#""fail": { "cause": "hubOffline" }"#, #""fail": { "cause": "hubOffline" }, "hang": true"#),
        (#""action": "hubOnline""#, #""action": "hubOnlin""#),
        (#""after": "readHubStatus", "#, #""after": "readHubStatus", "at": 3, "#),
        (#""outcome": "failed""#, #""outcome": "broken""#),
        (#""attempts": "1-2""#, #""attempts": "one""#),
        (#""atLeast": 1"#, #""atLeast": -1"#),
        (#""activeSession": null"#, #""activeSession": { "phase": "idle" }"#),
        (#""version": 1, "#, ""),
    ])
    func theFixtureSchemaRefusesWhatTheLoaderRefuses(original: String, mistake: String) throws {
        #expect(Self.baseFixture.contains(original))
        let text = Self.baseFixture.replacingOccurrences(of: original, with: mistake)
        #expect(InlineFixture.load(text).diagnostics.hasErrors, "the loader accepts \(mistake)")
        let schema = try Self.validator("fixture.schema.json")
        #expect(!(try schema.problems(of: try JSONDocument.parse(text, file: InlineFixture.file).value)).isEmpty, "the schema accepts \(mistake)")
        #expect(!InlineFixture.load(Self.baseFixture).diagnostics.hasErrors)
        #expect(try schema.problems(of: try JSONDocument.parse(Self.baseFixture, file: InlineFixture.file).value).isEmpty)
    }

    @Test(arguments: [
        (#""effect": "read""#, #""effect": "reed""#),
        (#""type": "string""#, #""type": "strng""#),
        (#""readThing""#, #""read thing""#),
        (#""errors": ["deviceNotFound"]"#, #""errors": ["device not found"]"#),
        (#""defaultTimeoutSeconds": 10"#, #""defaultTimeoutSeconds": 100000"#),
        (#""summary": "reads""#, #""summary": "reads", "sesion": "uses""#),
        (#""type": "string", "required": true"#, #""type": "integer", "required": true, "onboardingPayload": true"#),
    ])
    func theCatalogSchemaRefusesWhatTheLoaderRefuses(original: String, mistake: String) throws {
        let base = """
            { "catalog": "c", "version": 1, "operations": { "readThing": { "summary": "reads",
              "arguments": { "id": { "type": "string", "required": true } }, "errors": ["deviceNotFound"],
              "defaultTimeoutSeconds": 10, "effect": "read" } } }
            """
        #expect(base.contains(original))
        let text = base.replacingOccurrences(of: original, with: mistake)
        #expect(throws: DiagnosticsError.self) { try OperationDeclarations.parse(text, file: "c.json") }
        let schema = try Self.validator("operation-catalog.schema.json")
        #expect(!(try schema.problems(of: try JSONDocument.parse(text, file: "c.json").value)).isEmpty, "the schema accepts \(mistake)")
        _ = try OperationDeclarations.parse(base, file: "c.json")
        #expect(try schema.problems(of: try JSONDocument.parse(base, file: "c.json").value).isEmpty)
    }

    // MARK: - Names

    /// The strings of the `enum` at a pointer of a schema (inside an `anyOf` when there is one).
    static func names(_ schema: String, _ pointer: String) throws -> [String] {
        var value = try JSONDocument.load(path: docs + "/" + schema).value
        for part in pointer.split(separator: "/") {
            if let elements = value.arrayValue, let index = Int(part), elements.indices.contains(index) {
                value = elements[index]
            } else {
                value = try #require(value[String(part)], "\(schema) has nothing at \(pointer)")
            }
        }
        return try #require(value.arrayValue).compactMap(\.stringValue)
    }

    @Test func theSchemasNameWhatTheEngineKnows() throws {
        let codes = ErrorCode.all.map(\.rawValue)
        let causes = ErrorCause.table.map(\.cause.rawValue)
        #expect(try Self.names("workflow.schema.json", "$defs/fail/properties/code/anyOf/0/enum") == codes)
        #expect(try Self.names("workflow.schema.json", "$defs/fail/properties/cause/anyOf/0/enum") == causes)
        #expect(try Self.names("workflow.schema.json", "$defs/retrier/properties/errors/items/anyOf/0/enum") == ["*"] + codes + causes)
        #expect(try Self.names("workflow.schema.json", "$defs/action/properties/guards/items/anyOf/0/enum") == BuiltInGuard.allCases.map(\.rawValue))
        #expect(try Self.names("workflow.schema.json", "$defs/state/properties/type/enum") == WorkflowState.Kind.typeNames)
        #expect(try Self.names("workflow.schema.json", "$defs/input/properties/type/enum") == InputDeclaration.InputType.allCases.map(\.rawValue))
        #expect(try Self.names("workflow.schema.json", "$defs/action/properties/operation/anyOf/0/enum") == OperationCatalog.standard.names)
        #expect(Set(try Self.names("workflow.schema.json", "$defs/wait/properties/event/anyOf/0/enum")) == Set(OperationCatalog.standard.events.map(\.name)))
        #expect(try Self.names("fixture.schema.json", "$defs/error/properties/code/enum") == codes)
        #expect(try Self.names("fixture.schema.json", "$defs/fault/properties/operation/anyOf/0/enum") == OperationCatalog.standard.names)
        #expect(try Self.names("operation-catalog.schema.json", "$defs/operation/properties/errors/items/anyOf/0/enum") == causes)
        #expect(try Self.names("operation-catalog.schema.json", "properties/causes/additionalProperties/properties/code/enum") == codes)
        #expect(try Self.names("operation-catalog.schema.json", "$defs/operation/properties/effect/enum") == OperationDescriptor.Effect.allCases.map(\.rawValue))
    }

    @Test func theValidatorRefusesSchemasUsingKeywordsItDoesNotImplement() throws {
        let schema = JSONSchemaValidator(schema: try JSONDocument.parse(#"{"type": "object", "patternProperties": {}}"#, file: "s").value)
        #expect(throws: JSONSchemaValidator.SchemaError.self) { try schema.problems(of: .object(JSONObject())) }
    }
}
