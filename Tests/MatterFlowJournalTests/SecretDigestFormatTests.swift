import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import Testing

/// The digest a `runStarted` record keeps for a secret input is part of the journal format: a run started by one
/// MatterFlow is resumed by another, which checks the secret given again against it.
@Suite("secret digest format")
struct SecretDigestFormatTests {
    /// Computed independently (Python's hashlib): `d = sha256(salt + ":" + json)`, then 999 times
    /// `d = sha256(salt + d)`, each digest as lowercase hex.
    @Test("a digest is the salted SHA-256 of the value's JSON, hashed again with the salt 999 times")
    func knownAnswers() {
        let salt = "00112233445566778899aabbccddeeff"
        #expect(
            SecretDigests.digest(.string("MT:Y.K9042C00KA0648G00"), salt: salt)
                == "21c2050109028b3fcdf34b9b0776d48a008af163360f7bc30e15aa69b5e16ab7")
        #expect(
            SecretDigests.digest(["a": 1], salt: salt) == "667574c64ff04e82e2acddc42942d73b83792d9d641c4592e71540fee96e2e35")
    }

    @Test("the hex digest bytes are the hex digest string's")
    func hexBytes() {
        let text = "matterflow"
        let bytes = Array(text.utf8).withUnsafeBytes { ContentHash.sha256HexBytes($0) }
        #expect(String(decoding: bytes, as: UTF8.self) == ContentHash.sha256(text))
    }
}
