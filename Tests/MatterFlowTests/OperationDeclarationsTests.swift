import Foundation
import MatterFlow
import MatterFlowJSON
import Synchronization
import Testing

/// Custom operations declared in a catalog file, through the Swift API: `OperationDeclarations`,
/// `OperationCatalog.adding(_:)` and a hub's `perform(operation:structure:arguments:)`.
@Suite("operation declarations")
struct OperationDeclarationsTests {
    static let catalogText = """
        {
          "catalog": "test", "version": 1,
          "operations": {
            "echoArguments": {
              "summary": "answers with its arguments",
              "arguments": { "label": { "type": "string", "required": true }, "token": { "type": "string", "secret": true } },
              "result": { "label": { "type": "string" }, "token": { "type": "string", "secret": true } },
              "defaultTimeoutSeconds": 5, "effect": "read"
            },
            "answerWrongShape": { "summary": "answers with a string", "defaultTimeoutSeconds": 5, "effect": "read" }
          }
        }
        """

    static func engine() throws -> WorkflowEngine {
        WorkflowEngine(catalog: try OperationCatalog.standard.adding(try OperationDeclarations.parse(catalogText, file: "test.catalog.json")))
    }

    static func workflow(_ engine: WorkflowEngine, operation: String, arguments: String) throws -> Workflow {
        try engine.load(
            text: """
                { "workflow": "custom", "version": 1, "start": "call",
                  "states": {
                    "call": { "type": "action", "operation": "\(operation)", "arguments": \(arguments), "result": "answer", "next": "done" },
                    "done": { "type": "succeed", "output": "${vars.answer}" } } }
                """, baseDirectory: "/")
    }

    @Test func aDeclaredOperationIsCalledOnTheHubByNameWithItsSecretsRedacted() async throws {
        let engine = try Self.engine()
        let token = "token-4711-abcdef"
        let workflow = try Self.workflow(engine, operation: "echoArguments", arguments: #"{ "label": "kitchen", "token": "\#(token)" }"#)
        let events = Mutex<[String]>([])
        let result = try await engine.run(
            workflow, on: EchoHub(), options: RunOptions(structureID: "home", observer: { event in
                events.withLock { $0.append(JSONWriter.compact(event.jsonValue)) }
            }))
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(result.output == ["label": "kitchen", "token": .string(token)])
        let trace = events.withLock { $0 }.joined(separator: "\n")
        #expect(trace.contains(#""operation":"echoArguments""#), "\(trace)")
        #expect(!trace.contains(token), "\(trace)")
        #expect(trace.contains("<redacted>"))
    }

    @Test func aResultOfAnotherShapeFailsTheCall() async throws {
        let engine = try Self.engine()
        let workflow = try Self.workflow(engine, operation: "answerWrongShape", arguments: "{}")
        let result = try await engine.run(workflow, on: EchoHub(), options: RunOptions(structureID: "home"))
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .hubFailure)
        #expect(result.error?.message.contains("the hub's result for answerWrongShape is not the object the catalog declares") == true)
    }

