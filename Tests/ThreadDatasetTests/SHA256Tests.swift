import Testing

@testable import ThreadDataset

/// FIPS 180-4 vectors, and inputs that span several blocks and end at every padding boundary.
@Suite("SHA-256")
struct SHA256Tests {
    @Test("FIPS 180-4 examples", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func vectors(_ text: String, _ digest: String) {
        #expect(SHA256.hexDigest(Array(text.utf8)) == digest)
    }

    @Test("a message of several blocks")
    func severalBlocks() {
        let message = [UInt8]((0...255).map { UInt8($0) }) + (0...255).map { UInt8($0) } + (0...255).map { UInt8($0) }
        #expect(SHA256.hexDigest(message) == "f3a25aa93aa2fbba28d79260535bbd6a5eb0fc1c24a8b0f04e12b484c1dfe363")
        #expect(SHA256.digest(message).count == 32)
    }

    @Test("messages ending on each side of a padding boundary", arguments: [
        (55, "463eb28e72f82e0a96c0a4cc53690c571281131f672aa229e0d45ae59b598b59"),
        (56, "da2ae4d6b36748f2a318f23e7ab1dfdf45acdc9d049bd80e59de82a60895f562"),
        (57, "2fe741af801cc238602ac0ec6a7b0c3a8a87c7fc7d7f02a3fe03d1c12eac4d8f"),
        (63, "29af2686fd53374a36b0846694cc342177e428d1647515f078784d69cdb9e488"),
        (64, "fdeab9acf3710362bd2658cdc9a29e8f9c757fcf9811603a8c447cd1d9151108"),
        (65, "4bfd2c8b6f1eec7a2afeb48b934ee4b2694182027e6d0fc075074f2fabb31781"),
        (119, "da18797ed7c3a777f0847f429724a2d8cd5138e6ed2895c3fa1a6d39d18f7ec6"),
        (120, "f52b23db1fbb6ded89ef42a23ce0c8922c45f25c50b568a93bf1c075420bbb7c"),
        (127, "92ca0fa6651ee2f97b884b7246a562fa71250fedefe5ebf270d31c546bfea976"),
        (128, "471fb943aa23c511f6f72f8d1652d9c880cfa392ad80503120547703e56a2be5"),
        (1000, "4e4c294b331f7a2099a379bec34b9f9fc03dc46ab465d998f4d683da53487e6d"),
    ])
    func paddingBoundaries(_ length: Int, _ digest: String) {
        let message = (0..<length).map { UInt8($0 % 251) }
        #expect(SHA256.hexDigest(message) == digest)
        #expect(message.withUnsafeBytes { SHA256.hexDigest(bytes: $0) } == digest)
    }

    /// The processor's SHA instructions, where this machine has them, give the portable implementation's digest for
    /// every length up to five blocks (each padding boundary, several blocks in one call) and every byte value.
    @Test(
        "the processor's SHA instructions and the portable implementation agree",
        .enabled(if: SHA256.processorCompression, "this processor has no SHA instructions: only the portable implementation runs"))
    func processorCompression() {
        for length in 0...320 {
            let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 167 &+ length) }
            var portable = [UInt8](repeating: 0, count: 32)
            var processor = [UInt8](repeating: 0, count: 32)
            message.withUnsafeBytes { bytes in
                portable.withUnsafeMutableBytes { SHA256.digest(bytes: bytes, into: $0, compression: .portable) }
                processor.withUnsafeMutableBytes { SHA256.digest(bytes: bytes, into: $0, compression: .processor) }
            }
            #expect(processor == portable, "message of \(length) bytes")
        }
    }
}
