import Foundation
import MatterFlow
import MatterFlowFixtures
import MatterFlowJSON
import Testing

/// Coverage counts states and transitions per workflow file, each error, cancel, event and timeout edge apart.
@Suite struct CoverageReportTests {
    func coverage(of texts: [String]) async throws -> CoverageReport {
        var results: [FixtureResult] = []
        for text in texts { results.append(await FixtureRunner().run(try InlineFixture.valid(text))) }
        return CoverageReport(results: results)
    }

    static func prepare(_ members: String = "", outcome: String = "succeeded") -> String {
        """
        {
          "fixture": "prepare", "version": 1, "workflow": "../../prepare.json", "home": "../homes/ready.json",\(members.isEmpty ? "" : "\n  " + members + ",")
          "expect": { "outcome": "\(outcome)" }
        }
        """
    }

    @Test("a failing fixture covers nothing: the path it took was not verified")
    func aFailingFixtureCoversNothing() async throws {
        let report = try await coverage(of: [Self.prepare(outcome: "failed")])
        let prepare = try #require(report.coverage(ofFile: Repository.workflows + "/prepare.json"))
        #expect(prepare.coveredStates.isEmpty)
        #expect(prepare.coveredTransitions.isEmpty)
    }

    @Test func aSuccessfulRunCoversOnlyItsPath() async throws {
        let report = try await coverage(of: [Self.prepare()])
        let prepare = try #require(report.coverage(ofFile: Repository.workflows + "/prepare.json"))
        #expect(prepare.coveredStates == ["prepare", "prepared"])
        #expect(prepare.coveredTransitions.map(\.kind) == [.next])
        #expect(prepare.missedStates == ["failed", "releaseIfOpened", "release", "cancelled"])
        #expect(
            prepare.missedTransitions.map { "\($0.from) → \($0.to) [\($0.kind)]" } == [
                "prepare → failed [onError[0] *]", "prepare → releaseIfOpened [cancel]",
                "releaseIfOpened → release [choice[0]]", "releaseIfOpened → cancelled [default]",
                "release → cancelled [next]", "release → cancelled [onError[0] *]",
            ])
        #expect(!prepare.isComplete)
        #expect(abs(prepare.transitionRatio - 1.0 / 7.0) < 1e-9)
    }

    @Test func cancelEdgesOnlyTheShieldedCancelPathReachesAreNotCounted() async throws {
        let report = try await coverage(of: [Self.prepare()])
        let prepare = try #require(report.coverage(ofFile: Repository.workflows + "/prepare.json"))
        #expect(prepare.uncountedTransitions.map(\.from) == ["releaseIfOpened", "release"])
        #expect(prepare.transitions.filter { $0.kind == .cancel }.map(\.from) == ["prepare"])
    }

    @Test func countedTransitionsAreTheEdgesTheGraphDraws() async throws {
        // Coverage and `graph` read the same compiled edge list: what one counts, the other draws.
        let report = try await coverage(of: [InlineFixture.commissionDevice()])
        for file in report.workflows {
            let workflow = try WorkflowEngine().load(path: file.file)
            #expect(Set(file.transitions + file.uncountedTransitions) == Set(workflow.edges), "\(file.name)")
            let drawn = try WorkflowGraph.build(workflow).edges.map { "\($0.from) \($0.kind) \($0.to)" }
            #expect(drawn == file.transitions.map { "\($0.from) \($0.kind) \($0.to)" }, "\(file.name)")
        }
    }

    @Test func subworkflowsAreCoveredPerFileWhoeverRunsThem() async throws {
        let report = try await coverage(of: [Self.prepare(), InlineFixture.commissionDevice()])
        let prepare = try #require(report.coverage(ofFile: Repository.workflows + "/prepare.json"))
        #expect(prepare.coveredStates == ["prepare", "prepared"], "the same file, run alone and as a child")
        #expect(
            report.workflows.map { $0.name }.sorted() == [
                "add-device", "cancel", "commission", "commission-device", "complete", "configure", "prepare", "rooms",
            ])
    }

    @Test func eachErrorRouteAndCancelEdgeCountsApart() async throws {
        let report = try await coverage(of: [
            Self.prepare(#""home": "../homes/busy.json""#, outcome: "failed").replacingOccurrences(
                of: #""home": "../homes/ready.json","#, with: ""),
            Self.prepare(#""events": [{ "after": "prepareCommissioning", "action": "cancelRun" }]"#, outcome: "cancelled"),
        ])
        let prepare = try #require(report.coverage(ofFile: Repository.workflows + "/prepare.json"))
        #expect(
            prepare.missedTransitions.map { "\($0.from) [\($0.kind)]" } == [
                "prepare [next]", "releaseIfOpened [default]", "release [onError[0] *]",
            ])
        let json = prepare.jsonValue
        #expect(json["transitions"]?["total"] == 7)
        #expect(json["transitions"]?["covered"] == 4)
    }
}
