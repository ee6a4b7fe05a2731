import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// Custom guards from `--catalog FILE` (docs/operation-catalog.md section 7) through the commands: `validate`,
/// `graph` and `operations` (`test` and `run --hub` are covered with the example's other fixtures and runs).
@Suite("custom guards in the CLI")
struct CustomGuardCommandTests {
    static let example = Repository.root + "/Examples/custom-operations"
    static let catalog = example + "/firmware.catalog.json"
    static let workflow = example + "/update-firmware.json"

    @Test func withoutItsCatalogAWorkflowListingACustomGuardDoesNotLoadAndSaysWhy() async throws {
        let run = await matterflow(["validate", Self.workflow])
        #expect(run.code == 2)
        #expect(run.stderr.contains("update-firmware.json:30:18: error[unknownGuard]: /states/startUpdate/guards/0: unknown guard \"hubIdle\""), "\(run.stderr)")
        #expect(run.stderr.contains("pass --catalog FILE"), "\(run.stderr)")
        let with = await matterflow(["validate", Self.workflow, "--catalog", Self.catalog])
        #expect(with.code == 0, "\(with.stderr)")
    }

    @Test func graphShowsTheGuards() async throws {
        let run = await matterflow(["graph", Self.workflow, "--catalog", Self.catalog, "--format", "mermaid"])
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stdout.contains("startUpdate<br/>startFirmwareUpdate<br/>guards: hubIdle, deviceCharged"), "\(run.stdout)")
    }

    @Test func operationsListsTheGuardsWithWhatTheyReadAndRaise() async throws {
        let text = await matterflow(["operations", "--catalog", Self.catalog])
        #expect(text.code == 0, "\(text.stderr)")
        #expect(text.stdout.contains("""
            guard deviceCharged — The device has at least 30 % battery, or is charging, so it can install firmware.
              reads: readBatteryLevel(deviceID: ${input.deviceID}) (timeout 5 s)
              passes when: ${vars.result.percent} >= 30 or ${vars.result.charging} == true
              otherwise: failedPrecondition/batteryTooLow: the device's battery is below 30 % and it is not charging; charge it, then start the update again
            """), "\(text.stdout)")
        #expect(text.stdout.contains("guard hubIdle — The hub is online and not commissioning a device (one status read).\n  reads: the hub's status (timeout 10 s)"), "\(text.stdout)")
        let json = await matterflow(["operations", "--catalog", Self.catalog, "--json"])
        let listing = try #require(try parseJSON(json.stdout) as? [String: Any])
        let guards = try #require(listing["guards"] as? [[String: Any]])
        #expect(guards.compactMap { $0["name"] as? String } == ["hubIdle", "deviceCharged"])
        #expect(guards.last?["from"] as? String == "operation readBatteryLevel")
        #expect((guards.last?["error"] as? [String: Any])?["cause"] as? String == "batteryTooLow")
        // What the text shows: arguments, condition, timeout and every error the guard may raise.
        #expect(guards.last?["arguments"] as? [String: String] == ["deviceID": "${input.deviceID}"])
        #expect(guards.last?["passesWhen"] as? String == "${vars.result.percent} >= 30 or ${vars.result.charging} == true")
        #expect(guards.last?["timeoutSeconds"] as? Double == 5)
        #expect(guards.first?["timeoutSeconds"] as? Double == 10)
        #expect(guards.first?["arguments"] == nil)
        let errors = try #require(guards.last?["errors"] as? [[String: String]])
        #expect(errors.contains(["code": "failedPrecondition", "cause": "batteryTooLow"]), "\(errors)")
        #expect(errors.contains(["code": "unavailable", "cause": "deviceUnreachable"]), "\(errors)")
    }

    @Test func mistakesInAGuardAreReportedWhereTheyStand() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let catalog = try directory.write(
            """
            {
              "catalog": "broken-guards",
              "version": 1,
              "operations": {
                "wipeDevice": { "summary": "wipes", "defaultTimeoutSeconds": 5, "effect": "idempotentWrite" }
              },
              "guards": {
                "permission": { "summary": "mine", "passesWhen": { "exists": "${vars.status}" }, "error": { "cause": "hubOffline", "message": "m" } },
                "wiped": { "summary": "s", "operation": "wipeDevice", "passesWhen": { "exists": "${vars.result}" }, "error": { "cause": "hubOffline", "message": "m" } },
                "online": { "summary": "s", "passesWhen": { "equals": ["${input.online}", true] }, "error": { "cause": "hubOfline", "message": "m" }, "retries": 1 }
              }
            }
            """, to: "guards.catalog.json")
        let run = await matterflow(["validate", Self.workflow, "--catalog", catalog])
        #expect(run.code == 2)
        for line in [
            "guards.catalog.json:8:5: error[nameClash]: /guards/permission: guard \"permission\" is built in",
            "guards.catalog.json:9:45: error[invalidValue]: /guards/wiped/operation: operation \"wipeDevice\" has effect \"idempotentWrite\"",
            "guards.catalog.json:10:47: error[invalidValue]: /guards/online/passesWhen: ${input.online}: a guard's condition reads only ${vars.status...}",
            "error[invalidValue]: /guards/online/error/cause: \"hubOfline\" is not an error cause MatterFlow knows (did you mean \"hubOffline\"?)",
            "guards.catalog.json:10:139: error[unknownKey]: /guards/online/retries",
        ] {
            #expect(run.stderr.contains(line), "missing \(line) in\n\(run.stderr)")
        }
    }
}
