import Foundation
import MatterFlowFixtures
import MatterFlowJSON
import Testing

/// Every complete fixture in docs/fixtures.md loads without findings and passes, as if it were a file in
/// `Workflows/fixtures/docs/`.
@Suite struct DocumentationExampleTests {
    static func examples() throws -> [String] {
        let text = try String(contentsOfFile: Repository.root + "/docs/fixtures.md", encoding: .utf8)
        var examples: [String] = []
        var current: [String]?
        for line in text.components(separatedBy: "\n") {
            if current == nil, line == "```json" {
                current = []
            } else if let lines = current, line == "```" {
                let example = lines.joined(separator: "\n")
                if example.contains("\"fixture\"") { examples.append(example) }
                current = nil
            } else {
                current?.append(line)
            }
        }
        return examples
    }

    @Test func theDocumentHasCompleteExamples() throws {
        #expect(try Self.examples().count >= 2)
    }

    @Test func everyExampleLoadsAndPasses() async throws {
        let file = Repository.fixtures + "/docs/example.fixture.json"
        for example in try Self.examples() {
            let outcome = FixtureLoader().load(text: example, file: file)
            #expect(outcome.diagnostics.isEmpty, "\(outcome.diagnostics.map(\.description))")
            guard let fixture = outcome.fixture else { continue }
            let result = await FixtureRunner().run(fixture)
            #expect(result.passed, "\(fixture.name): \(result.mismatches.map(\.description))")
        }
    }
}
