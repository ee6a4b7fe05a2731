import MatterFlow
import MatterFlowFixtures
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
import MatterPayload
import ThreadDataset

/// Workflow text, loaded as if it sat next to the shipped workflows (so `workflow` states can name them), then
/// validated and verified, and its graph built.
enum WorkflowFuzz {
    static let loader = WorkflowLoader()

    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let directory = FuzzTarget.repositoryRoot + "/Workflows"
        let outcome = loader.load(text: text, file: directory + "/fuzz.json", baseDirectory: directory)
        if let workflow = outcome.workflow {
            let graph = WorkflowGraph.build(workflow)
            _ = graph.dot
            _ = graph.mermaid
        }
        for diagnostic in outcome.diagnostics { _ = diagnostic.description }
    }
}

/// Home files, decoded, then restored into a simulated hub (which replays a saved session).
enum HomeFuzz {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        guard let home = try? HomeDescription.parse(text, file: "fuzz-home.json") else { return }
        _ = try? SimulatedHub(home: home)
        _ = JSONWriter.compact(home.jsonValue)
    }
}

/// Fixture files, loaded as if they sat in the shipped library (so `../../<workflow>.json` and `../homes/*.json`
/// resolve).
enum FixtureFuzz {
    static let loader = FixtureLoader()

    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        let file = FuzzTarget.repositoryRoot + "/Workflows/fixtures/commission-device/fuzz.fixture.json"
        let outcome = loader.load(text: text, file: file)
        for diagnostic in outcome.diagnostics { _ = diagnostic.description }
    }
}

/// Journal bytes as they are, and each line of the input as a record's JSON payload framed with a valid checksum,
/// so that the reader's record handling is reached past the checksum.
enum JournalFuzz {
    static func run(_ bytes: [UInt8]) {
        _ = try? JournalReader.decode(bytes, path: "fuzz.journal")
        var framed = Array(JournalFrame.header.utf8)
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            guard let object = (try? JSONDocument.parse(text, file: "record"))?.value.objectValue else { continue }
            framed += JournalFrame.encode(object)
        }
        _ = try? JournalReader.decode(framed, path: "fuzz.journal")
    }
}

/// Onboarding payload text: parsed, validated, warned about and encoded again.
enum PayloadFuzz {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = OnboardingPayload.kind(of: text)
        do {
            for payload in try OnboardingPayload.parse(text) {
                _ = payload.validate()
                _ = payload.warnings()
                _ = payload.jsonFields()
                _ = try? payload.qrCode()
                _ = try? payload.manualCode(grouped: true)
            }
        } catch {
            _ = error.description
        }
        _ = try? OnboardingPayload.decode(text)
    }
}

/// Thread Operational Datasets, as TLV bytes and as hex text: decoded, validated, listed and encoded again.
enum DatasetFuzz {
    static func run(_ bytes: [UInt8]) {
        if let dataset = try? OperationalDataset(tlvs: bytes) {
            exercise(dataset)
        }
        if let dataset = try? OperationalDataset(hex: String(decoding: bytes, as: UTF8.self)) {
            exercise(dataset)
        }
    }

    static func exercise(_ dataset: OperationalDataset) {
        _ = dataset.validate()
        _ = dataset.summaryLines(revealingSecrets: true)
        _ = dataset.redactedDescription
        _ = try? OperationalDataset(tlvs: dataset.encode())
    }
}
