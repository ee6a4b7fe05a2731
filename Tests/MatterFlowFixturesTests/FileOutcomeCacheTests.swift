import Foundation
import MatterFlowFixtures
import Testing

/// A fixture loader decodes each home file once, however many fixtures name it.
@Suite("home files shared by fixtures")
struct FileOutcomeCacheTests {
    @Test("the second fixture naming a home gets the home the first one decoded, not a second decoding of the file")
    func decodedOnce() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("home-cache-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.copyItem(atPath: Repository.workflows + "/fixtures/homes/ready.json", toPath: directory + "/home.json")
        func fixture(_ name: String) throws -> String {
            let path = directory + "/\(name).fixture.json"
            try Data(
                #"{"fixture": "\#(name)", "version": 1, "workflow": "\#(Repository.workflows)/prepare.json", "home": "home.json", "expect": {"outcome": "succeeded"}}"#
                    .utf8
            ).write(to: URL(fileURLWithPath: path))
            return path
        }
        let loader = FixtureLoader()
        let first = loader.load(path: try fixture("first"))
        #expect(first.fixture != nil, "\(first.diagnostics)")
        // The file is gone: only a loader that kept the first decoding still has the home.
        try FileManager.default.removeItem(atPath: directory + "/home.json")
        let second = loader.load(path: try fixture("second"))
        #expect(second.fixture != nil, "\(second.diagnostics)")
        #expect(FixtureLoader().load(path: try fixture("third")).fixture == nil, "a new loader reads the file again")
    }
}
