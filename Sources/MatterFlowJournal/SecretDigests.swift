import MatterFlow
import MatterFlowJSON

/// A salted digest of each secret input a run started with, kept in its `runStarted` record (`secretDigests`), so
/// that `--resume` can tell whether a secret given again is the one the run used, while the journal never keeps the
/// secret itself. The same salt digests each secret answer, kept in its `answered` record (`digest`).
///
/// A run journaled with a ``SecretDigestKey`` (every run of a journal directory, and every fleet run of a worker
/// with a secrets directory) keeps keyed digests: the HMAC-SHA256, with the key, of the run's random salt and the
/// value's compact JSON. A setup passcode has few enough values (about 2^27) that any digest made without a secret
/// could be searched by whoever reads the records; a keyed one cannot be without the key file. Runs journaled with
/// no key (a ``JournalSink`` given none), and journals written before keys, keep the stretched digest: SHA-256 over
/// the salt and the value's JSON, hashed again with the salt ``rounds`` times. Both are read and checked.
struct SecretDigests: Sendable, Hashable {
    /// How a run's digests were made.
    enum Scheme: Sendable, Hashable {
        /// HMAC-SHA256 with the key whose ``SecretDigestKey/id`` this is.
        case keyed(keyID: String)
        /// Salted SHA-256 hashed ``SecretDigests/rounds`` times, with no key.
        case stretched
    }

    /// How many times a stretched digest is hashed.
    static let rounds = 1_000

    /// 32 random hex digits, drawn per run.
    var salt: String
    var scheme: Scheme
    /// Digest by input name.
    var inputs: [String: String]
    /// The key of a keyed scheme, when this process has it (``withKey(_:)``); never written to a record, and not
    /// part of equality.
    var key: SecretDigestKey?

    /// The digests of a run's secret inputs present in `inputs` (keyed with the key `key` gives, or stretched when
    /// it gives none), and a salt for its secret answers; nil when the run has neither secret inputs given nor a
    /// secret question (in its workflow or a sub-workflow). `key` is asked only when the run keeps digests, so a
    /// journal directory makes its key file with its first run that needs one.
    static func forRun(
        workflow: Workflow, inputs: JSONObject, random: any RandomSource, key: () throws(JournalError) -> SecretDigestKey?
    ) throws(JournalError) -> SecretDigests? {
        let secret = workflow.inputs.filter { $0.secret && inputs[$0.name].map { !$0.isNull } == true }
        guard !secret.isEmpty || workflow.hasAsk(where: \.secret) else { return nil }
        let key = try key()
        var digests = SecretDigests(salt: random.hexDigits(32), scheme: key.map { .keyed(keyID: $0.id) } ?? .stretched, inputs: [:])
        digests.key = key
        for declaration in secret {
            // The key is this run's own, so every digest can be made.
            digests.inputs[declaration.name] = inputs[declaration.name].flatMap(digests.digest)
        }
        return digests
    }

    /// Digests as a `runStarted` record keeps them (``JournalEntryCodec`` reads and writes them).
    init(salt: String, scheme: Scheme = .stretched, inputs: [String: String]) {
        self.salt = salt
        self.scheme = scheme
        self.inputs = inputs
    }

    /// These digests with `key` to make and check keyed ones.
    func withKey(_ key: SecretDigestKey?) -> SecretDigests {
        var copy = self
        copy.key = key
        return copy
    }

    /// Why this process cannot make or check the run's digests (a keyed scheme without its key); nil when it can.
    var unavailability: String? {
        guard case .keyed(let keyID) = scheme else { return nil }
        guard let key else {
            return "its secrets were digested with the key \(keyID) (\(SecretDigestKey.fileName)), and no key is at hand here"
        }
        guard key.id == keyID else {
            return "its secrets were digested with the key \(keyID), not with this \(SecretDigestKey.fileName) (\(key.id)); "
                + "use the directory the run was journaled with"
        }
        return nil
    }

    /// The digest of `value` for this run, as its records keep them; nil when ``unavailability`` says why not.
    func digest(_ value: JSONValue) -> String? {
        switch scheme {
        case .stretched:
            return Self.digest(value, salt: salt)
        case .keyed:
            guard unavailability == nil, let key else { return nil }
            return key.authenticationCode(of: Array((salt + ":" + JSONWriter.compact(value)).utf8))
        }
    }

    /// Whether `value` is the value the digest of input `name` was made from; nil when there is no such digest.
    func matches(_ name: String, _ value: JSONValue) -> Bool? {
        inputs[name].map { matches(value, digest: $0) }
    }

    /// Whether `value` is the value `digest` was made from with this run's salt (a secret input's or answer's);
    /// false when the digest cannot be made here (``unavailability``).
    func matches(_ value: JSONValue, digest: String) -> Bool {
        self.digest(value) == digest
    }

    static func == (lhs: SecretDigests, rhs: SecretDigests) -> Bool {
        lhs.salt == rhs.salt && lhs.scheme == rhs.scheme && lhs.inputs == rhs.inputs
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(salt)
        hasher.combine(scheme)
        hasher.combine(inputs)
    }

    /// The stretched digest of `value`: `sha256(salt ":" json)`, then ``rounds`` - 1 times `sha256(salt digest)`, each digest
    /// as its 64 lowercase hex digits. The rounds hash one byte buffer in place (the salt, then the last digest's
    /// digits, which each round overwrites), so a run's start pays for the hashing and allocates nothing per round.
    static func digest(_ value: JSONValue, salt: String) -> String {
        let first = Array((salt + ":" + JSONWriter.compact(value)).utf8)
        let saltLength = salt.utf8.count
        var message = Array(salt.utf8) + [UInt8](repeating: 0, count: 64)
        message.withUnsafeMutableBytes { message in
            let digits = UnsafeMutableRawBufferPointer(rebasing: message[saltLength...])
            first.withUnsafeBytes { ContentHash.sha256Hex(of: $0, into: digits) }
            for _ in 1..<rounds {
                ContentHash.sha256Hex(of: UnsafeRawBufferPointer(message), into: digits)
            }
        }
        return String(decoding: message[saltLength...], as: UTF8.self)
    }
}
