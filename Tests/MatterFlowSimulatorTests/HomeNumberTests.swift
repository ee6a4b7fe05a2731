import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// The numbers of a home description: each has a documented range, checked when the file is read, and the
/// identifier counter cannot overflow at its maximum.
@Suite("Home numbers")
struct HomeNumberTests {
    private let structure = TestHomes.structureID

    private func findings(_ members: String) -> [Diagnostic] {
        let text = """
            {"version": 1, "structure": {"id": "home", "name": "Home"}, \(members)}
            """
        do {
            return HomeDescription.decode(try JSONDocument.parse(text, file: "home.json")).diagnostics
        } catch {
            return error.diagnostics
        }
    }

    @Test(arguments: [
        (#""simulation": {"latencySeconds": {"fetchRooms": 1e300}}"#, "/simulation/latencySeconds/fetchRooms", "0...86400 (seconds)"),
        (#""simulation": {"sessionLeaseSeconds": 1e18}"#, "/simulation/sessionLeaseSeconds", "0.001...86400 (seconds)"),
        (#""issuedIDs": 9223372036854775807"#, "/issuedIDs", "0...9007199254740992 (identifiers)"),
        (#""issuedIDs": -1"#, "/issuedIDs", "0...9007199254740992 (identifiers)"),
        (#""devices": [{"id": "d", "name": "D", "vendorID": 1e300, "productID": 1}]"#, "/devices/0/vendorID", "0...65535"),
        (#""activeSession": {"phase": "prepared", "id": "s", "leaseExpiresAt": 1e300}"#, "/activeSession/leaseExpiresAt", "(seconds since 1970)"),
        (#""activeSession": {"phase": "prepared", "id": "s", "openedAt": -1}"#, "/activeSession/openedAt", "(seconds since 1970)"),
        (#""simulation": {"latencySeconds": {"fetchRooms": NaN}}"#, "/simulation/latencySeconds/fetchRooms", "NaN is not a number JSON allows"),
    ])
    func outOfRangeIsLocated(members: String, pointer: String, fragment: String) throws {
        let found = findings(members)
        let finding = try #require(found.first)
        #expect(found.count == 1, "\(found)")
        #expect(finding.code == DiagnosticCode.numberOutOfRange)
        #expect(finding.pointer == pointer)
        #expect(finding.location != nil)
        #expect(finding.message.contains(fragment), "\(finding.message)")
    }

    @Test("numbers no value can hold are reported with the file's other findings, each at its place")
    func unholdableNumbersAreReportedWithTheOtherFindings() throws {
        let text = """
            {"version": 1, "structure": {"id": "home", "name": "Home"},
             "devices": [{"id": "d", "name": "D", "vendorID": 1e400, "productID": 99999999999999999999, "colour": 1},
                         {"id": "e", "name": "E", "vendorID": 70000, "productID": 1}]}
            """
        do {
            _ = try HomeDescription.parse(text, file: "home.json")
            Issue.record("accepted a home with numbers no value can hold")
        } catch {
            let found = error.diagnostics
            #expect(found.map(\.code) == ["numberOutOfRange", "numberOutOfRange", "unknownKey", "numberOutOfRange"], "\(found)")
            #expect(
                found.map(\.pointer) == ["/devices/0/vendorID", "/devices/0/productID", "/devices/0/colour", "/devices/1/vendorID"])
            #expect(found.map(\.location) == [
                SourceLocation(line: 2, column: 51), SourceLocation(line: 2, column: 71), SourceLocation(line: 2, column: 93),
                SourceLocation(line: 3, column: 51),
            ])
            #expect(found.allSatisfy { $0.file == "home.json" })
            #expect(found[0].message.contains("beyond the largest number a file may hold"), "\(found[0].message)")
            #expect(found[1].message.contains("outside the range of a 64-bit integer"), "\(found[1].message)")
        }
    }

    @Test("a commissioner time of 1e300 is reported, not run")
    func commissionerTime() throws {
        let found = findings(#"""
            "devices": [{"id": "br", "name": "Hub", "vendorID": 1, "productID": 1}],
            "thread": {"borderRouters": [{"device": "br", "commissioner": [{"atSeconds": 1e300, "action": "useKey"}]}]}
            """#)
        #expect(found.contains { $0.code == DiagnosticCode.numberOutOfRange && $0.pointer.hasSuffix("/commissioner/0/atSeconds") }, "\(found)")
    }

    @Test("the identifier counter at its maximum starts again from 0 instead of overflowing")
    func identifierCounterWraps() async throws {
        var home = TestHomes.basic()
        home.issuedIDs = NumberRange.largestExactInteger
        let (hub, _) = try TestHomes.hub(home)
        try await prepareAndRequest(hub)
        let after = try await hub.snapshot(structure: structure)
        #expect(after.issuedIDs == 1, "the session and the request took the last identifier and the first")
        #expect(after.activeSession != nil)
    }
}
