import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Reaps this process's ended children that no hub connection waits for. A process running as PID 1 (a container
/// started without an init) becomes the parent of every process orphaned inside it, such as what a hub command started
/// and left behind; without a reaper each stays a zombie, holding its process ID, until the container stops.
public enum OrphanReaper {
    /// Reaps every ended child of this process that is not a hub this process started and still waits for; returns
    /// how many it reaped.
    @discardableResult
    public static func reapOnce() -> Int {
        reap(among: nil)
    }

    /// ``reapOnce()`` for the processes `candidates` names only (nil: any).
    static func reap(among candidates: Set<pid_t>?) -> Int {
        let me = getpid()
        // Under the spawn lock: a hub just started is listed before this can see it.
        return ChildProcess.unreaped.withLock { spawned in
            var reaped = 0
            for entry in ProcessEntry.all()
            where entry.parent == me && entry.state == "Z" && !spawned.contains(entry.pid)
                && candidates?.contains(entry.pid) ?? true
            {
                var status: Int32 = 0
                if waitpid(entry.pid, &status, WNOHANG) == entry.pid { reaped += 1 }
            }
            return reaped
        }
    }

    /// Starts reaping once a second, on a thread of its own, when this process is PID 1; does nothing otherwise (a
    /// process's orphans go to its system's init). Returns whether it started.
    @discardableResult
    public static func startIfInit() -> Bool {
        guard getpid() == 1 else { return false }
        let thread = Thread {
            while true {
                reapOnce()
                sleep(1)
            }
        }
        thread.start()
        return true
    }
}
