import Foundation
import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
import Testing

/// `--catalog FILE`: custom operations declared in an operation catalog file, understood by `validate`, `graph`,
/// `test`, `operations`, `hub check` and `run --hub` (docs/operation-catalog.md).
@Suite("operation catalog files")
struct OperationCatalogCommandTests {
    static let example = Repository.root + "/Examples/custom-operations"
    static let catalog = example + "/firmware.catalog.json"
    static let workflow = example + "/update-firmware.json"
    /// The commissioning methods a hub without recovery support lists.
    static let commissioningMethods = HubMethod.commissioning.filter { $0 != "activeSession" }

    @Test func aWorkflowUsingCustomOperationsValidatesOnlyWithItsCatalog() async throws {
        let with = await matterflow(["validate", Self.workflow, "--catalog", Self.catalog])
        #expect(with.code == 0, "\(with.stderr)")
        #expect(with.stderr.contains("1 file valid"))
        let without = await matterflow(["validate", Self.workflow])
        #expect(without.code == 2)
        #expect(without.stderr.contains("error[unknownOperation]: /states/readStatus/operation"), "\(without.stderr)")
    }

    @Test func graphDrawsTheCustomOperations() async throws {
        let run = await matterflow(["graph", Self.workflow, "--catalog", Self.catalog, "--format", "mermaid"])
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stdout.contains("readStatus<br/>readFirmwareStatus"), "\(run.stdout)")
        #expect(run.stdout.contains("startUpdate<br/>startFirmwareUpdate"), "\(run.stdout)")
        // Without its catalog the operations are unknown: drawn as written all the same, the errors saying why.
        let without = await matterflow(["graph", Self.workflow, "--format", "mermaid"])
        #expect(without.code == 0)
        #expect(without.stdout == run.stdout)
        #expect(without.stderr.contains("error[unknownOperation]: /states/readStatus/operation") && without.stderr.contains("note: drawn as written"), "\(without.stderr)")
    }

    @Test func theExampleFixturesPassWithTheCatalog() async throws {
        let run = await matterflow(["test", Self.example + "/fixtures", "--catalog", Self.catalog])
        #expect(run.code == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.hasSuffix("12 passed, 0 failed\n"), "\(run.stdout)")
        #expect(run.stdout.contains("PASS  update-firmware: the deviceCharged guard finds the battery too low, so the update is never started"))
        #expect(run.stdout.contains("PASS  update-firmware: a nearly empty device that is charging passes the deviceCharged guard and the update starts"))
        #expect(run.stdout.contains("PASS  update-firmware: the deviceCharged guard cannot read the battery; its operation's error is the step's error, routed like any"))
        #expect(run.stdout.contains("PASS  update-firmware: the hub goes offline after the status read, so the hubIdle guard stops the update before any battery read"))
        #expect(run.stdout.contains("PASS  update-firmware: a newer version is offered and the update starts"))
        #expect(run.stdout.contains("PASS  update-firmware: the simulated home implements no custom operation unless the fixture scripts it"))
    }

    @Test func callExpectationsCountCustomOperations() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try directory.write(
            """
            {
              "fixture": "up to date, but an update is expected",
              "version": 1,
              "workflow": "\(Self.workflow)",
              "inputs": { "deviceID": "d" },
              "faults": [{ "operation": "readFirmwareStatus", "result": { "currentVersion": "1", "availableVersion": "1", "updateAvailable": false } }],
              "expect": { "outcome": "succeeded", "calls": { "readFirmwareStatus": { "count": 1, "failed": 0 }, "startFirmwareUpdate": 1 } }
            }
            """, to: "calls.fixture.json")
        let run = await matterflow(["test", fixture, "--catalog", Self.catalog])
        #expect(run.code == 1, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("calls.startFirmwareUpdate: expected 1 call, got 0"), "\(run.stdout)")
        #expect(!run.stdout.contains("calls.readFirmwareStatus"), "\(run.stdout)")
    }

    @Test func operationsListsTheDeclaredOperationsAndEvents() async throws {
        let run = await matterflow(["operations", "--catalog", Self.catalog, "--json"])
        #expect(run.code == 0, "\(run.stderr)")
        let listing = try #require(try parseJSON(run.stdout) as? [String: Any])
        let operations = try #require(listing["operations"] as? [[String: Any]])
        let start = try #require(operations.first { $0["name"] as? String == "startFirmwareUpdate" })
        #expect(start["effect"] as? String == "nonIdempotentWrite")
        #expect(start["defaultTimeoutSeconds"] as? Double == 30)
        let token = try #require((start["arguments"] as? [[String: Any]])?.first { $0["name"] as? String == "updateToken" })
        #expect(token["secret"] as? Bool == true)
        let events = try #require(listing["events"] as? [[String: Any]])
        #expect(events.contains { $0["name"] as? String == "firmwareUpdateFinished" })
    }

    @Test func aDeclaredCauseIsListedWithItsCodeAndRoutedWithoutWarnings() async throws {
        let listing = await matterflow(["operations", "--catalog", Self.catalog])
        #expect(listing.code == 0, "\(listing.stderr)")
        #expect(listing.stdout.contains("failedPrecondition/batteryTooLow"), "\(listing.stdout)")
        let valid = await matterflow(["validate", Self.workflow, "--catalog", Self.catalog])
        #expect(valid.code == 0, "\(valid.stderr)")
        #expect(!valid.stderr.contains("unknownErrorName"), "\(valid.stderr)")
    }

    @Test func aFixtureMayInjectADeclaredCauseByNameAlone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // Without the catalog's declaration the cause has no code, so the fixture must give one.
        let fixture = try directory.write(
            """
            {
              "fixture": "low battery while reading",
              "version": 1,
              "workflow": "\(Self.workflow)",
              "inputs": { "deviceID": "d" },
              "faults": [{ "operation": "readFirmwareStatus", "fail": { "cause": "batteryTooLow" } }],
              "expect": { "outcome": "failed", "error": { "code": "failedPrecondition", "cause": "batteryTooLow" } }
            }
            """, to: "battery.fixture.json")
        let run = await matterflow(["test", fixture, "--catalog", Self.catalog])
        // readFirmwareStatus does not declare batteryTooLow: the fixture may still inject it, with a warning.
        #expect(run.code == 0, "\(run.stdout)\n\(run.stderr)")
        #expect((run.stdout + run.stderr).contains("readFirmwareStatus does not declare cause \"batteryTooLow\""), "\(run.stdout)\n\(run.stderr)")
    }

    @Test func aFixtureResultOfTheWrongShapeIsALocatedError() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fixture = try directory.write(
            """
            {
              "fixture": "wrong shape",
              "version": 1,
              "workflow": "\(Self.workflow)",
              "inputs": { "deviceID": "d" },
              "faults": [{ "operation": "readFirmwareStatus", "result": { "updateAvailable": "yes" } }],
              "expect": { "outcome": "succeeded" }
            }
            """, to: "wrong.fixture.json")
        let run = await matterflow(["test", fixture, "--catalog", Self.catalog])
        #expect(run.code == 2)
        #expect(run.stderr.contains("wrong.fixture.json:6:61: error[invalidValue]: /faults/0/result"), "\(run.stderr)")
        let builtIn = try directory.write(
            """
            {
              "fixture": "result for a built-in operation",
              "version": 1,
              "workflow": "\(Repository.workflow("prepare"))",
              "faults": [{ "operation": "prepareCommissioning", "result": { "sessionID": "s" } }],
              "expect": { "outcome": "succeeded" }
            }
            """, to: "builtin.fixture.json")
        let refused = await matterflow(["test", builtIn, "--catalog", Self.catalog])
        #expect(refused.code == 2)
        #expect(refused.stderr.contains("error[unknownKey]: /faults/0/result"), "\(refused.stderr)")
    }

    // MARK: - Bad catalogs

    @Test func aCatalogRedeclaringABuiltInOperationIsRefusedWhereItStands() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let catalog = try directory.write(
            """
            {
              "catalog": "clash",
              "version": 1,
              "operations": {
                "commissionDevice": { "summary": "mine", "defaultTimeoutSeconds": 10, "effect": "read" }
              },
              "events": {
                "epskcModeDeactivated": { "summary": "mine", "valueField": "v", "values": ["x"], "fields": { "v": { "type": "string" } } }
              }
            }
            """, to: "clash.catalog.json")
        for command in ["validate", "graph", "run"] {
            let run = await matterflow([command, Repository.workflow("prepare"), "--catalog", catalog])
            #expect(run.code == 2, "\(command): \(run.stderr)")
            #expect(
                run.stderr.contains("clash.catalog.json:5:5: error[nameClash]: /operations/commissionDevice: operation \"commissionDevice\" is built in"),
                "\(command): \(run.stderr)")
            #expect(run.stderr.contains("clash.catalog.json:8:5: error[nameClash]: /events/epskcModeDeactivated"), "\(run.stderr)")
        }
    }

    @Test("two catalog files declaring one name are refused; one file named twice is read once")
    func twoCatalogsDeclaringOneNameAreRefused() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let copy = try directory.write(try String(contentsOfFile: Self.catalog, encoding: .utf8), to: "firmware.catalog.json")
        let run = await matterflow(["validate", Self.workflow, "--catalog", Self.catalog, "--catalog", copy])
        #expect(run.code == 2)
        #expect(run.stderr.contains("firmware.catalog.json:11:5: error[nameClash]: /operations/readFirmwareStatus"), "\(run.stderr)")
        #expect(run.stderr.contains("firmware.catalog.json:79:5: error[nameClash]: /guards/deviceCharged: guard \"deviceCharged\" is already in the catalog"), "\(run.stderr)")
        let twice = await matterflow(["validate", Self.workflow, "--catalog", Self.catalog, "--catalog", Self.catalog])
        #expect(twice.code == 0, "\(twice.stderr)")
    }

    @Test func everyMistakeInACatalogIsReportedWithItsPlace() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let catalog = try directory.write(
            """
            {
              "catalog": "broken",
              "version": 1,
              "operations": {
                "readThing": {
                  "summary": "reads a thing",
                  "arguments": { "id": { "type": "strng", "required": true } },
                  "result": { "deep": { "type": { "array": { "object": { "x": "integr" } } } } },
                  "errors": ["deviceNotFund"],
                  "defaultTimeoutSeconds": 1e9,
                  "effect": "reed",
                  "sesion": "uses",
                  "idempotencyKey": "nope"
                },
                "bad name": { "summary": "s", "defaultTimeoutSeconds": 1, "effect": "read" }
              }
            }
            """, to: "broken.catalog.json")
        let run = await matterflow(["validate", Self.workflow, "--catalog", catalog])
        #expect(run.code == 2)
        let expected = [
            "broken.catalog.json:7:38: error[invalidValue]: /operations/readThing/arguments/id/type: unknown type \"strng\" (did you mean \"string\"?)",
            "broken.catalog.json:8:67: error[invalidValue]: /operations/readThing/result/deep/type/array/object/x: unknown type \"integr\" (did you mean \"integer\"?)",
            "broken.catalog.json:9:18: error[invalidValue]: /operations/readThing/errors/0: \"deviceNotFund\" is not an error cause MatterFlow knows (did you mean \"deviceNotFound\"?)",
            "broken.catalog.json:10:32: error[numberOutOfRange]: /operations/readThing/defaultTimeoutSeconds",
            "broken.catalog.json:11:17: error[invalidValue]: /operations/readThing/effect: \"effect\" must be one of read, idempotentWrite, nonIdempotentWrite, not \"reed\" (did you mean \"read\"?)",
            "broken.catalog.json:12:7: error[unknownKey]: /operations/readThing/sesion: unknown key \"sesion\" (did you mean \"session\"?)",
            "broken.catalog.json:13:25: error[invalidValue]: /operations/readThing/idempotencyKey",
            "broken.catalog.json:15:5: error[invalidValue]: /operations/bad name: operation name \"bad name\" must be an ASCII letter",
        ]
        for line in expected {
            #expect(run.stderr.contains(line), "missing \(line) in\n\(run.stderr)")
        }
    }

    @Test func catalogFilesThatAreNotCatalogsNeverCrash() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let deep = String(repeating: "{\"array\": ", count: 40) + "\"string\"" + String(repeating: "}", count: 40)
        let texts = [
            "", "[]", "{", "null", #"{"catalog": "x", "version": 2}"#, #"{"catalog": "x", "version": 1, "operations": []}"#,
            #"{"catalog": "x", "version": 1, "operations": {"a": {"summary": "s", "defaultTimeoutSeconds": 1, "effect": "read", "result": {"r": {"type": \#(deep)}}}}}"#,
        ]
        for (index, text) in texts.enumerated() {
            let catalog = try directory.write(text, to: "c\(index).json")
            let run = await matterflow(["validate", Self.workflow, "--catalog", catalog])
            #expect(run.code == 2, "\(text): \(run.stderr)")
            #expect(run.stderr.contains("c\(index).json"), "\(text): \(run.stderr)")
        }
        let workflowGiven = await matterflow(["validate", Self.workflow, "--catalog", Self.workflow])
        #expect(workflowGiven.stderr.contains("error[notACatalog]"), "\(workflowGiven.stderr)")
    }

    // MARK: - run --hub

    @Test func runCallsTheCustomOperationsOnAHubThatListsThem() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let socket = directory.file("hub.sock")
        let hub = FirmwareHub(inner: try SimulatedHub(home: .defaultHome))
        let listener = try HubListener(endpoint: .unix(path: socket))
        defer { listener.stop() }
        let identity = HubServer.Identity(
            name: "firmware-hub", version: "1", operations: Self.commissioningMethods + ["readFirmwareStatus", "readBatteryLevel", "startFirmwareUpdate"],
            events: false, structures: ["maple-street"])
        listener.accept { channel in _ = HubServer(hub: hub, channel: channel, identity: identity) }

        let run = await matterflow([
            "run", Self.workflow, "--catalog", Self.catalog, "--hub", "unix:\(socket)", "--input", "deviceID=device-7",
            "--trace", "jsonl",
        ])
        #expect(run.code == 0, "\(run.stderr)")
        let result = try run.result()
        #expect(result["outcome"] as? String == "succeeded")
        let output = try #require(result["output"] as? [String: Any])
        #expect(output["updateID"] as? String == "update-device-7-2.1")
        // The deviceCharged guard reads the battery on the hub, after the hubIdle guard's status read.
        #expect(hub.calls == [
            "readFirmwareStatus(deviceID: device-7)", "readBatteryLevel(deviceID: device-7)",
            "startFirmwareUpdate(deviceID: device-7, version: 2.1)",
        ])
        #expect(run.stderr.contains(#""operation":"startFirmwareUpdate""#), "\(run.stderr)")
        #expect(run.stderr.contains(#""guard":"hubIdle""#), "\(run.stderr)")
        #expect(run.stderr.contains(#""guard":"deviceCharged""#), "\(run.stderr)")

        // Without the catalog the workflow is invalid; on a hub that does not list the operation it is notSupported.
        let unlisted = HubServer.Identity(name: "plain-hub", version: "1", operations: Self.commissioningMethods, events: false, structures: ["maple-street"])
        let plainSocket = directory.file("plain.sock")
        let plain = try HubListener(endpoint: .unix(path: plainSocket))
        defer { plain.stop() }
        plain.accept { channel in _ = HubServer(hub: hub, channel: channel, identity: unlisted) }
        let refused = await matterflow([
            "run", Self.workflow, "--catalog", Self.catalog, "--hub", "unix:\(plainSocket)", "--input", "deviceID=device-7",
            "--trace", "none",
        ])
        #expect(refused.code == 1)
        let error = try refused.resultError()
        #expect(error["cause"] as? String == "notSupported")
        #expect((error["message"] as? String)?.contains("does not support readFirmwareStatus") == true, "\(error)")
        #expect(hub.calls.count == 3, "the unlisted operation must not be sent")
        let validated = await matterflow(["validate", Self.workflow, "--catalog", Self.catalog, "--hub", "unix:\(plainSocket)"])
        #expect(validated.code == 0, "\(validated.stderr)")
        #expect(
            validated.stderr.contains("warning[unsupportedByHub]: /states/readStatus/operation: hub plain-hub does not support readFirmwareStatus"),
            "\(validated.stderr)")
        #expect(
            validated.stderr.contains(
                "warning[unsupportedByHub]: /states/startUpdate/guards/1: hub plain-hub does not support readBatteryLevel, which guard deviceCharged of state 'startUpdate' reads"),
            "\(validated.stderr)")

        let check = await matterflow(["hub", "check", "unix:\(socket)", "--answer-limit", "60"])
        #expect(check.stdout.contains("unknown methods listed: readFirmwareStatus, readBatteryLevel, startFirmwareUpdate"), "\(check.stdout)")
        let checkWithCatalog = await matterflow(["hub", "check", "unix:\(socket)", "--catalog", Self.catalog, "--answer-limit", "60"])
        #expect(checkWithCatalog.stdout.contains("PASS initialize answers protocol version 1"), "\(checkWithCatalog.stdout)")
    }
}

