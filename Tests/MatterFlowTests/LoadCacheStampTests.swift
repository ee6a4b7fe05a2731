import Foundation
import MatterFlowJSON
import Testing

@testable import MatterFlow

/// The load cache takes a file's stamp for its bytes only when the stamp can vouch for them; a file whose stamp
/// changed, in any of its parts, is read and compared again.
@Suite struct LoadCacheStampTests {
    typealias Directory = LoadCacheTests.Directory

    /// A clock an hour ahead of the files' times, so that every stamp vouches.
    static let later: @Sendable () -> FileStamp.Timestamp = {
        var now = WorkflowLoadCache.wallClock()
        now.seconds += 3600
        return now
    }

    static let past = Date(timeIntervalSince1970: 1_000_000_000)

    /// Writes `text` into the existing file in place (same inode), as an editor saving in place does.
    static func overwrite(_ path: String, _ text: String) throws {
        let handle = try #require(FileHandle(forWritingAtPath: path))
        defer { try? handle.close() }
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: Data(text.utf8))
    }

    static func load(_ cache: WorkflowLoadCache, _ path: String) -> [String] {
        cache.outcome(path: path, loader: WorkflowLoader()).diagnostics.map(\.code)
    }

    /// A parent and its child workflow, the child's modification time far in the past (so that writing it again
    /// changes that time, whatever the clock's tick), loaded once by a cache whose stamps all vouch.
    struct LoadedTree {
        let directory: Directory
        let cache = WorkflowLoadCache(now: LoadCacheStampTests.later)
        var parent: String { directory.path + "/parent.json" }
        var child: String { directory.path + "/child.json" }

        init() throws {
            directory = try Directory()
            try directory.write("parent.json", LoadCacheTests.parent)
            try directory.write("child.json", LoadCacheTests.child(next: "b"))
            try FileManager.default.setAttributes([.modificationDate: LoadCacheStampTests.past], ofItemAtPath: child)
            #expect(load().isEmpty)
        }

        func load() -> [String] { LoadCacheStampTests.load(cache, parent) }
    }

    @Test("a sub-workflow written again in place, the same size, its stamp vouching until then, is loaded again")
    func rewrittenInPlace() throws {
        let tree = try LoadedTree()
        #expect(tree.load().isEmpty)
        try Self.overwrite(tree.child, LoadCacheTests.child(next: "c"))
        #expect(tree.load().contains("undefinedState"))
        try Self.overwrite(tree.child, LoadCacheTests.child(next: "b"))
        #expect(tree.load().isEmpty)
    }

    @Test("another file renamed over the sub-workflow, with the same size and times, is loaded again")
    func replacedByRename() throws {
        let tree = try LoadedTree()
        let next = tree.directory.path + "/next.json"
        try tree.directory.write("next.json", LoadCacheTests.child(next: "c"))
        try FileManager.default.setAttributes([.modificationDate: Self.past], ofItemAtPath: next)
        #expect(rename(next, tree.child) == 0)
        #expect(tree.load().contains("undefinedState"))
    }

    @Test("a stamp vouches only when the file's times were settled when it was taken")
    func recentStampsDoNotVouch() throws {
        let directory = try Directory()
        try directory.write("child.json", LoadCacheTests.child(next: "b"))
        let stamp = try #require(FileBytes.stamp(of: directory.path + "/child.json"))
        // Just written: its change time is now, within the clock's latest ticks.
        #expect(!WorkflowLoadCache().vouches(for: stamp))
        #expect(WorkflowLoadCache(now: Self.later).vouches(for: stamp))
        let soon: @Sendable () -> FileStamp.Timestamp = {
            var now = WorkflowLoadCache.wallClock()
            now.seconds += WorkflowLoadCache.settledSeconds - 1
            return now
        }
        #expect(!WorkflowLoadCache(now: soon).vouches(for: stamp))
        #expect(FileBytes.stamp(of: directory.path + "/missing.json") == nil)
    }
}
