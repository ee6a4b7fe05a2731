import MatterFlow
import Testing

/// `matterflow operations [--json]`: generated from `OperationCatalog.standard`, so compared with it.
@Suite("matterflow operations")
struct OperationsCommandTests {
    let catalog = OperationCatalog.standard

    @Test("the text listing has one entry per catalog operation, in catalog order")
    func text() async {
        let run = await matterflow("operations")
        #expect(run.code == 0)
        #expect(run.stderr == "")
        let lines = run.stdout.split(separator: "\n").filter { !$0.hasPrefix(" ") }.map(String.init)
        let headings = lines.filter { !$0.hasPrefix("event ") }
        #expect(headings.count == catalog.operations.count)
        #expect(lines.filter { $0.hasPrefix("event ") } == catalog.events.map { "event \($0.name) — \($0.summary)" })
        for (heading, operation) in zip(headings, catalog.operations) {
            #expect(heading == "\(operation.name) — \(operation.summary)")
        }
        for operation in catalog.operations {
            for argument in operation.arguments {
                #expect(run.stdout.contains("    \(argument.name): "), "\(operation.name) lists argument \(argument.name)")
            }
            for cause in operation.possibleCauses {
                #expect(run.stdout.contains("\(cause.code?.rawValue ?? "unknown")/\(cause.rawValue)"))
            }
        }
        #expect(run.stdout.contains("  result: "))
        #expect(run.stdout.contains("  default timeout: "))
    }

    @Test("--json lists the catalog's operations with arguments, result and errors, and its events")
    func json() async throws {
        let run = await matterflow("operations", "--json")
        #expect(run.code == 0)
        #expect(run.stderr == "")
        let document = try #require(try parseJSON(run.stdout) as? [String: Any])
        let events = try #require(document["events"] as? [[String: Any]])
        #expect(events.compactMap { $0["name"] as? String } == catalog.events.map(\.name))
        #expect(events.first { $0["name"] as? String == "epskcModeDeactivated" }?["values"] as? [String] == ["keyUsed", "expired", "cancelled"])
        let operations = try #require(document["operations"] as? [[String: Any]])
        #expect(operations.compactMap { $0["name"] as? String } == catalog.names)
        for (entry, operation) in zip(operations, catalog.operations) {
            #expect(entry["summary"] as? String == operation.summary)
            let arguments = try #require(entry["arguments"] as? [[String: Any]])
            #expect(arguments.compactMap { $0["name"] as? String } == operation.arguments.map(\.name))
            #expect(entry["result"] != nil)
            let errors = try #require(entry["errors"] as? [[String: Any]])
            #expect(errors.compactMap { $0["cause"] as? String } == operation.possibleCauses.map(\.rawValue))
            #expect((entry["defaultTimeoutSeconds"] as? Double) == operation.defaultTimeoutSeconds)
        }
    }

    @Test("the catalog includes the commissioning operations the workflows use")
    func knownOperations() {
        for name in ["prepareCommissioning", "createAddDeviceRequest", "commissionDevice", "fetchRooms", "configureDevice",
                     "completeCommissioning", "cancelCommissioning"] {
            #expect(catalog[name] != nil, "\(name)")
        }
    }
}
