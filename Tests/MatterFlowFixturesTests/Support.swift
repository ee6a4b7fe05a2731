import Foundation
import MatterFlow
import MatterFlowFixtures
import MatterFlowJSON
import Testing

/// Paths inside the repository, found from this file rather than the working directory.
enum Repository {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while url.path != "/" {
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path),
                FileManager.default.fileExists(atPath: url.appendingPathComponent("Workflows").path)
            {
                return url.path
            }
            url.deleteLastPathComponent()
        }
        preconditionFailure("no package root above \(#filePath)")
    }()

    static var workflows: String { root + "/Workflows" }
    static var fixtures: String { workflows + "/fixtures" }

    /// Every shipped workflow file (`Workflows/*.json`), sorted.
    static func shippedWorkflows() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: workflows)
            .filter { $0.hasSuffix(".json") }
            .sorted()
            .map { workflows + "/" + $0 }
    }
}

/// Fixtures written in a test, loaded as if they were files in `Workflows/fixtures/inline/` (so the shipped
/// workflows are `../../NAME.json` and the shared homes `../homes/NAME.json`).
enum InlineFixture {
    static let file = Repository.fixtures + "/inline/test.fixture.json"

    static func load(_ text: String) -> FixtureLoader.Outcome {
        FixtureLoader().load(text: text, file: file)
    }

    /// A fixture that must load without errors.
    static func valid(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) throws -> Fixture {
        let outcome = load(text)
        return try #require(
            outcome.fixture, "fixture has errors: \(outcome.diagnostics.map(\.description))",
            sourceLocation: sourceLocation)
    }

    /// Loads a fixture that must be valid, and runs it.
    static func run(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> FixtureResult {
        await FixtureRunner().run(try valid(text, sourceLocation: sourceLocation))
    }

    /// Renders the diagnostics as `line:col: severity[code]: /pointer: message`, without the file name.
    static func findings(_ text: String) -> [String] {
        load(text).diagnostics.map { $0.description.replacingOccurrences(of: file + ":", with: "") }
    }

    /// A commission-device fixture with the shared ready home; `members` are spliced into the top-level object.
    static func commissionDevice(
        expect: String = #"{ "outcome": "succeeded" }"#, _ members: String = "", payload: String = "MT:Y.K9042C00KA0648G00"
    ) -> String {
        """
        {
          "fixture": "inline",
          "version": 1,
          "workflow": "../../commission-device.json",
          "inputs": { "onboardingPayload": "\(payload)", "deviceName": "Lamp", "roomName": "Kitchen" },
          "home": "../homes/ready.json",\(members.isEmpty ? "" : "\n  " + members + ",")
          "expect": \(expect)
        }
        """
    }
}

extension FixtureResult {
    /// The mismatches' subjects, in order.
    var subjects: [String] { mismatches.map(\.subject) }
}
