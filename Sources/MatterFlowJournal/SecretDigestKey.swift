#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MatterFlow
import MatterFlowJSON
import ThreadDataset

/// The key of the secret digests a journal keeps (``SecretDigests``): 32 random bytes in a file of their own,
/// `digest.key` (64 hex digits, mode 0600), never in a journal or the run store.
///
/// A digest made with the key is an HMAC-SHA256, so someone who reads journal records (a journal file, the run
/// store's tables, a backup, `history --json`) cannot search the few values a setup passcode can take without the
/// key file too. A journal directory keeps its key beside its journal files; a fleet keeps it in its secrets
/// directory (`--secrets`), the one place where its secrets are kept, which every worker reads.
public struct SecretDigestKey: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The key file's name, in its directory.
    public static let fileName = "digest.key"

    /// The key's 32 bytes; never printed (``description`` and the mirror show the ID alone).
    let bytes: [UInt8]
    /// 16 hex digits naming the key, kept with each keyed digest so recovery can tell a key that is not the one
    /// the digests were made with: the first digits of the key's own HMAC of a fixed label, which tell nothing of
    /// the key.
    public let id: String

    init(bytes: [UInt8]) {
        self.bytes = bytes
        id = String(Hex.encode(Self.authenticationCode(key: bytes, message: Array("matterflow digest key".utf8))).prefix(16))
    }

    /// `SecretDigestKey(` and the key's ID: never its bytes.
    public var description: String { "SecretDigestKey(\(id))" }

    /// A mirror that shows the key's ID alone, so `dump` and debuggers never show its bytes.
    public var customMirror: Mirror { Mirror(self, children: ["id": id]) }

    /// A new key drawn from `random`.
    public static func generate(random: any RandomSource = SystemRandomSource()) -> SecretDigestKey {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for _ in 0..<4 {
            let word = random.next()
            for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
        }
        return SecretDigestKey(bytes: bytes)
    }

    /// The key in `directory`'s key file; nil when the directory has none.
    /// - Throws: ``JournalError`` `journalUnreadable` when the file cannot be read or is not 64 hex digits.
    public static func load(fromDirectory directory: String) throws(JournalError) -> SecretDigestKey? {
        let path = directory + "/" + fileName
        let read = FileBytes.contents(of: path, limit: 1_024)
        switch read {
        case .failure(.cannotOpen(let code)) where code == ENOENT:
            return nil
        case .failure(.cannotOpen(let code)), .failure(.cannotRead(let code)):
            throw JournalError(.journalUnreadable, "cannot read the secret digest key \(path): \(String(cString: strerror(code)))")
        case .failure(.notAFile):
            throw JournalError(.journalUnreadable, "the secret digest key \(path) is a device or a socket, not a file")
        case .failure(.tooLarge), .success:
            guard case .success(let contents) = read, let bytes = try? Hex.decode(String(decoding: contents, as: UTF8.self)),
                bytes.count == 32
            else {
                throw JournalError(
                    .journalUnreadable,
                    "the secret digest key \(path) is not 64 hex digits; put back the file this directory had (the "
                        + "digests its runs keep were made with it), or remove it: a new key is made for new runs, and "
                        + "the secrets of runs digested with the old one can then not be checked when they are resumed")
            }
            return SecretDigestKey(bytes: bytes)
        }
    }

    /// The key in `directory`'s key file, created (mode 0600) with a new key when there is none. Processes that
    /// create it at once agree on one key: each writes its own file and links it into place, and the ones that find
    /// a key there already read that one.
    /// - Throws: ``JournalError`` `journalUnwritable` when the file cannot be created, `journalUnreadable` as
    ///   ``load(fromDirectory:)``.
    public static func loadOrCreate(
        inDirectory directory: String, random: any RandomSource = SystemRandomSource()
    ) throws(JournalError) -> SecretDigestKey {
        if let key = try load(fromDirectory: directory) { return key }
        let key = generate(random: random)
        let temporary = directory + "/." + fileName + "." + random.hexDigits(12)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw JournalError(.journalUnwritable, "cannot create the secret digest key in \(directory): \(String(cString: strerror(errno)))")
        }
        defer { unlink(temporary) }
        let text = Array((Hex.encode(key.bytes) + "\n").utf8)
        let written = text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == text.count, synced else {
            throw JournalError(.journalUnwritable, "cannot write the secret digest key in \(directory): \(String(cString: strerror(errno)))")
        }
        if link(temporary, directory + "/" + fileName) != 0 {
            guard errno == EEXIST, let existing = try load(fromDirectory: directory) else {
                throw JournalError(.journalUnwritable, "cannot create the secret digest key in \(directory): \(String(cString: strerror(errno)))")
            }
            return existing
        }
        // The new name must survive a crash: digests made with the key may be durable elsewhere (a fleet's store).
        JournalFile.syncDirectory(directory)
        return key
    }

    /// Why the key file in `directory` is not the owner's alone, as a warning to act on: nil when it is (mode 0600 or
    /// narrower) or when there is none. Whoever can read the key and the journals can search the digests for the
    /// secrets, as if they had no key; whoever can write it can make new runs' digests with a key of their own.
    public static func exposure(inDirectory directory: String) -> String? {
        let path = directory + "/" + fileName
        guard let open = OpenPermissions.of(path, directory: false) else { return nil }
        return "the secret digest key \(path) can be read or written by others than its owner (mode \(open.octal)); "
            + "whoever reads it and the journals can search their digests for the secrets: chmod 600 \(path)"
    }

    /// A keyed digest of secret values (64 hex digits), to tell whether two sets of them are the same without keeping
    /// them: the HMAC of `secrets` written as compact JSON, in its members' order.
    public func digest(of secrets: JSONValue) -> String {
        authenticationCode(of: Array(JSONWriter.compact(secrets).utf8))
    }

    /// The HMAC-SHA256 of `message` with this key, as 64 lowercase hex digits.
    func authenticationCode(of message: [UInt8]) -> String {
        Hex.encode(Self.authenticationCode(key: bytes, message: message))
    }

    /// HMAC-SHA256 (RFC 2104) of `message` with `key` (a key longer than SHA-256's 64-byte block is hashed first).
    static func authenticationCode(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let block = 64
        let short = key.count > block ? SHA256.digest(key) : key
        let padded = short + [UInt8](repeating: 0, count: block - short.count)
        let inner = SHA256.digest(padded.map { $0 ^ 0x36 } + message)
        return SHA256.digest(padded.map { $0 ^ 0x5c } + inner)
    }
}
