import Foundation
import MatterFlow
@testable import MatterFlowHubProtocol
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `matterflow hub serve --listen unix:PATH` started again after its hub died without removing its socket file (SIGKILL,
/// a crash, the OOM killer): a service manager restarting it must not find the path taken by a dead socket.
@Suite("hub listener socket files")
struct HubListenerSocketTests {
    @Test("a socket file no process listens on is replaced; one a hub listens on, and a file that is no socket, are refused and left alone")
    func staleSocketFileIsReplaced() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("hub.sock")
        // What a hub killed with SIGKILL leaves: a socket file bound and listened on, its socket closed, never unlinked.
        var address = try unixSocketAddress(path)
        let dead = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(dead, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0 && listen(dead, 1) == 0)
        close(dead)
        #expect(FileManager.default.fileExists(atPath: path))

        let listener = try HubListener(endpoint: .unix(path: path))
        defer { listener.stop() }
        #expect(listener.address == "unix:\(path)")

        // A second hub on the path of one that listens is refused (the first holds the path's lock), and the first
        // keeps its socket.
        do {
            _ = try HubListener(endpoint: .unix(path: path))
            Issue.record("a second listener took the path of one that listens")
        } catch {
            #expect(error.cause == .hubUnreachable)
            #expect(error.message.contains("another hub serves there (it holds \(path).lock)"), "\(error.message)")
        }
        #expect(FileManager.default.fileExists(atPath: path))

        // A live socket of another kind (a datagram socket, which a stream connect cannot tell) is not replaced.
        let datagramPath = directory.file("other.sock")
        var datagramAddress = try unixSocketAddress(datagramPath)
        let datagram = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(datagram) }
        let datagramBound = withUnsafePointer(to: &datagramAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(datagram, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(datagramBound == 0)
        var before = stat()
        #expect(lstat(datagramPath, &before) == 0)
        do {
            _ = try HubListener(endpoint: .unix(path: datagramPath))
            Issue.record("a listener replaced a live datagram socket")
        } catch {
            #expect(error.message.contains("whether a process listens on it cannot be told"), "\(error.message)")
        }
        var after = stat()
        #expect(lstat(datagramPath, &after) == 0 && after.st_ino == before.st_ino, "the datagram socket's file is the same")

        // A file that is no socket is never removed.
        let notes = directory.file("notes.txt")
        try "keep me".write(toFile: notes, atomically: true, encoding: .utf8)
        do {
            _ = try HubListener(endpoint: .unix(path: notes))
            Issue.record("a listener replaced a regular file")
        } catch {
            #expect(error.message.contains("the path exists and is not a socket"), "\(error.message)")
        }
        #expect(try String(contentsOfFile: notes, encoding: .utf8) == "keep me")
    }
}
