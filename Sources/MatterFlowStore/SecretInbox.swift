import MatterFlow
import MatterFlowJSON
import MatterFlowJournal

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a run's secret inputs, and its answers to secret questions, wait for the worker that runs it: the store
/// never keeps them.
///
/// `matterflow submit --secrets DIR` writes the secret inputs of a run to `DIR/<runID>.secrets` and its answers to
/// secret questions to `DIR/<runID>.answers` (JSON objects, mode 0600); the worker that claims the run (or takes it
/// over after its first worker died) reads them from its own `--secrets DIR` (the same directory, or a copy a fleet
/// shares: a tmpfs mount, a secrets volume), and removes the files once the run has a final status. A run that ends
/// with secrets in its output (`epskc-share`'s ePSKc) leaves its whole output in `DIR/<runID>.output` (as
/// `{"output": ...}`), where the store keeps it redacted; one that shows the person a value holding secrets as it
/// goes (an assign state's `show`: `epskc-share`'s key while it is valid) leaves each such value in
/// `DIR/<runID>.shown` (as `{"shown": [...]}`, in order) the moment it is shown.
public struct SecretInbox: Sendable {
    /// What a file of the inbox holds.
    public enum Kind: String, Sendable, CaseIterable {
        /// Secret inputs, by input name.
        case inputs = "secrets"
        /// Answers to secret questions, by question or ask state name.
        case answers
        /// The output of a run that ended holding secrets (an ePSKc), whole: the store keeps it redacted.
        case output
        /// The values holding secrets a run showed the person as it went (an ePSKc while it is valid), in order.
        case shown

        var what: String {
            switch self {
            case .inputs: "secret inputs"
            case .answers: "answers to secret questions"
            case .output: "output"
            case .shown: "values shown"
            }
        }
    }

    /// The directory the inbox's files are in, without a trailing `/` (the root stays `/`).
    public let directory: String

    /// An inbox in `directory`, a trailing `/` dropped; nothing is created or checked.
    public init(directory: String) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    /// Why the directory is not its owner's alone, as a warning to act on: nil when it is (mode 0700 or narrower) or
    /// when it does not exist. Its files are the owner's alone (mode 0600), but whoever may list it sees which runs
    /// have secrets, and whoever may write it can remove them or put files of their own there.
    public var exposure: String? {
        guard let open = OpenPermissions.of(directory, directory: true) else { return nil }
        return "the secrets directory \(directory) is open to others than its owner (mode \(open.octal)): they can see "
            + "which runs have secrets" + (open.othersMayWrite ? ", and remove or plant files in it" : "") + "; chmod 700 \(directory)"
    }

    /// The file of a run's `kind`; nil for a run ID that cannot name a file (``RunIDRule``), which has none.
    func path(of runID: String, _ kind: Kind = .inputs) -> String? {
        RunIDRule.problem(with: runID) == nil ? directory + "/" + runID + "." + kind.rawValue : nil
    }

    /// ``path(of:_:)``, or the error for a run ID that cannot name a file.
    private func requiredPath(of runID: String, _ kind: Kind) throws(StoreError) -> String {
        guard let path = path(of: runID, kind) else {
            throw StoreError(.secretsUnavailable, "run \(runID.debugDescription) has no \(kind.what) file: \(RunIDRule.problem(with: runID) ?? "")")
        }
        return path
    }

    /// Writes a run's secret inputs, or its answers to secret questions (readable by the owner only), replacing
    /// what the run had. The file is written beside its place and renamed into it, so a worker reading it meanwhile
    /// finds the old file or the new, never a part.
    public func put(_ secrets: JSONObject, runID: String, kind: Kind = .inputs) throws(StoreError) {
        let bytes = Self.bytes(of: secrets)
        let target = try requiredPath(of: runID, kind)
        try locked { () throws(StoreError) in try writeFile(bytes, to: target) }
    }

