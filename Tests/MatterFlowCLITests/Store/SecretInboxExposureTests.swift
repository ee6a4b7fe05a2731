import Foundation
import MatterFlowStore
import Testing

/// A secrets directory open to others is said, as a digest key open to others is.
@Suite struct SecretInboxExposureTests {
    @Test("a secrets directory others may list or write is named with its mode and the chmod that closes it; the owner's alone, or none, is fine")
    func exposure() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = directory.file("secrets")
        try FileManager.default.createDirectory(atPath: secrets, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        #expect(SecretInbox(directory: secrets).exposure == nil)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: secrets)
        let listable = try #require(SecretInbox(directory: secrets).exposure)
        #expect(listable.contains("(mode 0755)") && listable.hasSuffix("chmod 700 \(secrets)") && !listable.contains("plant"), "\(listable)")
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: secrets)
        #expect(SecretInbox(directory: secrets).exposure?.contains("remove or plant files in it") == true)
        #expect(SecretInbox(directory: directory.file("missing")).exposure == nil)
    }
}