/// The simulated home with the firmware catalog's operations, recording each custom call.
final class FirmwareHub: ForwardingHub {
    let inner: SimulatedHub
    var base: any Hub { inner }
    private let recorded = Mutex<[String]>([])

    init(inner: SimulatedHub) { self.inner = inner }

    var calls: [String] { recorded.withLock { $0 } }

    func perform(operation: String, structure: StructureID, arguments: JSONObject) async throws -> JSONValue {
        let deviceID = arguments["deviceID"]?.stringValue ?? ""
        switch operation {
        case "readFirmwareStatus":
            recorded.withLock { $0.append("readFirmwareStatus(deviceID: \(deviceID))") }
            return ["currentVersion": "2.0", "availableVersion": "2.1", "updateAvailable": true]
        case "readBatteryLevel":
            recorded.withLock { $0.append("readBatteryLevel(deviceID: \(deviceID))") }
            return ["percent": 64, "charging": false]
        case "startFirmwareUpdate":
            let version = arguments["version"]?.stringValue ?? ""
            recorded.withLock { $0.append("startFirmwareUpdate(deviceID: \(deviceID), version: \(version))") }
            return ["updateID": .string("update-\(deviceID)-\(version)")]
        default:
            return try await inner.perform(operation: operation, structure: structure, arguments: arguments)
        }
    }
}
