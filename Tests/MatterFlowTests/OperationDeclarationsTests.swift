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

    @Test func aSecretFieldOfADeclaredEventIsRedactedWhereverTheRunShowsIt() async throws {
        let catalog = try OperationCatalog.standard.adding(
            try OperationDeclarations.parse(
                """
                {"catalog": "issuer", "version": 1, "events": {"credentialIssued": {
                  "summary": "a hub issued a device credential", "valueField": "outcome", "values": ["issued", "refused"],
                  "fields": {"outcome": {"type": "string"}, "credential": {"type": "string", "secret": true}}}}}
                """, file: "issuer.catalog.json"))
        #expect(catalog.event(named: "credentialIssued")?.secretFields == ["credential"])
        let engine = WorkflowEngine(catalog: catalog)
        let workflow = try engine.load(
            text: """
                {"workflow": "issue", "version": 1, "start": "wait", "states": {
                  "wait": {"type": "wait", "event": "credentialIssued", "timeoutSeconds": 60, "result": "issued",
                           "on": {"issued": "keep"}, "otherwise": "keep", "onTimeout": "keep"},
                  "keep": {"type": "assign", "set": {"copy": "${vars.issued.credential}"}, "next": "quote"},
                  "quote": {"type": "fail", "code": "aborted", "message": "issued ${vars.copy}"}}}
                """, baseDirectory: "/")
        let hub = ScriptedHub()
        let checkpoints = Mutex<[RunCheckpoint]>([])
        var options = RunOptions(structureID: "s", clock: ManualClock(), runID: "r")
        options.checkpoints = { checkpoint in checkpoints.withLock { $0.append(checkpoint) } }
        let handle = try engine.start(workflow, on: hub, options: options)
        var trace = ""
        for await event in handle.events {
            trace += JSONWriter.compact(event.jsonValue)
            if case .waitStarted = event.kind { hub.emit("credentialIssued", value: "issued", fields: ["outcome": "issued", "credential": "cred-7f3a9c"]) }
        }
        let result = await handle.result
        #expect(result.error?.message == "issued \(RunOptions.redacted)")
        let kept = checkpoints.withLock { $0 }.map { JSONWriter.compact($0.jsonValue) }.joined()
        #expect(trace.contains(#""event":"eventReceived""#), "\(trace)")
        #expect(!trace.contains("cred-7f3a9c") && !kept.contains("cred-7f3a9c"), "\(trace)\n\(kept)")
    }

    @Test func anEventsValueFieldCannotBeSecret() throws {
        do {
            _ = try OperationDeclarations.parse(
                """
                {"catalog": "issuer", "version": 1, "events": {"credentialIssued": {
                  "summary": "a hub issued a device credential", "valueField": "outcome", "values": ["issued"],
                  "fields": {"outcome": {"type": "string", "secret": true}}}}}
                """, file: "issuer.catalog.json")
            Issue.record("a secret value field was accepted")
        } catch {
            let finding = try #require(error.diagnostics.first)
            #expect(finding.code == "invalidValue")
            #expect(finding.pointer == "/events/credentialIssued/fields/outcome/secret")
            #expect(finding.message.contains("cannot be secret"))
        }
    }

    /// A catalog whose `pairBridgeDevice` takes an onboarding payload, as `commissionDevice` does.
    static let payloadCatalog = """
        {"catalog": "bridges", "version": 1, "operations": {"pairBridgeDevice": {
          "summary": "pairs a device behind a bridge by its code",
          "arguments": {"code": {"type": "string", "required": true, "onboardingPayload": true}},
          "result": {"code": {"type": "string"}}, "defaultTimeoutSeconds": 5, "effect": "idempotentWrite"}}}
        """

    @Test("an argument declared onboardingPayload is secret, checked before the hub sees it, and must be a string")
    func aDeclaredPayloadArgumentIsCheckedByTheEngine() async throws {
        let declarations = try OperationDeclarations.parse(Self.payloadCatalog, file: "bridges.catalog.json")
        let engine = WorkflowEngine(catalog: try OperationCatalog.standard.adding(declarations))
        let argument = try #require(engine.catalog["pairBridgeDevice"]?.arguments.first)
        #expect(argument.onboardingPayload)
        #expect(argument.secret, "a code holds the setup passcode")
        #expect(engine.catalog["pairBridgeDevice"]?.errors.contains(.invalidPayload) == true, "routes and fixtures can name it")
        // A literal that is no code is refused as the workflow loads, where it is written, never quoted.
        do {
            _ = try Self.workflow(engine, operation: "pairBridgeDevice", arguments: #"{ "code": "34970112333" }"#)
            Issue.record("a literal invalid code loaded")
        } catch let error as DiagnosticsError {
            #expect(error.diagnostics.map(\.pointer) == ["/states/call/arguments/code"])
            #expect(!error.diagnostics.contains { $0.message.contains("34970112333") })
        }
        // One that arrives at run time (here through the structure's ID) is checked before the hub sees it.
        for (code, valid) in [("34970112332", true), ("34970112333", false)] {
            let workflow = try Self.workflow(engine, operation: "pairBridgeDevice", arguments: #"{ "code": "${run.structureID}" }"#)
            let hub = RecordingEchoHub()
            let events = Mutex<[String]>([])
            let result = try await engine.run(
                workflow, on: hub, options: RunOptions(structureID: code, observer: { event in
                    events.withLock { $0.append(JSONWriter.compact(event.jsonValue)) }
                }))
            let trace = events.withLock { $0 }.joined(separator: "\n")
            #expect(!trace.contains(code), "never shown: \(trace)")
            if valid {
                #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
                #expect(result.output == ["code": .string(code)], "the hub got the code itself")
            } else {
                #expect(result.outcome == .failed)
                #expect(result.error?.cause == .invalidPayload)
                #expect(hub.performed.withLock { $0 }.isEmpty, "refused before the hub")
            }
        }
        do {
            _ = try OperationDeclarations.parse(
                Self.payloadCatalog.replacingOccurrences(of: #"{"type": "string", "required": true, "onboardingPayload": true}"#,
                    with: #"{"type": "integer", "onboardingPayload": true}"#),
                file: "bridges.catalog.json")
            Issue.record("a payload argument that is not a string was accepted")
        } catch {
            let finding = try #require(error.diagnostics.first)
            #expect(finding.code == "invalidValue")
            #expect(finding.pointer == "/operations/pairBridgeDevice/arguments/code/onboardingPayload")
        }
    }

    @Test func numbersNoValueCanHoldAreReportedWithTheFilesOtherFindings() throws {
        let text = """
            {
              "catalog": "numbers", "version": 1,
              "operations": {
                "a": { "summary": "a", "defaultTimeoutSeconds": 1e400, "effect": "read" },
                "b": { "summary": "b", "defaultTimeoutSeconds": NaN, "effect": "read" },
                "c": { "sumary": "c", "defaultTimeoutSeconds": 1e9, "effect": "read" }
              }
            }
            """
        let directory = try WorkflowDirectory("number-catalog", files: ["numbers.catalog.json": text])
        defer { directory.remove() }
        let path = directory.path + "/numbers.catalog.json"
        var reports: [[Diagnostic]] = []
        do {
            _ = try OperationDeclarations.parse(text, file: path)
            Issue.record("parse accepted a catalog with numbers no value can hold")
        } catch {
            reports.append(error.diagnostics)
        }
        do {
            _ = try OperationCatalog(loading: [path])
            Issue.record("loading accepted a catalog with numbers no value can hold")
        } catch {
            reports.append(error.diagnostics)
        }
        for found in reports {
            #expect(found.map(\.code) == ["numberOutOfRange", "numberOutOfRange", "missingKey", "unknownKey", "numberOutOfRange"], "\(found)")
            #expect(
                found.map(\.pointer) == [
                    "/operations/a/defaultTimeoutSeconds", "/operations/b/defaultTimeoutSeconds", "/operations/c", "/operations/c/sumary",
                    "/operations/c/defaultTimeoutSeconds",
                ], "\(found)")
            #expect(found.allSatisfy { $0.file == path && $0.location != nil }, "\(found)")
        }
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

    static let causeCatalog = """
        {
          "catalog": "locks", "version": 1,
          "causes": { "doorJammed": { "code": "failedPrecondition", "meaning": "the bolt cannot move" } },
          "operations": {
            "lockDoor": { "summary": "locks", "errors": ["deviceUnreachable", "doorJammed"], "defaultTimeoutSeconds": 5, "effect": "idempotentWrite" },
            "readLock": { "summary": "reads", "errors": ["deviceUnreachable"], "defaultTimeoutSeconds": 5, "effect": "read" }
          }
        }
        """

    @Test func aDeclaredCauseHasItsCodeEverywhereTheCatalogIsRead() throws {
        let catalog = try OperationCatalog.standard.adding(try OperationDeclarations.parse(Self.causeCatalog, file: "locks.catalog.json"))
        #expect(catalog.code(ofCause: "doorJammed") == .failedPrecondition)
        #expect(catalog.code(ofCause: "deviceUnreachable") == .unavailable)
        #expect(catalog.code(ofCause: "neverDeclared") == nil)
        let lock = try #require(catalog["lockDoor"])
        #expect(lock.code(of: ErrorCause(rawValue: "doorJammed")) == .failedPrecondition)
        let listed = lock.jsonValue["errors"]?.arrayValue?.compactMap { $0["cause"] == "doorJammed" ? $0["code"] : nil }
        #expect(listed == ["failedPrecondition"])
        #expect(OperationCatalog.standard.code(ofCause: "doorJammed") == nil)
    }

    @Test func routesNamingADeclaredCauseAreCheckedLikeBuiltInOnes() throws {
        let catalog = try OperationCatalog.standard.adding(try OperationDeclarations.parse(Self.causeCatalog, file: "locks.catalog.json"))
        let text = """
            { "workflow": "lock", "version": 1, "start": "read",
              "states": {
                "read": { "type": "action", "operation": "readLock", "next": "lock",
                          "onError": [{ "errors": ["doorJammed"], "next": "jammed" }, { "errors": ["*"], "next": "failed" }] },
                "lock": { "type": "action", "operation": "lockDoor", "next": "done",
                          "onError": [{ "errors": ["doorJammed"], "next": "jammed" }, { "errors": ["*"], "next": "failed" }] },
                "jammed": { "type": "fail", "code": "failedPrecondition", "cause": "doorJammed", "message": "jammed" },
                "failed": { "type": "fail", "error": "${error}" },
                "done": { "type": "succeed" } } }
            """
        let findings = WorkflowLoader(catalog: catalog).load(text: text, file: "lock.json", baseDirectory: "/").diagnostics
        let described = findings.map(\.description).joined(separator: "\n")
        #expect(!described.contains("unknownErrorName"), "\(described)")
        #expect(!described.contains("causeCodeMismatch"), "\(described)")
        // readLock never raises doorJammed: its route is dead; lockDoor's is not.
        #expect(findings.contains { $0.pointer == "/states/read/onError/0" && $0.message.contains("can never match") }, "\(described)")
        #expect(!findings.contains { $0.pointer == "/states/lock/onError/0" }, "\(described)")
        // Without the declarations the name is unknown.
        let plain = WorkflowLoader().load(text: text.replacingOccurrences(of: "readLock", with: "readHubStatus")
            .replacingOccurrences(of: "lockDoor", with: "readHubStatus"), file: "lock.json", baseDirectory: "/").diagnostics
        #expect(plain.contains { $0.code == "unknownErrorName" }, "\(plain.map(\.description))")
    }

    @Test func causesMustBeDeclaredWithACodeAndMayNotShadowBuiltInNames() throws {
        func findings(_ text: String) -> [Diagnostic] {
            do {
                _ = try OperationCatalog.standard.adding(try OperationDeclarations.parse(text, file: "c.catalog.json"))
                return []
            } catch {
                return error.diagnostics
            }
        }
        let undeclared = findings(#"{"catalog": "c", "version": 1, "operations": {"op": {"summary": "s", "errors": ["doorJamed"], "defaultTimeoutSeconds": 1, "effect": "read"}}}"#)
        #expect(undeclared.count == 1)
        #expect(undeclared.first?.pointer == "/operations/op/errors/0")
        #expect(undeclared.first?.message.contains("declare it with its code under \"causes\"") == true)
        let builtIn = findings(#"{"catalog": "c", "version": 1, "causes": {"deviceNotFound": {"code": "notFound", "meaning": "m"}}}"#)
        #expect(builtIn.map(\.code) == ["nameClash"])
        let codeName = findings(#"{"catalog": "c", "version": 1, "causes": {"aborted": {"code": "aborted", "meaning": "m"}}}"#)
        #expect(codeName.map(\.code) == ["nameClash"])
        let badCode = findings(#"{"catalog": "c", "version": 1, "causes": {"jam": {"code": "jammed", "meaning": "m"}}}"#)
        #expect(badCode.map(\.pointer) == ["/causes/jam/code"])
        // A cause whose code is wrong is that one mistake: an operation naming it is not told to declare it again,
        // and a code cut short is told the one meant.
        let cutShort = findings(#"""
            {"catalog": "c", "version": 1, "causes": {"jam": {"code": "failedPrecon", "meaning": "m"}},
             "operations": {"op": {"summary": "s", "errors": ["jam"], "defaultTimeoutSeconds": 1, "effect": "read"}}}
            """#)
        #expect(cutShort.map(\.pointer) == ["/causes/jam/code"], "\(cutShort.map(\.description))")
        #expect(cutShort.first?.message.contains("did you mean \"failedPrecondition\"?") == true, "\(cutShort.map(\.description))")
        let notAnObject = findings(#"""
            {"catalog": "c", "version": 1, "causes": {"jam": "failedPrecondition"},
             "operations": {"op": {"summary": "s", "errors": ["jam"], "defaultTimeoutSeconds": 1, "effect": "read"}}}
            """#)
        #expect(notAnObject.map(\.pointer) == ["/causes/jam"], "\(notAnObject.map(\.description))")
        let missing = findings(#"{"catalog": "c", "version": 1, "causes": {"jam": {"code": "aborted", "extra": 1}}}"#)
        #expect(Set(missing.map(\.pointer)) == ["/causes/jam", "/causes/jam/extra"], "\(missing.map(\.description))")
    }

    @Test func twoCatalogsMayShareACauseOnlyWithTheSameCode() throws {
        func catalog(_ name: String, _ operation: String, code: String) -> String {
            #"{"catalog": "\#(name)", "version": 1, "causes": {"doorJammed": {"code": "\#(code)", "meaning": "m"}}, "operations": {"\#(operation)": {"summary": "s", "errors": ["doorJammed"], "defaultTimeoutSeconds": 1, "effect": "read"}}}"#
        }
        let first = try OperationCatalog.standard.adding(try OperationDeclarations.parse(catalog("a", "opA", code: "aborted"), file: "a.json"))
        #expect(throws: Never.self) { try first.adding(try OperationDeclarations.parse(catalog("b", "opB", code: "aborted"), file: "b.json")) }
        do {
            _ = try first.adding(try OperationDeclarations.parse(catalog("c", "opC", code: "unavailable"), file: "c.json"))
            Issue.record("a cause redeclared with another code was accepted")
        } catch {
            #expect(error.diagnostics.map(\.code) == ["nameClash"])
            #expect(error.diagnostics.first?.message.contains("with code aborted, not unavailable") == true)
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
struct EchoHub: ForwardingHub {
    let inner = ScriptedHub()
    var base: any Hub { inner }

    func perform(operation: String, structure: StructureID, arguments: JSONObject) async throws -> JSONValue {
        switch operation {
        case "echoArguments": .object(arguments)
        case "answerWrongShape": "not an object"
        default: try await inner.perform(operation: operation, structure: structure, arguments: arguments)
        }
    }
}

/// Answers every custom operation with its arguments, and records which it performed.
final class RecordingEchoHub: ForwardingHub {
    let base: any Hub = ScriptedHub()
    let performed = Mutex<[String]>([])

    func perform(operation: String, structure: StructureID, arguments: JSONObject) async throws -> JSONValue {
        performed.withLock { $0.append(operation) }
        return .object(arguments)
    }
}
