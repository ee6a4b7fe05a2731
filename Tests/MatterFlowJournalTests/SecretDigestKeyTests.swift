import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import Testing
import ThreadDataset

/// The key secret digests are made with: HMAC-SHA256 as RFC 4231 gives it, a key file of its own that concurrent
/// processes agree on, and the two digest schemes a `runStarted` record may hold.
@Suite("secret digest key")
struct SecretDigestKeyTests {
    @Test(
        "HMAC-SHA256 gives RFC 4231's values",
        arguments: [
            ([UInt8](repeating: 0x0b, count: 20), "Hi There", "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
            (Array("Jefe".utf8), "what do ya want for nothing?", "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
            ([UInt8](repeating: 0xaa, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
             "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        ])
    func rfc4231(key: [UInt8], message: String, expected: String) {
        #expect(Hex.encode(SecretDigestKey.authenticationCode(key: key, message: Array(message.utf8))) == expected)
    }

    @Test("the key file is made once, 64 hex digits readable by its owner alone, and read back as the same key")
    func keyFile() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        #expect(try SecretDigestKey.load(fromDirectory: scratch.path) == nil)
        let made = try SecretDigestKey.loadOrCreate(inDirectory: scratch.path, random: SeededRandomSource(seed: 1))
        let path = scratch.file(SecretDigestKey.fileName)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.count == 65 && text.hasSuffix("\n") && text.dropLast().allSatisfy(\.isHexDigit), "\(text)")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        #expect(mode == 0o600)
        #expect(try SecretDigestKey.load(fromDirectory: scratch.path) == made)
        let again = try SecretDigestKey.loadOrCreate(inDirectory: scratch.path, random: SeededRandomSource(seed: 2))
        #expect(again == made)
        #expect(again.id.count == 16 && again.id != String(text.prefix(16)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path) == [SecretDigestKey.fileName])
    }

    @Test("a key file others can read or write is named with its mode and what to do; the owner's alone is not")
    func exposure() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        #expect(SecretDigestKey.exposure(inDirectory: scratch.path) == nil)
        _ = try SecretDigestKey.loadOrCreate(inDirectory: scratch.path)
        #expect(SecretDigestKey.exposure(inDirectory: scratch.path) == nil)
        let path = scratch.file(SecretDigestKey.fileName)
        for (mode, shown) in [(0o640, "0640"), (0o604, "0604"), (0o620, "0620"), (0o400, nil)] as [(Int, String?)] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
            let warning = SecretDigestKey.exposure(inDirectory: scratch.path)
            if let shown {
                #expect(warning?.contains("\(path) can be read or written by others than its owner (mode \(shown))") == true, "\(warning ?? "nil")")
                #expect(warning?.hasSuffix("chmod 600 \(path)") == true)
            } else {
                #expect(warning == nil)
            }
        }
    }

    @Test("processes that make the key at once all get the one that ends up in the file")
    func concurrentCreation() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let directory = scratch.path
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for seed in 1...8 {
                group.addTask { try SecretDigestKey.loadOrCreate(inDirectory: directory, random: SeededRandomSource(seed: UInt64(seed))).id }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        let kept = try #require(try SecretDigestKey.load(fromDirectory: directory))
        #expect(ids == [kept.id])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == [SecretDigestKey.fileName])
    }

    @Test("a key file that is not 64 hex digits is refused, naming it and what to do")
    func malformedKeyFile() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try "not a key\n".write(toFile: scratch.file(SecretDigestKey.fileName), atomically: true, encoding: .utf8)
        #expect {
            try SecretDigestKey.loadOrCreate(inDirectory: scratch.path)
        } throws: { error in
            let error = error as? JournalError
            return error?.code == .journalUnreadable && error?.message.contains(scratch.file(SecretDigestKey.fileName)) == true
                && error?.message.contains("64 hex digits") == true
        }
    }

    @Test("keyed digests need their key; stretched ones, which older journals keep, need none and are still checked")
    func schemes() throws {
        let key = SecretDigestKey.generate(random: SeededRandomSource(seed: 3))
        let value = JSONValue.string("MT:Y.K9042C00KA0648G00")
        let keyed = SecretDigests(salt: "00ff", scheme: .keyed(keyID: key.id), inputs: [:]).withKey(key)
        let digest = try #require(keyed.digest(value))
        #expect(digest.count == 64)
        #expect(keyed.matches(value, digest: digest))
        #expect(!keyed.matches(.string("34970112332"), digest: digest))
        #expect(digest != SecretDigests.digest(value, salt: "00ff"))
        let otherKey = SecretDigestKey.generate(random: SeededRandomSource(seed: 4))
        #expect(keyed.withKey(otherKey).digest(value) == nil)
        #expect(keyed.withKey(otherKey).unavailability?.contains(otherKey.id) == true)
        #expect(keyed.withKey(nil).unavailability?.contains(SecretDigestKey.fileName) == true)

        let stretched = SecretDigests(salt: "00ff", inputs: ["pin": SecretDigests.digest(value, salt: "00ff")])
        #expect(stretched.unavailability == nil)
        #expect(stretched.matches("pin", value) == true)
        #expect(stretched.withKey(key).matches("pin", value) == true)
    }

    @Test("a runStarted record's digests: keyed ones name their key and no rounds; an unknown scheme is a located error")
    func recordForms() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        func started(_ digests: JSONObject) -> JSONObject {
            [
                "seq": 1, "type": "runStarted", "runID": "run-1", "workflow": "w", "version": 1, "file": "/w.json",
                "contentHash": "ab", "structureID": "home", "inputs": [:], "secretsShown": false, "pid": 1, "format": 1, "wallTime": 0,
                "secretDigests": .object(digests),
            ]
        }
        let keyed = try JournalEntryCodecTests.journal(
            [started(["salt": "00ff", "scheme": "hmac-sha256", "key": "0123456789abcdef", "inputs": ["pin": "d"]])], in: scratch)
        let read = try JournalReader.read(path: keyed).entries().started?.entry.secretDigests
        #expect(read == SecretDigests(salt: "00ff", scheme: .keyed(keyID: "0123456789abcdef"), inputs: ["pin": "d"]))
        let legacy = try JournalEntryCodecTests.journal([started(["salt": "00ff", "rounds": 1_000, "inputs": ["pin": "d"]])], in: scratch)
        #expect(try JournalReader.read(path: legacy).entries().started?.entry.secretDigests == SecretDigests(salt: "00ff", inputs: ["pin": "d"]))
        let unknown = try JournalEntryCodecTests.journal(
            [started(["salt": "00ff", "scheme": "md5", "key": "0123456789abcdef", "inputs": [:]])], in: scratch)
        #expect {
            try JournalReader.read(path: unknown).entries()
        } throws: { error in
            let error = error as? JournalError
            return error?.code == .malformedRecord && error?.message.contains("secretDigests.scheme") == true
                && error?.message.contains("hmac-sha256") == true
        }
    }
}
