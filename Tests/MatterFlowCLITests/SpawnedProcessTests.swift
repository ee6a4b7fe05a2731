import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The suite's children must not keep each other's descriptors: a child that holds a copy of another child's output
/// pipe keeps that output from ending, and the other child then looks as if it never exited.
@Suite("spawned children")
struct SpawnedProcessTests {
    @Test("a child inherits only its standard streams, whatever else the test process has open")
    func childInheritsOnlyItsStandardStreams() async throws {
        // A descriptor that is not close-on-exec, at a number no child would open by itself.
        var plain: [Int32] = [-1, -1]
        try #require(pipe(&plain) == 0)
        // The lowest free number from 200 up: one no child would open by itself, and no other test's.
        let stray = fcntl(plain[1], F_DUPFD, 200)
        try #require(stray >= 200)
        defer { for descriptor in plain + [stray] { close(descriptor) } }
        #expect(fcntl(stray, F_GETFD) & FD_CLOEXEC == 0)

        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer { close(input) }
        let out = try SpawnedProcess.pipe()
        let child = try SpawnedProcess(
            executable: "/bin/ls", arguments: ["/proc/self/fd"], environment: [:], directory: "/",
            input: input, output: out.write, error: out.write)
        close(out.write)
        let listing = String(decoding: FileHandle(fileDescriptor: out.read, closeOnDealloc: true).readDataToEndOfFile(), as: UTF8.self)
        try #require(await poll { !child.isRunning }, "ls did not exit")
        #expect(child.terminationReason == .exit && child.terminationStatus == 0)
        let descriptors = Set(listing.split(separator: "\n").map(String.init))
        // 0-2 are the streams given; 3 is the directory ls itself opens to list it.
        #expect(descriptors.isSubset(of: ["0", "1", "2", "3"]), "the child inherited \(descriptors.sorted())")
        #expect(descriptors.isSuperset(of: ["0", "1", "2"]))
    }

    @Test("the pipes made for a child are close-on-exec from their creation, so no other child can inherit them")
    func pipesAreCloseOnExec() throws {
        let pipe = try SpawnedProcess.pipe()
        defer { close(pipe.read); close(pipe.write) }
        #expect(fcntl(pipe.read, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(pipe.write, F_GETFD) & FD_CLOEXEC != 0)
    }
}
