import Testing

import ThreadDataset

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
}