    /// Writes the secrets of a run being submitted, unless the run has that file already: how `matterflow submit`
    /// keeps from overwriting the secrets of another run given the same `--run-id`.
    /// - Returns: True when the file was written now; false when it held these very values already (a submit
    ///   tried again): its modification time is then made now.
    /// - Throws: ``StoreError`` `secretsUnavailable` when the file holds other values.
    public func create(_ secrets: JSONObject, runID: String, kind: Kind = .inputs) throws(StoreError) -> Bool {
        let bytes = Self.bytes(of: secrets)
        let target = try requiredPath(of: runID, kind)
        return try locked { () throws(StoreError) -> Bool in
            guard access(target, F_OK) == 0 else {
                try writeFile(bytes, to: target)
                return true
            }
            guard case .success(let existing) = FileBytes.contents(of: target, limit: 1 << 20), existing == bytes else {
                throw StoreError(
                    .secretsUnavailable,
                    "\(target) holds other \(kind.what) of a run \(runID) submitted before; choose another --run-id (or leave it out for a new one)")
            }
            // Written now as far as a sweep can tell: the run may not be in the store yet (its first submit failed),
            // and a file untouched for long is taken for a pruned run's (``orphanAgeSeconds``).
            _ = utimensat(AT_FDCWD, target, nil, 0)
            return false
        }
    }

    /// Adds secret values to those already waiting for a run (a name given again replaces its value): how
    /// `matterflow answer` adds an answer to a secret question. Two answers given at once both stay.
    public func add(_ secrets: JSONObject, runID: String, kind: Kind) throws(StoreError) {
        let target = try requiredPath(of: runID, kind)
        try locked { () throws(StoreError) in
            var merged = try takeIfPresent(runID: runID, kind: kind) ?? [:]
            for member in secrets.members { merged[member.key] = member.value }
            try writeFile(Self.bytes(of: merged), to: target)
        }
    }

    private static func bytes(of secrets: JSONObject) -> [UInt8] { Array(JSONWriter.compact(.object(secrets)).utf8) }

