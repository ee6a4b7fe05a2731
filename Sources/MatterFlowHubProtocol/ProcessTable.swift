import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A process as `/proc/PID/stat` describes it: what stopping a hub's group and reaping orphans need.
struct ProcessEntry: Sendable {
    var pid: pid_t
    /// The state letter: `R`, `S`, `D`, `Z` (a zombie, ended but not reaped), `X` (dead) ...
    var state: Character
    var parent: pid_t
    var group: pid_t

    /// Whether the process has ended (a zombie, or dead).
    var ended: Bool { state == "Z" || state == "X" }

    /// Every process `/proc` lists now (empty where there is no `/proc`). Processes that end while it is read are
    /// left out.
    static func all() -> [ProcessEntry] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry in
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8) else {
                return nil
            }
            return ProcessEntry(pid: pid, stat: stat)
        }
    }

    /// The entry a `stat` line describes; nil when it does not parse.
    init?(pid: pid_t, stat: String) {
        // The command's name is in parentheses and may hold anything: the fields after its last ")" are the state,
        // the parent and the process group.
        guard let close = stat.lastIndex(of: ")") else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 2, let state = fields[0].first, let parent = pid_t(fields[1]), let group = pid_t(fields[2]) else {
            return nil
        }
        (self.pid, self.state, self.parent, self.group) = (pid, state, parent, group)
    }
}
