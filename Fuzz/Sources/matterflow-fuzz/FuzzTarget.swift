import Foundation

/// The parsers and loaders under fuzzing, one per libFuzzer run (`MATTERFLOW_FUZZ_TARGET=<name>`).
enum FuzzTarget: String, CaseIterable, Sendable {
    /// Workflow files: JSON parse, decode, validation and path verification (``WorkflowFuzz``).
    case workflow
    /// Home files: decode, and a simulated hub restoring the home's session (``HomeFuzz``).
    case home
    /// Fixture files: decode of scenario, faults, events, mocks and expectations (``FixtureFuzz``).
    case fixture
    /// Journal files: raw bytes, and records framed with valid checksums (``JournalFuzz``).
    case journal
    /// Onboarding payloads: QR and manual codes, parse, validate, re-encode (``PayloadFuzz``).
    case payload
    /// Thread Operational Datasets: TLV bytes and hex text (``DatasetFuzz``).
    case dataset
    /// Operation catalog files: decode, merge into the standard catalog, validate a workflow with it (``CatalogFuzz``).
    case catalog
    /// Answer patterns: compiled from arbitrary text, matched against arbitrary answers (``PatternFuzz``).
    case pattern

    /// The target this process fuzzes, read once from the environment; the process stops at once when it names
    /// none, since a fuzzing run without a target would report nothing.
    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["MATTERFLOW_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("set MATTERFLOW_FUZZ_TARGET to one of: \(names)\n".utf8))
            exit(64)
        }
        return target
    }()

    func run(_ bytes: [UInt8]) {
        switch self {
        case .workflow: WorkflowFuzz.run(bytes)
        case .home: HomeFuzz.run(bytes)
        case .fixture: FixtureFuzz.run(bytes)
        case .journal: JournalFuzz.run(bytes)
        case .payload: PayloadFuzz.run(bytes)
        case .dataset: DatasetFuzz.run(bytes)
        case .catalog: CatalogFuzz.run(bytes)
        case .pattern: PatternFuzz.run(bytes)
        }
    }

    /// The repository's root, so that inputs can name the shipped workflows and homes by relative paths.
    static let repositoryRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.path
    }()
}
