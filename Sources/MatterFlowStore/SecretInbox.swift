import MatterFlowJSON

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
/// shares: a tmpfs mount, a secrets volume), and removes the files once the run has a final status.
public struct SecretInbox: Sendable {
    /// What a file of the inbox holds.
    public enum Kind: String, Sendable {
        /// Secret inputs, by input name.
        case inputs = "secrets"
        /// Answers to secret questions, by question or ask state name.
        case answers

        var what: String {
            switch self {
            case .inputs: "secret inputs"
            case .answers: "answers to secret questions"
            }
        }
    }

    public let directory: String

    public init(directory: String) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
    }

    func path(of runID: String, _ kind: Kind = .inputs) -> String { directory + "/" + runID + "." + kind.rawValue }

    /// Writes a run's secret inputs, or its answers to secret questions (readable by the owner only). The file is
    /// written beside its place and renamed into it, so a worker reading it meanwhile finds the old file or the new,
    /// never a part.
    public func put(_ secrets: JSONObject, runID: String, kind: Kind = .inputs) throws(StoreError) {
        let target = path(of: runID, kind)
        let temporary = target + ".\(getpid()).partial"
        let bytes = Array(JSONWriter.compact(.object(secrets)).utf8)
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
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

    /// Adds secret values to those already waiting for a run (a name given again replaces its value): how
    /// `matterflow answer` adds an answer to a secret question. Additions to one directory are made one at a time
    /// (an exclusive lock on the directory), so two answers given at once both stay.
    public func add(_ secrets: JSONObject, runID: String, kind: Kind) throws(StoreError) {
        let lock = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard lock >= 0 else {
            throw StoreError(.secretsUnavailable, "cannot open \(directory): \(String(cString: strerror(errno))); --secrets must name a writable directory")
        }
        defer { close(lock) }
        while flock(lock, LOCK_EX) != 0 {
            guard errno == EINTR else { throw StoreError(.secretsUnavailable, "cannot lock \(directory): \(String(cString: strerror(errno)))") }
        }
        var merged: JSONObject = [:]
        if access(path(of: runID, kind), F_OK) == 0 { merged = try take(runID: runID, kind: kind) }
        for member in secrets.members { merged[member.key] = member.value }
        try put(merged, runID: runID, kind: kind)
    }

    /// Reads a run's secret inputs, or its answers to secret questions.
    /// - Throws: ``StoreError`` `secretsUnavailable` naming the file when it is missing or not a JSON object.
    public func take(runID: String, kind: Kind = .inputs) throws(StoreError) -> JSONObject {
        let source = path(of: runID, kind)
        let bytes: [UInt8]
        switch FileBytes.contents(of: source, limit: 1 << 20) {
        case .success(let read): bytes = read
        case .failure(.cannotOpen(let reason)):
            throw StoreError(
                .secretsUnavailable,
                "the \(kind.what) of run \(runID) are not in \(source) (\(String(cString: strerror(reason)))); the store never keeps "
                    + "secrets: give the worker the --secrets directory that `matterflow submit --secrets` wrote")
        case .failure(.cannotRead):
            throw StoreError(.secretsUnavailable, "cannot read \(source)")
        case .failure(.tooLarge):
            throw StoreError(.secretsUnavailable, "\(source) is larger than 1 MiB; it is not a secrets file")
        }
        guard let object = try? JSONDocument.parse(String(decoding: bytes, as: UTF8.self), file: source).value.objectValue else {
            throw StoreError(.secretsUnavailable, "\(source) is not a JSON object of \(kind.what)")
        }
        return object
    }

    /// Removes a run's files (once the run has a final status).
    public func remove(runID: String) {
        _ = unlink(path(of: runID, .inputs))
        _ = unlink(path(of: runID, .answers))
    }
}
