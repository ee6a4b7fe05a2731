import Foundation
import MatterFlow
@testable import MatterFlowHubProtocol
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A hub command started by MatterFlow holds its standard streams and nothing else of the process that started it:
/// a service embedding the engine may have sockets and files open without close-on-exec, and a hub that kept them
/// would keep a listening port taken, or a peer waiting for an end, for as long as it runs.
@Suite("hub commands' descriptors")
struct HubCommandDescriptorsTests {
    @Test("a hub command inherits only its standard streams")
    func inheritsOnlyStandardStreams() async throws {
        var plain: [Int32] = [-1, -1]
        try #require(pipe(&plain) == 0)
        // The lowest free number from 201 up: one no child would open by itself, and no other test's.
        let stray = fcntl(plain[1], F_DUPFD, 201)
        try #require(stray >= 201)
        defer { for descriptor in plain + [stray] { close(descriptor) } }
        #expect(fcntl(stray, F_GETFD) & FD_CLOEXEC == 0, "the stray descriptor must be inheritable for this test to mean anything")

        let listing = FileManager.default.temporaryDirectory.appendingPathComponent("matterflow-fds-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: listing) }
        // The "hub" lists its own descriptors (ls's, which are the shell's plus the directory ls opens) and exits.
        let endpoint = HubEndpoint.command(["/bin/sh", "-c", "ls /proc/self/fd > '\(listing)'"])
        await #expect(throws: FlowError.self) { _ = try await RemoteHub.connect(to: endpoint) }
        let descriptors = Set(try String(contentsOfFile: listing, encoding: .utf8).split(separator: "\n").map(String.init))
        #expect(descriptors.isSuperset(of: ["0", "1", "2"]))
        #expect(descriptors.isSubset(of: ["0", "1", "2", "3"]), "the hub inherited \(descriptors.sorted())")
    }

    @Test("an empty hub command built in code is refused with an error, not a trap")
    func anEmptyCommandIsRefused() async throws {
        for words in [[], [""]] {
            do {
                _ = try await RemoteHub.connect(to: .command(words))
                Issue.record("an empty hub command connected")
            } catch {
                #expect(error.code == .unavailable)
                #expect(error.message.contains("the hub command: it is empty"), "\(error.message)")
            }
        }
    }

    /// A process may start MatterFlow with signals blocked (a supervisor, a shell's job control), and a thread of
    /// an embedding service may block them: a hub started from there must not inherit that, or SIGTERM (the stop
    /// MatterFlow sends a hub that outlives its input) and Ctrl-C in its own terminal would not reach it.
    @Test("a hub command starts with no signal blocked or ignored, whatever the thread that starts it blocks")
    func startsWithNoSignalBlocked() async throws {
        // grep reads its own status (a shell would not do: dash unblocks every signal as it starts).
        let child = try Self.spawnWithSignalsBlocked(["grep", "-E", "^Sig(Blk|Ign):", "/proc/self/status"])
        close(child.input)
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while case let count = read(child.output, &buffer, buffer.count), count > 0 { bytes += buffer[0..<count] }
        close(child.output)
        await child.stop()
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.contains("SigBlk:\t0000000000000000"), "\(lines)")
        // Nor is any ignored, though this thread ignored SIGINT and SIGUSR1 (but glibc's own signals 32 and 33, which
        // no program may change).
        let ignored = lines.first { $0.hasPrefix("SigIgn:") }.flatMap { UInt64($0.dropFirst(7).trimmingCharacters(in: .whitespaces), radix: 16) }
        #expect(ignored.map { $0 & ~(UInt64(1) << 31 | UInt64(1) << 32) } == 0, "\(lines)")
    }

    /// Spawns `words` from this thread with every signal blocked on it (and SIGINT ignored), as a thread of a
    /// service might be; restores both after.
    private static func spawnWithSignalsBlocked(_ words: [String]) throws -> ChildProcess {
        var all = sigset_t()
        sigfillset(&all)
        var previous = sigset_t()
        pthread_sigmask(SIG_SETMASK, &all, &previous)
        let handler = signal(SIGINT, SIG_IGN)
        let user = signal(SIGUSR1, SIG_IGN)
        defer {
            signal(SIGUSR1, user)
            signal(SIGINT, handler)
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
        return try ChildProcess.spawn(words)
    }
}
