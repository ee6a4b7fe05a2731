import Foundation
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif
@testable import MatterFlowHubProtocol
import Testing

/// The orphans a process running as PID 1 inherits are reaped; the hubs it started stay its hub connections' to reap.
@Suite(.serialized) struct OrphanReaperTests {
    /// Whether `pid` is a zombie child of this process, waiting up to a minute for it to become one.
    static func becomesZombie(_ pid: pid_t) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                ProcessEntry(pid: pid, stat: stat)?.state == "Z"
            {
                return true
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    @Test(.timeLimit(.minutes(2)))
    func anEndedChildNoHubConnectionWaitsForIsReapedAndAHubsIsLeftToItsConnection() async throws {
        // A child started outside any hub connection, as an orphan re-parented to PID 1 would be.
        var stray: pid_t = 0
        let words = ["/bin/sh", "-c", "exit 0"]
        let arguments = words.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        #expect(posix_spawn(&stray, "/bin/sh", nil, nil, arguments, environ) == 0)
        let hub = try ChildProcess.spawn(["/bin/sh", "-c", "exit 3"])
        #expect(await Self.becomesZombie(stray))
        #expect(await Self.becomesZombie(hub.pid))
        // Only these two: the other tests' children are their own to reap.
        #expect(OrphanReaper.reap(among: [stray, hub.pid]) == 1)
        #expect(!FileManager.default.fileExists(atPath: "/proc/\(stray)"), "the stray child was reaped")
        #expect(FileManager.default.fileExists(atPath: "/proc/\(hub.pid)"), "the hub's end is its connection's to see")
        #expect(hub.exitDescription(within: .seconds(5)) == "the hub exited with status 3")
        await hub.stop()
        #expect(!ChildProcess.unreaped.withLock { $0.contains(hub.pid) })
    }

    @Test func aProcessThatIsNotPIDOneStartsNoReaper() {
        #expect(getpid() == 1 || !OrphanReaper.startIfInit())
    }
}
