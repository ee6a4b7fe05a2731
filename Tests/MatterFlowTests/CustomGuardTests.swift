import Foundation
import MatterFlow
import MatterFlowJSON
import Synchronization
import Testing

/// Custom guards declared in an operation catalog (docs/operation-catalog.md section 7): read from the hub's status
/// or from a read operation's result, checked in order with the built-in guards before each attempt.
@Suite("custom guards")
struct CustomGuardTests {
    static let catalogText = """
        {
          "catalog": "gauges", "version": 1,
          "causes": { "batteryTooLow": { "code": "failedPrecondition", "meaning": "the battery is too low" } },
          "operations": {
            "readBattery": {
              "summary": "reads a device's battery",
              "arguments": { "deviceID": { "type": "string", "required": true }, "pin": { "type": "string", "secret": true } },
              "result": { "percent": { "type": "integer" } },
              "errors": ["deviceUnreachable"], "defaultTimeoutSeconds": 7, "effect": "read"
            }
          },
          "guards": {
            "charged": {
              "summary": "the device has 30 % battery",
              "operation": "readBattery",
              "arguments": { "deviceID": "${input.deviceID}", "pin": "${input.pin}" },
              "passesWhen": { "greaterThanOrEqual": ["${vars.result.percent}", 30] },
              "error": { "cause": "batteryTooLow", "message": "charge the device, then retry" }
            },
            "idle": {
              "summary": "the hub is online and no session is active",
              "passesWhen": { "and": [{ "equals": ["${vars.status.online}", true] }, { "equals": ["${vars.status.activeSession}", false] }] },
              "error": { "cause": "sessionBusy", "message": "wait until the hub is idle" }
            }
          }
        }
        """

    static func catalog() throws -> OperationCatalog {
        try OperationCatalog.standard.adding(try OperationDeclarations.parse(catalogText, file: "gauges.catalog.json"))
    }

    /// A workflow whose one action lists `guards`, routing `batteryTooLow` to `charge` and the rest to `failed`.
    static func workflowText(guards: String = #"["permission", "idle", "charged"]"#, extra: String = "") -> String {
        """
        { "workflow": "guarded", "version": 1,
          "inputs": { "deviceID": { "type": "string", "required": true }, "pin": { "type": "string", "secret": true } },
          "start": "read",
          "states": {
            "read": { "type": "action", "operation": "fetchRooms", "guards": \(guards), \(extra) "result": "rooms", "next": "done",
                      "onError": [{ "errors": ["batteryTooLow"], "next": "charge" }, { "errors": ["*"], "next": "failed" }] },
            "done": { "type": "succeed" },
            "charge": { "type": "fail", "code": "failedPrecondition", "cause": "batteryTooLow", "message": "charge it" },
            "failed": { "type": "fail", "error": "${error}" } } }
        """
    }

    static func run(
        _ hub: BatteryHub, guards: String = #"["permission", "idle", "charged"]"#, extra: String = ""
    ) async throws -> (RunResult, EventLog) {
        let engine = WorkflowEngine(catalog: try catalog())
        let workflow = try engine.load(text: workflowText(guards: guards, extra: extra), baseDirectory: "/")
        let log = EventLog()
        let result = try await engine.run(
            workflow, inputs: ["deviceID": "sensor-1", "pin": "pin-90210"],
            on: hub, options: RunOptions(structureID: "home", observer: log.observer))
        return (result, log)
    }

    /// The guard checks and hub calls of a run, in order.
    static func steps(_ log: EventLog) -> [String] {
        log.all.compactMap { event in
            switch event.kind {
            case .guardChecked(_, let listed, let error): "guard \(listed.name) " + (error.map { "failed \($0.cause.rawValue)" } ?? "passed")
            case .hubCallStarted(_, let operation, _, _): "call \(operation)"
            default: nil
            }
        }
    }

    // MARK: - Runs

