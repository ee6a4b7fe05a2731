import MatterFlow
import MatterFlowJSON

/// A salted, stretched SHA-256 digest of each secret input a run started with, kept in its `runStarted` record
/// (`secretDigests`), so that `--resume` can tell whether a secret given again is the one the run used, while the
/// journal never keeps the secret itself. The same salt digests each secret answer, kept in its `answered` record
/// (`digest`).
///
/// Each digest is SHA-256 over the run's random salt and the value's compact JSON, hashed again with the salt
/// ``rounds`` times: a setup passcode has few enough values that a single hash would be cheap to search.
struct SecretDigests: Sendable, Hashable {
    /// How many times each digest is hashed.
    static let rounds = 1_000

    /// 32 random hex digits, drawn per run.
    var salt: String
    /// Digest by input name.
    var inputs: [String: String]

    /// The digests of the workflow's secret inputs present in `inputs`, and a salt for its secret answers; nil when
    /// it has neither secret inputs given nor a secret question (in it or a sub-workflow).
    init?(workflow: Workflow, inputs: JSONObject, random: any RandomSource) {
        var digests: [String: String] = [:]
        let salt = random.hexDigits(32)
        for declaration in workflow.inputs where declaration.secret {
            guard let value = inputs[declaration.name], !value.isNull else { continue }
            digests[declaration.name] = Self.digest(value, salt: salt)
        }
        guard !digests.isEmpty || Self.asksSecretQuestions(workflow) else { return nil }
        self.salt = salt
        self.inputs = digests
    }

    /// Digests as a `runStarted` record keeps them (``JournalEntryCodec`` reads and writes them).
    init(salt: String, inputs: [String: String]) {
        self.salt = salt
        self.inputs = inputs
    }

    /// Whether `value` is the value the digest of input `name` was made from; nil when there is no such digest.
    func matches(_ name: String, _ value: JSONValue) -> Bool? {
        inputs[name].map { matches(value, digest: $0) }
    }

    /// Whether `value` is the value `digest` was made from with this run's salt (a secret input's or answer's).
    func matches(_ value: JSONValue, digest: String) -> Bool {
        Self.digest(value, salt: salt) == digest
    }

    /// Whether the workflow or one of its sub-workflows has a secret ask state.
    static func asksSecretQuestions(_ workflow: Workflow) -> Bool {
        var seen = Set<String>()
        var pending = [workflow]
        while let workflow = pending.popLast() {
            guard seen.insert(workflow.file).inserted else { continue }
            for state in workflow.states.values {
                if case .ask(let ask) = state.kind, ask.secret { return true }
            }
            pending.append(contentsOf: workflow.subworkflows.values)
        }
        return false
    }

    /// The digest of `value`: `sha256(salt ":" json)`, then ``rounds`` - 1 times `sha256(salt digest)`, each digest
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
