import Foundation
import MatterFlow
import Testing

/// A loaded workflow's content hash, which journals keep: recovery refuses to resume a run whose workflow now hashes
/// differently, so the recipe is pinned here; changing it would make every journaled run unresumable.
@Suite struct ContentHashTests {
    static let child = #"{"workflow": "child", "version": 1, "start": "done", "states": {"done": {"type": "succeed"}}}"#

    @Test func aFileAndItsSubworkflowsHashByTheDocumentedRecipe() throws {
        let directory = try LoadCacheTests.Directory()
        try directory.write("parent.json", LoadCacheTests.parent)
        try directory.write("child.json", Self.child)
        let engine = WorkflowEngine()
        let parent = try engine.load(path: directory.path + "/parent.json")
        let child = try engine.load(path: directory.path + "/child.json")
        // A file without sub-workflows: the hash of its text's hex digest.
        let childHash = ContentHash.sha256(ContentHash.sha256(Self.child))
        #expect(child.contentHash == childHash)
        #expect(childHash == "6a7a08107d4615fe7ff8f700b34b199444c6693ddb761f6667ae1c0052359bcc")
        // A file with sub-workflows: its text's digest, then a line `path=hash` for each, in the order of the paths.
        #expect(parent.contentHash == ContentHash.sha256(ContentHash.sha256(LoadCacheTests.parent) + "\nchild.json=" + childHash))
        #expect(parent.contentHash == "2a69b0af332229229664ec8ce7ba616cd64cce51ad0a658fb198f36709814814")
    }
}
