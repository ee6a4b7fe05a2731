import Foundation
import MatterFlow
import MatterFlowHubProtocol
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
}