    @Test func aHubWithoutCustomOperationsAnswersNotSupported() async throws {
        let engine = try Self.engine()
        let workflow = try Self.workflow(engine, operation: "echoArguments", arguments: #"{ "label": "x" }"#)
        let result = try await engine.run(workflow, on: ScriptedHub(), options: RunOptions(structureID: "home"))
        #expect(result.error?.code == .unimplemented)
        #expect(result.error?.cause == .notSupported)
        #expect(result.error?.message.contains("echoArguments") == true)
    }

    @Test func declarationsCarryEveryDeclaredFact() throws {
        let declarations = try OperationDeclarations.parse(
            """
            { "catalog": "facts", "version": 1, "operations": { "lockDoor": {
                "summary": "locks", "arguments": { "requestID": { "type": "string", "required": true },
                                                    "codes": { "type": { "array": { "object": { "slot": "integer" } } } } },
                "result": { "locked": { "type": "boolean" } }, "errors": ["deviceNotFound"],
                "defaultTimeoutSeconds": 12.5, "effect": "nonIdempotentWrite", "idempotencyKey": "requestID", "session": "uses" } },
              "events": { "doorLocked": { "summary": "s", "valueField": "how", "values": ["manual", "remote"],
                                          "fields": { "how": { "type": "string" } } } } }
            """, file: "facts.json")
        let operation = try #require(declarations.operations.first)
        #expect(operation.name == "lockDoor")
        #expect(operation.arguments.map(\.shape) == [.string, .array(.object([.init("slot", .integer, "")]))])
        #expect(operation.errors == [.deviceNotFound])
        #expect(operation.defaultTimeoutSeconds == 12.5)
        #expect(operation.effect == .nonIdempotentWrite)
        #expect(operation.idempotencyKey == "requestID")
        #expect(operation.usesSession && !operation.acquiresSession && !operation.releasesSession)
        #expect(operation.requires == [OrderRequirement(.session, ["prepareCommissioning"])])
        let event = try #require(declarations.events.first)
        #expect(event.name == "doorLocked" && event.values == ["manual", "remote"] && event.valueField == "how")
    }

    @Test func builtInNamesAndRepeatedDeclarationsAreRefused() throws {
        let declarations = try OperationDeclarations.parse(Self.catalogText, file: "test.catalog.json")
        let once = try OperationCatalog.standard.adding(declarations)
        #expect(once["echoArguments"] != nil)
        do {
            _ = try once.adding(declarations)
            Issue.record("a second catalog declaring the same names was accepted")
        } catch {
            #expect(error.diagnostics.map(\.code) == ["nameClash", "nameClash"])
            #expect(error.diagnostics[0].description.hasPrefix("test.catalog.json:4:5: error[nameClash]: /operations/echoArguments"))
        }
        for name in OperationCatalog.standard.names + ["status", "initialize", "subscribe"] {
            let text = #"{"catalog": "c", "version": 1, "operations": {"\#(name)": {"summary": "s", "defaultTimeoutSeconds": 1, "effect": "read"}}}"#
            #expect(throws: DiagnosticsError.self, "\(name)") { try OperationDeclarations.parse(text, file: "c.json") }
        }
    }

    @Test func theSessionProofCountsDeclaredSessionEffects() throws {
        let catalog = try OperationCatalog.standard.adding(
            try OperationDeclarations.parse(
                """
                { "catalog": "vendor", "version": 1, "operations": {
                    "openVendorSession": { "summary": "opens", "result": { "sessionID": { "type": "string" } },
                                           "defaultTimeoutSeconds": 5, "effect": "nonIdempotentWrite", "session": "acquires" },
                    "closeVendorSession": { "summary": "closes", "defaultTimeoutSeconds": 5, "effect": "idempotentWrite",
                                            "session": "releases", "releaseAttemptSuffices": true } } }
                """, file: "vendor.json"))
        func findings(closing: Bool) -> [Diagnostic] {
            // The leaky variant reads the hub's status where the other closes the session.
            let close = closing ? "closeVendorSession" : "readHubStatus"
            let text = """
                { "workflow": "vendor-session", "version": 1, "start": "open", "sessionOnSuccess": "released",
                  "onCancel": "releaseOnCancel",
                  "states": {
                    "open": { "type": "action", "operation": "openVendorSession", "next": "close", "onError": [{ "errors": ["*"], "next": "failed" }] },
                    "close": { "type": "action", "operation": "\(close)", "next": "done", "onError": [{ "errors": ["*"], "next": "done" }] },
                    "done": { "type": "succeed" },
                    "failed": { "type": "fail", "error": "${error}" },
                    "releaseOnCancel": { "type": "action", "operation": "closeVendorSession", "next": "cancelled", "onError": [{ "errors": ["*"], "next": "cancelled" }] },
                    "cancelled": { "type": "fail", "code": "cancelled", "message": "cancelled" } } }
                """
            return WorkflowLoader(catalog: catalog).load(text: text, file: "vendor-session.json", baseDirectory: "/").diagnostics
        }
        #expect(findings(closing: false).contains { $0.code == "sessionLeak" }, "\(findings(closing: false))")
        #expect(!findings(closing: true).hasErrors, "\(findings(closing: true))")
    }

    @Test func anOperationThatAcquiresTheSessionMustReturnItsID() throws {
        let text = """
            { "catalog": "c", "version": 1, "operations": { "openVendorSession": {
                "summary": "opens", "defaultTimeoutSeconds": 5, "effect": "nonIdempotentWrite", "session": "acquires" } } }
            """
        do {
            _ = try OperationDeclarations.parse(text, file: "c.json")
            Issue.record("accepted an acquiring operation without sessionID")
        } catch {
            #expect(error.diagnostics.map(\.pointer) == ["/operations/openVendorSession/session"])
            #expect(error.diagnostics.first?.message.contains("\"sessionID\"") == true)
        }
    }

    /// Every prefix of a valid catalog, and seeded random byte changes of it, load or fail with findings: never a
    /// crash or a hang.
    @Test func anyTextLoadsOrFailsWithFindings() throws {
        let text = try String(contentsOfFile: Repository.root + "/Examples/custom-operations/firmware.catalog.json", encoding: .utf8)
        let bytes = Array(text.utf8)
        var variants: [[UInt8]] = (0..<bytes.count).map { Array(bytes[..<$0]) }
        let random = SeededRandomSource(seed: 15)
        let alphabet = Array(#"{}[]":,0123456789.-eE tfnul\"#.utf8)
        for _ in 0..<2_000 {
            var changed = bytes
            for _ in 0..<3 {
                let position = Int(random.next() % UInt64(changed.count))
                changed[position] = alphabet[Int(random.next() % UInt64(alphabet.count))]
            }
            variants.append(changed)
        }
        var refused = 0
        for variant in variants {
            do {
                _ = try OperationDeclarations.parse(String(decoding: variant, as: UTF8.self), file: "fuzz.json")
            } catch {
                #expect(!error.diagnostics.isEmpty)
                refused += 1
            }
        }
        #expect(refused >= bytes.count, "every strict prefix is refused")
    }
}

/// A hub that answers `echoArguments` with its arguments and `answerWrongShape` with a string; everything else is
/// the scripted hub's.
struct EchoHub: Hub {
    let inner = ScriptedHub()

    func perform(operation: String, structure: StructureID, arguments: JSONObject) async throws -> JSONValue {
        switch operation {
        case "echoArguments": .object(arguments)
        case "answerWrongShape": "not an object"
        default: try await inner.perform(operation: operation, structure: structure, arguments: arguments)
        }
    }

    func status(structure: StructureID) async throws -> HubStatus { try await inner.status(structure: structure) }
    func prepareCommissioning(structure: StructureID) async throws -> String { try await inner.prepareCommissioning(structure: structure) }
    func createAddDeviceRequest(structure: StructureID, topology: Topology) async throws -> AddDeviceRequest {
        try await inner.createAddDeviceRequest(structure: structure, topology: topology)
    }
    func commissionDevice(structure: StructureID, onboardingPayload: String, commissioningID: String) async throws {
        try await inner.commissionDevice(structure: structure, onboardingPayload: onboardingPayload, commissioningID: commissioningID)
    }
    func fetchRooms(structure: StructureID) async throws -> [Room] { try await inner.fetchRooms(structure: structure) }
    func configureDevice(structure: StructureID, name: String, roomName: String?) async throws {
        try await inner.configureDevice(structure: structure, name: name, roomName: roomName)
    }
    func completeCommissioning(structure: StructureID) async throws -> [String] { try await inner.completeCommissioning(structure: structure) }
    func cancelCommissioning(structure: StructureID) async throws -> Bool { try await inner.cancelCommissioning(structure: structure) }
    func basicInformation(structure: StructureID, deviceID: String) async throws -> BasicInformation {
        try await inner.basicInformation(structure: structure, deviceID: deviceID)
    }
    func subscribe(structure: StructureID, _ handler: @escaping @Sendable (HubEvent) -> Void) async -> any HubEventSubscription {
        await inner.subscribe(structure: structure, handler)
    }
}
