import MatterFlowFixtures
import MatterFlowJSON

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