    @Test func anOperationGuardThatPassesLetsTheStepWorkAfterTheBuiltInAndStatusGuards() async throws {
        let hub = BatteryHub(percents: [80])
        let (result, log) = try await Self.run(hub)
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(Self.steps(log) == [
            "guard permission passed", "guard idle passed", "call readBattery", "guard charged passed", "call fetchRooms",
        ])
        // The guard's arguments are evaluated in the state's scope; the secret one reaches the hub, not the events.
        #expect(hub.reads == [["deviceID": "sensor-1", "pin": "pin-90210"]])
        let trace = log.all.map { JSONWriter.compact($0.jsonValue) }.joined(separator: "\n")
        #expect(!trace.contains("pin-90210"), "\(trace)")
        #expect(trace.contains(#""guard":"charged""#), "\(trace)")
    }

    @Test func aGuardWhoseConditionDoesNotHoldRaisesItsErrorWhichIsRouted() async throws {
        let hub = BatteryHub(percents: [12])
        let (result, log) = try await Self.run(hub)
        #expect(result.visitedStates == ["read", "charge"])
        #expect(Self.steps(log) == ["guard permission passed", "guard idle passed", "call readBattery", "guard charged failed batteryTooLow"])
        let failure = log.all.compactMap { event -> FlowError? in
            if case .guardChecked(_, .custom("charged"), let error?) = event.kind { return error }
            return nil
        }.first
        #expect(failure?.code == .failedPrecondition)
        #expect(failure?.message == "charge the device, then retry")
    }

    @Test func theGuardsOperationErrorIsTheStepsError() async throws {
        let hub = BatteryHub(percents: [], failure: FlowError(.deviceUnreachable, "sensor-1 is asleep"))
        let (result, log) = try await Self.run(hub)
        #expect(result.visitedStates == ["read", "failed"])
        #expect(result.error?.cause == .deviceUnreachable)
        #expect(result.error?.message == "sensor-1 is asleep")
        #expect(Self.steps(log).last == "guard charged failed deviceUnreachable")
        #expect(!Self.steps(log).contains("call fetchRooms"))
    }

    @Test func aStatusGuardReadsTheStatusFacts() async throws {
        let hub = BatteryHub(percents: [80])
        hub.inner.setStatus(HubStatus(online: true, reachable: true, permissionGranted: true, activeSession: true))
        let (result, log) = try await Self.run(hub)
        #expect(result.error?.cause == .sessionBusy)
        #expect(result.error?.message == "wait until the hub is idle")
        #expect(Self.steps(log) == ["guard permission passed", "guard idle failed sessionBusy"])
        #expect(hub.reads.isEmpty)
    }

