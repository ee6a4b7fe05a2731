import MatterFlow
import MatterFlowFixtures
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// The shipped fixture library (`Workflows/fixtures`): every fixture passes, and together they exercise every
/// state and transition of every shipped workflow. This is what keeps the failure paths tested in CI.
@Suite struct FixtureLibraryTests {
    /// The commissioning workflows, which must stay at 100% state and transition coverage.
    static let commissioningWorkflows = [
        "prepare.json", "add-device.json", "commission.json", "rooms.json", "configure.json", "complete.json",
        "cancel.json", "commission-device.json",
    ]

    /// One run of the library, shared by the tests that only read it.
    static let library = Task { try await runLibrary() }

    static func runLibrary() async throws -> [FixtureResult] {
        let loader = FixtureLoader()
        let (files, missing) = loader.discover([Repository.fixtures])
        #expect(missing.isEmpty, "\(missing.map(\.description))")
        var fixtures: [Fixture] = []
        for file in files {
            let outcome = loader.load(path: file)
            #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics.map(\.description))")
            fixtures.append(try #require(outcome.fixture, "\(file) is invalid"))
        }
        return await FixtureRunner().run(fixtures)
    }

    @Test func everyFixturePassesAndEveryShippedWorkflowIsFullyCovered() async throws {
        let results = try await Self.library.value
        #expect(results.count >= 40, "the library has \(results.count) fixtures")
        for result in results where !result.passed {
            Issue.record(
                "\(result.fixture.name) (\(result.fixture.file)) failed:\n\(result.mismatches.map(\.description).joined(separator: "\n"))"
            )
        }
        let coverage = CoverageReport(results: results)
        for name in Self.commissioningWorkflows {
            let workflow = try #require(
                coverage.coverage(ofFile: Repository.workflows + "/" + name), "no fixture runs \(name)")
            #expect(workflow.missedStates.isEmpty, "\(name): states not exercised: \(workflow.missedStates)")
            #expect(
                workflow.missedTransitions.isEmpty,
                "\(name): transitions not exercised: \(workflow.missedTransitions.map { "\($0.from) → \($0.to) [\($0.kind)]" })"
            )
            #expect(workflow.transitionRatio == 1 && workflow.stateRatio == 1)
        }
    }

    @Test func everyWorkflowInWorkflowsHasFixtures() async throws {
        let coverage = CoverageReport(results: try await Self.library.value)
        for file in try Repository.shippedWorkflows() {
            let workflow = coverage.coverage(ofFile: file)
            #expect(
                workflow?.isComplete == true,
                "\(file) is not fully covered by Workflows/fixtures: \(workflow.map { "\($0.missedStates) \($0.missedTransitions.map(\.pointer))" } ?? "no fixture runs it")"
            )
        }
    }

    @Test func theLibraryIsDeterministic() async throws {
        let first = try await Self.library.value
        let second = try await Self.runLibrary()
        #expect(first.count == second.count)
        for (one, two) in zip(first, second) {
            // Elements of a map running several at once that work at the same virtual moment interleave in no fixed
            // order, and how far each got when a cancel or a failure stops them varies with it: such runs end the
            // same way (outcome, error, home), but their events and calls may differ.
            let concurrent = Self.runsElementsAtOnce(one.fixture.workflow)
            let ends = [one, two].map { result in
                result.observation.map { "\($0.result.outcome) \(String(describing: $0.result.error?.cause))" }
            }
            #expect(ends[0] == ends[1], "\(one.fixture.name)")
            let events = [one, two].map { result in concurrent ? [] : (result.observation?.events ?? []).map { JSONWriter.compact($0.jsonValue) } }
            #expect(events[0] == events[1], "\(one.fixture.name)")
            // The home as fixtures can check it (session leases carry wall-clock times, so not the whole home).
            let homes = [one, two].map { result in
                result.observation.map { observation in
                    let home = observation.finalHome
                    return
                        "\(home.devices) \(home.activeSession?.phase as Any) \(home.activeSession?.sessionID as Any) \(home.hub) \(home.thread)"
                }
            }
            #expect(homes[0] == homes[1], "\(one.fixture.name)")
            let calls = [one, two].map { result in concurrent ? [] : (result.observation?.calls ?? []).map { "\($0)" } }
            #expect(calls[0] == calls[1], "\(one.fixture.name)")
        }
    }

    /// Whether a workflow, or one of its sub-workflows, has a map state that runs elements at once.
    static func runsElementsAtOnce(_ workflow: Workflow) -> Bool {
        workflow.states.values.contains { state in
            if case .workflow(let subworkflow) = state.kind, subworkflow.map?.isConcurrent == true { return true }
            return false
        } || workflow.subworkflows.values.contains { runsElementsAtOnce($0) }
    }
}
