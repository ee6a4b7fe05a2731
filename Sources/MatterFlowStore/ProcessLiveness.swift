#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whether a process of this machine still runs.
public enum ProcessLiveness {
    /// True when a process `pid` exists (one of another user's counts: the signal is refused, not unknown).
    public static func isRunning(_ pid: Int) -> Bool {
        guard pid > 0, let target = pid_t(exactly: pid) else { return false }
        return kill(target, 0) == 0 || errno == EPERM
    }
}