    @Test func aRetryChecksTheGuardsAgain() async throws {
        let hub = BatteryHub(percents: [12, 64])
        let (result, log) = try await Self.run(
            hub, guards: #"["charged"]"#, extra: #""retry": [{ "errors": ["batteryTooLow"], "maxRetries": 1, "intervalSeconds": 1 }],"#)
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(Self.steps(log) == [
            "call readBattery", "guard charged failed batteryTooLow", "call readBattery", "guard charged passed", "call fetchRooms",
        ])
    }

    @Test func theSameDeclarationsWorkRegisteredInSwift() async throws {
        let batteryTooLow = ErrorCause(rawValue: "batteryTooLow")
        let fileDeclarations = try OperationDeclarations.parse(Self.catalogText, file: "gauges.catalog.json")
        let charged = GuardDescriptor(
            name: "charged", summary: "the device has 30 % battery",
            check: .operation(
                "readBattery", arguments: [("deviceID", .reference(try Reference.parse("input.deviceID")))],
                passesWhen: .compare(.greaterThanOrEqual, .reference(try Reference.parse("vars.result.percent")), .literal(30))),
            cause: batteryTooLow, message: "charge the device, then retry",
            declaredCauses: [DeclaredCause(batteryTooLow, code: .failedPrecondition, meaning: "the battery is too low")])
        let declarations = OperationDeclarations(name: "gauges", operations: fileDeclarations.operations, guards: [charged])
        let engine = WorkflowEngine(catalog: try OperationCatalog.standard.adding(declarations))
        let workflow = try engine.load(text: Self.workflowText(guards: #"["charged"]"#), baseDirectory: "/")
        let result = try await engine.run(workflow, inputs: ["deviceID": "sensor-1"], on: BatteryHub(percents: [5]), options: RunOptions(structureID: "home"))
        #expect(result.visitedStates == ["read", "charge"])

        // A guard may only call a read operation: one that writes is refused when the declarations are added.
        let writing = OperationDescriptor(
            name: "pokeDevice", summary: "writes", arguments: [], result: .object([]), errors: [], defaultTimeoutSeconds: 1,
            effect: .idempotentWrite) { _, _, _ in [:] }
        let poking = GuardDescriptor(
            name: "poked", summary: "s", check: .operation("pokeDevice", arguments: [], passesWhen: .exists(.literal(true))),
            cause: .hubFailure, message: "m")
        #expect {
            _ = try OperationCatalog.standard.adding(OperationDeclarations(name: "w", operations: [writing], guards: [poking]))
        } throws: { error in
            (error as? DiagnosticsError)?.diagnostics.contains { $0.code == "invalidValue" && $0.message.contains("effect \"idempotentWrite\"") } == true
        }
    }

    // MARK: - Loading workflows

    @Test func anUnknownGuardIsALocatedErrorThatSaysToPassTheCatalog() throws {
        let without = WorkflowLoader().load(text: Self.workflowText(), file: "w.json", baseDirectory: "/").diagnostics
        let unknown = without.filter { $0.code == "unknownGuard" }
        #expect(unknown.map(\.pointer) == ["/states/read/guards/1", "/states/read/guards/2"], "\(without)")
        #expect(unknown.first?.message.contains("pass --catalog") == true, "\(unknown)")
        let with = WorkflowLoader(catalog: try Self.catalog()).load(text: Self.workflowText(), file: "w.json", baseDirectory: "/")
        #expect(with.workflow != nil, "\(with.diagnostics)")
        #expect(!with.diagnostics.contains { $0.severity == .error }, "\(with.diagnostics)")
    }

    @Test func aGuardReadingAnInputTheWorkflowLacksIsAnError() throws {
        let text = Self.workflowText(guards: #"["charged"]"#).replacingOccurrences(of: #""deviceID": { "type": "string", "required": true }, "#, with: "")
        let found = WorkflowLoader(catalog: try Self.catalog()).load(text: text, file: "w.json", baseDirectory: "/").diagnostics
        #expect(found.contains { $0.code == "undefinedInput" && $0.pointer == "/states/read/guards/0" && $0.message.contains("${input.deviceID}") }, "\(found)")
    }

    /// A guard's arguments are checked like an action's, at the guard's place in the state's `guards`: a variable no
    /// state binds, one bound only by the guarded state itself, and a field the input's type lacks.
    @Test(arguments: [
        ("${vars.battery}", "undefinedVariable", "which no state binds"),
        ("${vars.rooms}", "undefinedVariable", "is read before any state on the way here binds"),
        ("${input.deviceID.serial}", "unknownField", "${input.deviceID.serial}"),
    ])
    func aGuardsArgumentsAreCheckedLikeAnActions(argument: String, code: String, message: String) throws {
        let catalogText = Self.catalogText.replacingOccurrences(
            of: #""deviceID": "${input.deviceID}", "pin""#, with: #""deviceID": "\#(argument)", "pin""#)
        #expect(catalogText != Self.catalogText)
        let catalog = try OperationCatalog.standard.adding(try OperationDeclarations.parse(catalogText, file: "gauges.catalog.json"))
        let found = WorkflowLoader(catalog: catalog).load(text: Self.workflowText(guards: #"["charged"]"#), file: "w.json", baseDirectory: "/")
        #expect(found.workflow == nil)
        #expect(
            found.diagnostics.contains { $0.code == code && $0.pointer == "/states/read/guards/0" && $0.message.contains(message) },
            "\(found.diagnostics)")
    }

    /// A cause only a guard declares is a known cause to routes, and a misspelling of it gets a hint.
    @Test func aRouteMisspellingACauseOnlyAGuardDeclaresGetsAHint() throws {
        let catalogText = """
            { "catalog": "busy", "version": 1,
              "causes": { "hubBusy": { "code": "unavailable", "meaning": "the hub is busy" } },
              "guards": { "idle": { "summary": "s", "passesWhen": { "equals": ["${vars.status.activeSession}", false] },
                                    "error": { "cause": "hubBusy", "message": "wait until the hub is idle" } } } }
            """
        let catalog = try OperationCatalog.standard.adding(try OperationDeclarations.parse(catalogText, file: "busy.catalog.json"))
        let text = Self.workflowText(guards: #"["idle"]"#).replacingOccurrences(of: #""errors": ["batteryTooLow"]"#, with: #""errors": ["hubBusi"]"#)
        let found = WorkflowLoader(catalog: catalog).load(text: text, file: "w.json", baseDirectory: "/").diagnostics
        let warning = try #require(found.first { $0.code == "unknownErrorName" }, "\(found)")
        #expect(warning.message.contains(#"did you mean "hubBusy"?"#), "\(warning.message)")
    }

    @Test func theGraphShowsCustomGuards() throws {
        let workflow = try WorkflowEngine(catalog: try Self.catalog()).load(text: Self.workflowText(), baseDirectory: "/")
        let dot = try WorkflowGraph.build(workflow).dot
        #expect(dot.contains(#"read\nfetchRooms\nguards: permission, idle, charged"#), "\(dot)")
    }

    // MARK: - Verification

    @Test func theVerifierCountsAGuardsCausesAndTimeout() throws {
        let catalog = try Self.catalog()
        // Only the guard raises batteryTooLow: its route is live with the guard, dead without it.
        let guarded = WorkflowLoader(catalog: catalog).load(text: Self.workflowText(guards: #"["charged"]"#), file: "w.json", baseDirectory: "/")
        #expect(!guarded.diagnostics.contains { $0.code == "deadErrorRoute" }, "\(guarded.diagnostics)")
        let unguarded = WorkflowLoader(catalog: catalog).load(text: Self.workflowText(guards: "[]"), file: "w.json", baseDirectory: "/")
        #expect(unguarded.diagnostics.contains { $0.code == "deadErrorRoute" && $0.pointer == "/states/read/onError/0" }, "\(unguarded.diagnostics)")

        // Without a route for every error, the guard's causes are among those that escape.
        let narrow = Self.workflowText(guards: #"["charged"]"#)
            .replacingOccurrences(of: #"{ "errors": ["*"], "next": "failed" }"#, with: #"{ "errors": ["hubOffline"], "next": "failed" }"#)
        let escaping = WorkflowLoader(catalog: catalog).load(text: narrow, file: "w.json", baseDirectory: "/").diagnostics
        let unhandled = try #require(escaping.first { $0.code == "unhandledError" }, "\(escaping)")
        #expect(unhandled.message.contains("deviceUnreachable"), "\(unhandled.message)")

        // The time bound: the guard's operation (7 s) and the call (fetchRooms, 10 s), each with its 5 s wind-down.
        let workflow = try WorkflowEngine(catalog: catalog).load(text: Self.workflowText(guards: #"["charged"]"#), baseDirectory: "/")
        let done = try #require(TimeBudget(workflow: workflow, catalog: catalog).ends.first { $0.state == "done" })
        #expect(done.worstSeconds == 7 + 5 + 10 + 5)
    }

    /// The verifier claims only the errors a guard can raise: a status guard whose condition reads status facts
    /// always resolves them, and a step with only operation guards reads no status, so the status read's errors
    /// (structureNotFound) are not among the step's.
    @Test func theVerifierClaimsOnlyTheErrorsAGuardCanRaise() throws {
        let catalog = try Self.catalog()
        let idle = try #require(catalog.customGuard(named: "idle"))
        let charged = try #require(catalog.customGuard(named: "charged"))
        #expect(!catalog.possibleCauses(of: idle).contains(.unresolvedReference))
        #expect(catalog.possibleCauses(of: idle).contains(.structureNotFound))
        #expect(catalog.possibleCauses(of: charged).contains(.unresolvedReference))
        #expect(!catalog.possibleCauses(of: charged).contains(.structureNotFound))

        let text = """
            { "workflow": "guarded", "version": 1,
              "inputs": { "deviceID": { "type": "string", "required": true }, "pin": { "type": "string", "secret": true } },
              "start": "read",
              "states": {
                "read": { "type": "action", "operation": "readBattery", "arguments": { "deviceID": "${input.deviceID}" },
                          "guards": ["charged"], "next": "done", "onError": [{ "errors": ["batteryTooLow"], "next": "failed" }] },
                "done": { "type": "succeed" },
                "failed": { "type": "fail", "error": "${error}" } } }
            """
        let found = WorkflowLoader(catalog: catalog).load(text: text, file: "w.json", baseDirectory: "/").diagnostics
        let unhandled = try #require(found.first { $0.code == "unhandledError" }, "\(found)")
        #expect(unhandled.message.contains("deviceUnreachable"), "\(unhandled.message)")
        #expect(!unhandled.message.contains("structureNotFound"), "\(unhandled.message)")
    }

    // MARK: - Catalog files

    /// A catalog whose only guard is `guard` (JSON), besides the gauges catalog's cause and operation.
    static func catalog(guard body: String, name: String = "g") -> String {
        catalogText.replacingOccurrences(
            of: #""guards": {"#, with: #""guards": { "\#(name)": \#(body),"#)
    }

    @Test(arguments: [
        (#"{ "summary": "s", "passesWhen": { "exists": "${vars.status.online}" }, "error": { "cause": "hubOffline", "message": "m" }, "timeout": 3 }"#,
         "unknownKey", "/guards/g/timeout"),
        (#"{ "summary": "s", "operation": "readBatery", "passesWhen": { "exists": "${vars.result}" }, "error": { "cause": "hubOffline", "message": "m" } }"#,
         "invalidValue", "/guards/g/operation"),
        (#"{ "summary": "s", "operation": "prepareCommissioning", "passesWhen": { "exists": "${vars.result}" }, "error": { "cause": "hubOffline", "message": "m" } }"#,
         "invalidValue", "/guards/g/operation"),
        (#"{ "summary": "s", "passesWhen": { "equal": ["${vars.status.online}", true] }, "error": { "cause": "hubOffline", "message": "m" } }"#,
         "invalidCondition", "/guards/g/passesWhen/equal"),
        (#"{ "summary": "s", "passesWhen": { "equals": ["${input.x}", true] }, "error": { "cause": "hubOffline", "message": "m" } }"#,
         "invalidValue", "/guards/g/passesWhen"),
        (#"{ "summary": "s", "passesWhen": { "equals": ["${vars.status.busy}", true] }, "error": { "cause": "hubOffline", "message": "m" } }"#,
         "unknownField", "/guards/g/passesWhen"),
        (#"{ "summary": "s", "passesWhen": { "equals": ["${vars.status.online.since}", true] }, "error": { "cause": "hubOffline", "message": "m" } }"#,
         "unknownField", "/guards/g/passesWhen"),
        (#"{ "summary": "s", "operation": "readBattery", "arguments": { "deviceID": "d" }, "passesWhen": { "exists": "${vars.result.level}" }, "error": { "cause": "hubOffline", "message": "m" } }"#,
         "unknownField", "/guards/g/passesWhen"),
        (#"{ "summary": "s", "operation": "readBattery", "arguments": { "deviceID": "d" }, "passesWhen": { "exists": "${vars.result.percent.x}" }, "error": { "cause": "hubOffline", "message": "m" } }"#,
         "unknownField", "/guards/g/passesWhen"),
        (#"{ "summary": "s", "operation": "readBattery", "arguments": { "deviceID": "d", "device": "d" }, "passesWhen": { "exists": "${vars.result}" }, "error": { "cause": "hubOffline", "message": "m" } }"#,
         "unexpectedArgument", "/guards/g/arguments/device"),
        (#"{ "summary": "s", "operation": "readBattery", "arguments": { "pin": "p" }, "passesWhen": { "exists": "${vars.result}" }, "error": { "cause": "hubOffline", "message": "m" } }"#,
         "missingArgument", "/guards/g/arguments"),
        (#"{ "summary": "s", "operation": "readBattery", "arguments": { "deviceID": 4 }, "passesWhen": { "exists": "${vars.result}" }, "error": { "cause": "hubOffline", "message": "m" } }"#,
         "argumentType", "/guards/g/arguments/deviceID"),
        (#"{ "summary": "s", "operation": "readBattery", "arguments": { "deviceID": "${error.state}" }, "passesWhen": { "exists": "${vars.result}" }, "error": { "cause": "hubOffline", "message": "m" } }"#,
         "invalidValue", "/guards/g/arguments/deviceID"),
        (#"{ "summary": "s", "arguments": { "deviceID": "d" }, "passesWhen": { "exists": "${vars.status}" }, "error": { "cause": "hubOffline", "message": "m" } }"#,
         "invalidValue", "/guards/g/arguments"),
        (#"{ "summary": "s", "passesWhen": { "exists": "${vars.status}" }, "error": { "cause": "batteryToLow", "message": "m" } }"#,
         "invalidValue", "/guards/g/error/cause"),
        (#"{ "summary": "s", "passesWhen": { "exists": "${vars.status}" } }"#,
         "missingKey", "/guards/g"),
    ])
    func everyMistakeInAGuardIsReportedWhereItStands(body: String, code: String, pointer: String) throws {
        do {
            _ = try OperationCatalog.standard.adding(try OperationDeclarations.parse(Self.catalog(guard: body), file: "c.json"))
            Issue.record("accepted \(body)")
        } catch {
            #expect(error.diagnostics.contains { $0.code == code && $0.pointer == pointer }, "\(error.diagnostics)")
            #expect(error.diagnostics.allSatisfy { $0.location != nil }, "\(error.diagnostics)")
        }
    }

    /// A catalog file with errors still has its guards checked when it is loaded, each finding in file order; a
    /// guard whose operation is declared but did not decode is left to that operation's finding.
    @Test func aFileWithErrorsReportsItsGuardsProblemsButNoneForAnOperationThatDidNotDecode() throws {
        let text = Self.catalog(guard: #"{ "summary": "s", "passesWhen": { "exists": "${vars.status.busy}" }, "error": { "cause": "hubOffline", "message": "m" } }"#)
            .replacingOccurrences(of: #""effect": "read""#, with: #""effect": "reed""#)
        // A mistake after the guards, so the guard's finding must be sorted in before it.
        let withLateMistake = String(text.dropLast()) + #", "notes": 1 }"#
        let directory = try WorkflowDirectory("guard-catalog", files: ["gauges.catalog.json": withLateMistake])
        defer { directory.remove() }
        do {
            _ = try OperationCatalog(loading: [directory.path + "/gauges.catalog.json"])
            Issue.record("accepted a catalog with errors")
        } catch {
            let found = error.diagnostics
            #expect(found.contains { $0.pointer == "/operations/readBattery/effect" }, "\(found)")
            #expect(found.contains { $0.code == "unknownField" && $0.pointer == "/guards/g/passesWhen" }, "\(found)")
            #expect(!found.contains { $0.pointer.hasPrefix("/guards/charged") }, "the guard of the broken operation: \(found)")
            #expect(found.contains { $0.pointer == "/notes" }, "\(found)")
            #expect(found == found.sortedByLocation(), "\(found)")
        }
    }

    /// A guard declared in Swift gets the checks a catalog file's guard gets, when the declarations are added.
    @Test(arguments: [
        (GuardDescriptor.Check.operation("readBattery", arguments: [("device", .literal("d"))], passesWhen: .exists(.literal(true))),
         "missingArgument", "/guards/g/arguments"),
        (.operation("readBattery", arguments: [("deviceID", .literal(4))], passesWhen: .exists(.literal(true))),
         "argumentType", "/guards/g/arguments/deviceID"),
        (.operation("readBattery", arguments: [("deviceID", .literal("d"))], passesWhen: .exists(.reference(Reference(root: .vars, path: [.member("result"), .member("level")])))),
         "unknownField", "/guards/g/passesWhen"),
        (.status(passesWhen: .exists(.reference(Reference(root: .input, path: [.member("deviceID")])))),
         "invalidValue", "/guards/g/passesWhen"),
    ])
    func aGuardDeclaredInSwiftIsCheckedAsAFilesIs(check: GuardDescriptor.Check, code: String, pointer: String) throws {
        let operations = try OperationDeclarations.parse(Self.catalogText, file: "gauges.catalog.json").operations
        let declared = GuardDescriptor(name: "g", summary: "s", check: check, cause: .hubOffline, message: "m")
        do {
            _ = try OperationCatalog.standard.adding(OperationDeclarations(name: "swift", operations: operations, guards: [declared]))
            Issue.record("accepted \(check)")
        } catch {
            #expect(error.diagnostics.contains { $0.code == code && $0.pointer == pointer && $0.file == "<swift>" }, "\(error.diagnostics)")
        }
    }

    @Test func aGuardNamedLikeABuiltInOneClashes() throws {
        let body = #"{ "summary": "s", "passesWhen": { "exists": "${vars.status}" }, "error": { "cause": "hubOffline", "message": "m" } }"#
        do {
            _ = try OperationDeclarations.parse(Self.catalog(guard: body, name: "permission"), file: "c.json")
            Issue.record("a guard named permission was accepted")
        } catch {
            #expect(error.diagnostics.map(\.code) == ["nameClash"], "\(error.diagnostics)")
            #expect(error.diagnostics.first?.pointer == "/guards/permission")
        }
        let declarations = try OperationDeclarations.parse(Self.catalogText, file: "gauges.catalog.json")
        #expect(declarations.guards.map(\.name) == ["charged", "idle"])
        #expect(throws: DiagnosticsError.self) { try OperationCatalog.standard.adding(declarations).adding(declarations) }
    }
}

/// A hub whose custom `readBattery` answers from a script, recording each call's arguments.
final class BatteryHub: ForwardingHub {
    let inner = ScriptedHub()
    var base: any Hub { inner }
    private let state: Mutex<(percents: [Int], reads: [JSONObject])>
    private let failure: FlowError?

    init(percents: [Int], failure: FlowError? = nil) {
        state = Mutex((percents, []))
        self.failure = failure
    }

    var reads: [JSONObject] { state.withLock { $0.reads } }

    func perform(operation: String, structure: StructureID, arguments: JSONObject) async throws -> JSONValue {
        guard operation == "readBattery" else { return try await inner.perform(operation: operation, structure: structure, arguments: arguments) }
        let percent = state.withLock { state -> Int in
            state.reads.append(arguments)
            return state.percents.isEmpty ? 0 : state.percents.removeFirst()
        }
        if let failure { throw failure }
        return ["percent": .int(percent)]
    }
}
