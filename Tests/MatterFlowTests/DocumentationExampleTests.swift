import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// The workflow language reference (docs/workflow-language.md) against the code it documents: every complete
/// workflow example loads with no findings, and the tables generated from the code still match it.
///
/// A complete example is a ```json fenced block whose text starts with `{` and contains `"workflow"`; fragments
/// live in ```jsonc or ```text blocks and are skipped. Examples are loaded with the shipped Workflows folder as
/// their base directory, so they may compose shipped workflows by path.
@Suite struct DocumentationExampleTests {
    /// Paths found from this file, never from the working directory.
    enum Paths {
        static let root: String = {
            // <root>/Tests/MatterFlowTests/DocumentationExampleTests.swift
            var url = URL(fileURLWithPath: #filePath)
            for _ in 0..<3 { url.deleteLastPathComponent() }
            return url.path
        }()
        static var reference: String { root + "/docs/workflow-language.md" }
        static var workflows: String { root + "/Workflows" }
    }

    /// One complete workflow example and the line its fence opens on.
    struct Example: Sendable, CustomTestStringConvertible {
        var line: Int
        var text: String
        var testDescription: String { "example at docs/workflow-language.md:\(line)" }
        /// The name diagnostics carry; their line L is line `line + L` of the reference.
        var fileLabel: String { "docs/workflow-language.md (example fenced at line \(line))" }
    }

    static func referenceText() throws -> String {
        try String(contentsOfFile: Paths.reference, encoding: .utf8)
    }

    /// Every ```json block that is a complete workflow, in document order.
    static func examples(in text: String) -> [Example] {
        var examples: [Example] = []
        var current: (line: Int, lines: [String])?
        var insideOtherFence = false
        for (offset, rawLine) in text.components(separatedBy: "\n").enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if var block = current {
                if line == "```" {
                    let body = block.lines.joined(separator: "\n")
                    let trimmed = body.trimmingCharacters(in: .whitespacesAndNewlines)
                    if trimmed.hasPrefix("{"), trimmed.contains("\"workflow\"") {
                        examples.append(Example(line: block.line, text: body))
                    }
                    current = nil
                } else {
                    block.lines.append(rawLine)
                    current = block
                }
            } else if insideOtherFence {
                if line == "```" { insideOtherFence = false }
            } else if line == "```json" {
                current = (offset + 1, [])
            } else if line.hasPrefix("```") {
                insideOtherFence = true
            }
        }
        return examples
    }

    static let all: [Example] = (try? examples(in: referenceText())) ?? []

    @Test func theReferenceHasCompleteExamples() throws {
        let text = try Self.referenceText()
        #expect(Self.examples(in: text).count >= 5, "expected the reference to carry complete workflow examples")
    }

    @Test("every complete example loads with no errors", arguments: all)
    func exampleLoads(_ example: Example) {
        let file = example.fileLabel
        do {
            let workflow = try WorkflowEngine().load(text: example.text, file: file, baseDirectory: Paths.workflows)
            #expect(!workflow.states.isEmpty)
        } catch {
            Issue.record("the example does not load:\n\(error.description)")
        }
    }

    @Test("every complete example is also free of warnings", arguments: all)
    func exampleHasNoWarnings(_ example: Example) {
        let file = example.fileLabel
        let diagnostics = WorkflowLoader().load(text: example.text, file: file, baseDirectory: Paths.workflows).diagnostics
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.description).joined(separator: "\n"))")
    }

    @Test func theTimeoutTableMatchesTheCatalog() throws {
        let text = try Self.referenceText()
        for operation in OperationCatalog.standard.operations {
            let seconds = operation.defaultTimeoutSeconds
            let shown = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
            let row = "| `\(operation.name)` | \(shown) s |"
            #expect(text.contains(row), "the timeout table needs the row \(row)")
        }
    }

    @Test func theCauseTableMatchesTheCode() throws {
        let text = try Self.referenceText()
        for entry in ErrorCause.table {
            let row = "| `\(entry.cause.rawValue)` | `\(entry.code.rawValue)` |"
            #expect(text.contains(row), "the cause table needs the row \(row)")
        }
    }

    @Test func everyCanonicalCodeIsDocumented() throws {
        let text = try Self.referenceText()
        for code in ErrorCode.all {
            #expect(text.contains("| `\(code.rawValue)` |"), "canonical code \(code.rawValue) is not in the code table")
        }
    }

    @Test func everyDiagnosticCodeIsDocumented() throws {
        let text = try Self.referenceText()
        for (code, _) in WorkflowDiagnosticCode.all {
            #expect(text.contains("| `\(code)` |"), "diagnostic \(code) is not in the diagnostics table")
        }
    }
}