    /// Runs `body` holding an exclusive lock on the directory: the writers of one directory (submit, answer) take
    /// turns, so each file's temporary twin has one writer at a time.
    func locked<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        let lock = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard lock >= 0 else {
            throw StoreError(.secretsUnavailable, "cannot open \(directory): \(String(cString: strerror(errno))); --secrets must name a writable directory")
        }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw StoreError(.secretsUnavailable, "cannot lock \(directory): \(String(cString: strerror(errno)))") }
        }
        return try body()
    }

    /// Where a file is written before it is renamed into place. A writer that died there left it; the next write
    /// of the file, or the run's end, removes it.
    static func temporary(of target: String) -> String { target + ".partial" }

    /// Writes `bytes` to `target` through its temporary twin, flushed, then renamed. Called holding the lock.
    private func writeFile(_ bytes: [UInt8], to target: String) throws(StoreError) {
        let temporary = Self.temporary(of: target)
        // A new file, never one left there (by a writer that died, or planted: a link would be followed, a file
        // would keep its mode), so the secrets are readable by the owner only.
        _ = unlink(temporary)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.secretsUnavailable, "cannot write \(target): \(String(cString: strerror(errno))); --secrets must name a writable directory")
        }
        var written = 0
        var failure: String?
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                failure = "cannot write \(target): \(String(cString: strerror(errno)))"
                break
            }
            written += count
        }
        if failure == nil && fsync(descriptor) != 0 { failure = "cannot flush \(target)" }
        close(descriptor)
        if failure == nil && rename(temporary, target) != 0 { failure = "cannot write \(target): \(String(cString: strerror(errno)))" }
        if let failure {
            _ = unlink(temporary)
            throw StoreError(.secretsUnavailable, failure)
        }
    }

    /// Reads a run's secret inputs, or its answers to secret questions, when its file is there.
    /// - Returns: nil when the file is not there.
    /// - Throws: ``StoreError`` `secretsUnavailable` naming the file when it cannot be read or is not a JSON object.
    public func takeIfPresent(runID: String, kind: Kind = .inputs) throws(StoreError) -> JSONObject? {
        guard access(try requiredPath(of: runID, kind), F_OK) == 0 || errno != ENOENT else { return nil }
        return try take(runID: runID, kind: kind)
    }

    /// Reads a run's secret inputs, or its answers to secret questions.
    /// - Throws: ``StoreError`` `secretsUnavailable` naming the file when it is missing or not a JSON object.
    public func take(runID: String, kind: Kind = .inputs) throws(StoreError) -> JSONObject {
        let source = try requiredPath(of: runID, kind)
        let bytes: [UInt8]
        switch FileBytes.contents(of: source, limit: 1 << 20) {
        case .success(let read): bytes = read
        case .failure(.cannotOpen(let reason)):
            throw StoreError(
                .secretsUnavailable,
                "the \(kind.what) of run \(runID) are not in \(source) (\(String(cString: strerror(reason)))); the store never keeps "
                    + "secrets: give the worker the --secrets directory that `matterflow submit --secrets` wrote")
        case .failure(.cannotRead), .failure(.notAFile):
            throw StoreError(.secretsUnavailable, "cannot read \(source) as a file")
        case .failure(.tooLarge):
            throw StoreError(.secretsUnavailable, "\(source) is larger than 1 MiB; it is not a secrets file")
        }
        guard let object = try? JSONDocument.parse(String(decoding: bytes, as: UTF8.self), file: source).value.objectValue else {
            throw StoreError(.secretsUnavailable, "\(source) is not a JSON object of \(kind.what)")
        }
        return object
    }

    /// Writes the whole output of a run that holds secrets (readable by the owner only), as `{"output": ...}`.
    public func keep(output: JSONValue, runID: String) throws(StoreError) {
        let bytes = Self.bytes(of: ["output": output])
        let target = try requiredPath(of: runID, .output)
        try locked { () throws(StoreError) in try writeFile(bytes, to: target) }
    }

    /// Adds a value a run showed the person, holding secrets, to the run's `.shown` file (readable by the owner
    /// only, `{"shown": [...]}`, replaced whole), at once: the person needs it while the run goes on.
    public func keep(shown value: JSONValue, runID: String) throws(StoreError) {
        let target = try requiredPath(of: runID, .shown)
        try locked { () throws(StoreError) in
            var shown = (try takeIfPresent(runID: runID, kind: .shown))?["shown"]?.arrayValue ?? []
            shown.append(value)
            try writeFile(Self.bytes(of: ["shown": .array(shown)]), to: target)
        }
    }

    /// The runs whose secret inputs or answers wait in the directory, each once, sorted. Other names are left out:
    /// a `.partial` twin, `digest.key`, a run's `.output`.
    /// - Throws: ``StoreError`` `secretsUnavailable` when the directory cannot be listed.
    public func runsWithWaitingSecrets() throws(StoreError) -> [String] {
        try runFiles().filter { !$0.value.kinds.isDisjoint(with: [.inputs, .answers]) }.keys.sorted()
    }

    /// Removes a run's secret inputs and answers (once the run has a final status), with what a writer that died
    /// left of them; `output` (and what the run showed) too when the run is removed for good (`store prune`).
    public func remove(runID: String, output: Bool = false) {
        discard(runID: runID, kinds: output ? [.inputs, .answers, .output, .shown] : [.inputs, .answers])
    }

    /// Removes some of a run's files (those a refused submit wrote), with what a writer that died left of them.
    public func discard(runID: String, kinds: [Kind]) {
        let targets = kinds.compactMap { path(of: runID, $0) }
        // The twins under the lock, so that a writer's twin is not taken from under it; without, when the lock cannot
        // be had.
        let removeTwins = { for target in targets { _ = unlink(Self.temporary(of: target)) } }
        do throws(StoreError) {
            try locked { () throws(StoreError) in removeTwins() }
        } catch {
            removeTwins()
        }
        for target in targets { _ = unlink(target) }
    }
}
