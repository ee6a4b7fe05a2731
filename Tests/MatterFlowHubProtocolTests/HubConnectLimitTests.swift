import Foundation
import MatterFlow
@testable import MatterFlowHubProtocol
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP hub that does not accept the connection is given up after the connect limit, on a thread of its own, so a
/// service's tasks go on meanwhile.
@Suite("hub connect limit")
struct HubConnectLimitTests {
    @Test("a listener whose backlog is full is given up after the limit, as hubUnreachable")
    func aConnectionNotAcceptedIsGivenUp() async throws {
        // A loopback listener that accepts nothing, its backlog filled: the next connection waits for ever.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(listener >= 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try #require(withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } } == 0)
        try #require(listen(listener, 0) == 0)
        try #require(withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } } == 0)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let filler = try HubConnection.open(.tcp(host: "127.0.0.1", port: port), connectLimit: .seconds(2))
        defer { filler.channel.close() }

        let started = ContinuousClock.now
        let error = await #expect(throws: FlowError.self) {
            _ = try await HubConnection.opening(.tcp(host: "127.0.0.1", port: port), connectLimit: .milliseconds(300))
        }
        let waited = ContinuousClock.now - started
        #expect(error?.cause == .hubUnreachable)
        #expect(error?.message.contains("the connection was not accepted within 0.3 s") == true, "\(error?.message ?? "")")
        // Given up, not held for the kernel's two minutes of SYN retries (a loaded machine may resume the task late).
        #expect(waited >= .milliseconds(300) && waited < .seconds(60), "\(waited)")
    }

    @Test("a port nobody listens on is refused at once")
    func aClosedPortIsRefused() async throws {
        let error = await #expect(throws: FlowError.self) {
            _ = try await HubConnection.opening(.tcp(host: "127.0.0.1", port: 1), connectLimit: .seconds(5))
        }
        #expect(error?.message.contains("Connection refused") == true, "\(error?.message ?? "")")
    }
}
