#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether a descriptor is connected to the systemd journal: systemd sets `JOURNAL_STREAM` to `DEVICE:INODE` of the
/// stream it gives a service's standard output and error. A process whose standard error is that stream may start
/// each line with a syslog priority, `<3>` to `<6>`, which journald takes as the line's priority and removes
/// (`SyslogLevelPrefix=`, on by default): `journalctl -p warning` then shows the worker's warnings and errors.
/// A descriptor redirected elsewhere (a file, a pipe to another program) has another device or inode.
enum JournalStream {
    /// Whether `value` (the `JOURNAL_STREAM` variable; nil when unset) names the stream `descriptor` is open on.
    static func matches(_ value: String?, descriptor: Int32) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }
}
