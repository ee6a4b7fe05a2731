import MatterFlow
import MatterFlowJournal

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension SecretInbox {
    /// How long all of a run's files must have stood untouched (by their modification time) before a worker's sweep
    /// or `store prune --secrets` removes them as the files of a run the store does not have: ten minutes.
    ///
    /// `submit` writes a run's files before it queues the run (and touches a file it finds written already, when it is
    /// sent again), and it waits at most about 30 s for a store that does not answer, so a submit under way is never
    /// taken for a run that was pruned. The margin also covers a shared volume whose clock is a few minutes off.
    public static let orphanAgeSeconds: Double = 600

    /// The files one run has in the directory.
    struct RunFiles: Sendable, Hashable {
        /// The kinds of its complete files (not counting a `.partial` twin a writer left).
        var kinds: Set<Kind> = []
        /// The latest modification time of its files, `.partial` twins included, in seconds since the Unix epoch.
        var lastModified: Double = -.infinity
    }

    /// Every run that has files in the directory, by run ID: the names `<run>.secrets`, `.answers`, `.output` and
    /// `.shown`, and their `.partial` twins, whose run part is a run ID (``RunIDRule``). Nothing else is a run's:
    /// not `digest.key`, not a name of another shape.
    /// - Throws: ``StoreError`` `secretsUnavailable` when the directory cannot be listed.
    func runFiles() throws(StoreError) -> [String: RunFiles] {
        let names: [String]
        do throws(JournalError) {
            names = try JournalFile.list(directory)
        } catch {
            throw StoreError(.secretsUnavailable, "cannot list \(directory); --secrets must name a readable directory")
        }
        var runs: [String: RunFiles] = [:]
        for name in names {
            let complete = name.hasSuffix(".partial") ? String(name.dropLast(".partial".count)) : name
            guard let (runID, kind) = Self.runFile(named: complete) else { continue }
            var files = runs[runID, default: RunFiles()]
            if complete == name { files.kinds.insert(kind) }
            if let modified = Self.lastModified(directory + "/" + name) { files.lastModified = max(files.lastModified, modified) }
            runs[runID] = files
        }
        return runs
    }

    /// The run and kind a file name stands for; nil for a name that is not a run's file.
    static func runFile(named name: String) -> (runID: String, kind: Kind)? {
        for kind in Kind.allCases where name.hasSuffix("." + kind.rawValue) {
            let runID = String(name.dropLast(kind.rawValue.count + 1))
            if RunIDRule.problem(with: runID) == nil { return (runID, kind) }
        }
        return nil
    }

    /// Removes every file of a run, with what a writer that died left of them, when none was modified at or after
    /// `cutoff` (seconds since the Unix epoch). The times are read again holding the directory's lock, which
    /// `submit` holds while it writes (or touches) a run's file before it queues the run: a run submitted meanwhile
    /// keeps its files.
    /// - Returns: Whether the files went; false when one is newer, one could not be removed, or the lock cannot be had.
    func removeUntouched(runID: String, since cutoff: Double) -> Bool {
        let files = Kind.allCases.compactMap { path(of: runID, $0) }
        let paths = files + files.map(Self.temporary(of:))
        do throws(StoreError) {
            return try locked { () throws(StoreError) -> Bool in
                guard paths.allSatisfy({ (Self.lastModified($0) ?? -.infinity) < cutoff }) else { return false }
                var removedAll = true
                for path in paths where unlink(path) != 0 && errno != ENOENT { removedAll = false }
                return removedAll
            }
        } catch {
            return false
        }
    }

    /// A file's modification time in seconds since the Unix epoch (a link's own); nil when it is not there.
    static func lastModified(_ path: String) -> Double? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9
    }
}
