import Foundation
import MatterFlow
import Testing

/// The border-router section of the language reference against the code: the ePSKc table lists every move of the
/// machine, the membership table every status, and every border-router operation and event is documented.
@Suite struct BorderRouterDocumentationTests {
    static func reference() throws -> String {
        try String(contentsOfFile: DocumentationExampleTests.Paths.reference, encoding: .utf8)
    }

    @Test func theEpskcTableListsEveryMoveOfTheMachine() throws {
        let text = try Self.reference()
        for move in EpskcSession.transitionTable.moves {
            guard case .moves(let to, let output) = move.outcome else { continue }
            let row = "| `\(move.from)` | `\(move.event)`\(move.condition.map { " (\($0))" } ?? "") | `\(to)` | \(output ?? "—") |"
            #expect(text.contains(row), "docs/workflow-language.md section 19 needs the row \(row)")
        }
    }

    @Test func everyMembershipStatusAndDeactivationDetailIsDocumented() throws {
        let text = try Self.reference()
        for status in NetworkOperationStatus.allCases {
            #expect(text.contains("`\(status.rawValue)`"), "status \(status.rawValue)")
        }
        for detail in EpskcDeactivationDetail.allCases {
            #expect(text.contains("`\(detail.rawValue)`"), "detail \(detail.rawValue)")
        }
        for row in ThreadMembership.transitionTable.moves {
            guard case .moves(_, let status?) = row.outcome else { continue }
            #expect(text.contains("| `\(status)` |") || text.contains("| `\(status)` (they are"), "status row \(status)")
        }
    }

    @Test func theEventCatalogCarriesTheReasonsTheMachineReports() {
        let event = OperationCatalog.standard.event(named: EpskcModeDeactivatedEvent.name)
        #expect(event?.values == EpskcDeactivationReason.allCases.map(\.rawValue))
        #expect(event?.fieldNames == ["deviceID", "reason", "detail", "failedAttempts"])
        for detail in EpskcDeactivationDetail.allCases {
            #expect(EpskcDeactivationReason.allCases.contains(detail.reason))
        }
    }
}
