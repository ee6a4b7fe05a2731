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

    @Test("a sub-workflow written again in place, the same size, its stamp vouching until then, is loaded again")
    func rewrittenInPlace() throws {
        let directory = try Directory()
        try directory.write("parent.json", LoadCacheTests.parent)
        try directory.write("child.json", LoadCacheTests.child(next: "b"))
        let child = directory.path + "/child.json"
        // Its modification time far in the past: the rewrite below changes it, whatever the clock's tick.
        try FileManager.default.setAttributes([.modificationDate: Self.past], ofItemAtPath: child)
        let cache = WorkflowLoadCache(now: Self.later)
        let parent = directory.path + "/parent.json"
        #expect(Self.load(cache, parent).isEmpty)
        #expect(Self.load(cache, parent).isEmpty)
        try Self.overwrite(child, LoadCacheTests.child(next: "c"))
        #expect(Self.load(cache, parent).contains("undefinedState"))
        try Self.overwrite(child, LoadCacheTests.child(next: "b"))
        #expect(Self.load(cache, parent).isEmpty)
    }

    @Test("another file renamed over the sub-workflow, with the same size and times, is loaded again")
    func replacedByRename() throws {
        let directory = try Directory()
        try directory.write("parent.json", LoadCacheTests.parent)
        try directory.write("child.json", LoadCacheTests.child(next: "b"))
        let child = directory.path + "/child.json"
        try FileManager.default.setAttributes([.modificationDate: Self.past], ofItemAtPath: child)
        let cache = WorkflowLoadCache(now: Self.later)
        let parent = directory.path + "/parent.json"
        #expect(Self.load(cache, parent).isEmpty)
        try directory.write("next.json", LoadCacheTests.child(next: "c"))
        try FileManager.default.setAttributes([.modificationDate: Self.past], ofItemAtPath: directory.path + "/next.json")
        #expect(rename(directory.path + "/next.json", child) == 0)
        #expect(Self.load(cache, parent).contains("undefinedState"))
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
