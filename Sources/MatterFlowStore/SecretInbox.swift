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

    /// Writes a run's secret inputs, or its answers to secret questions (readable by the owner only).
    public func put(_ secrets: JSONObject, runID: String, kind: Kind = .inputs) throws(StoreError) {
        let target = path(of: runID, kind)
        let bytes = Array(JSONWriter.compact(.object(secrets)).utf8)
        let descriptor = open(target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StoreError(.secretsUnavailable, "cannot write \(target): \(String(cString: strerror(errno))); --secrets must name a writable directory")
        }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw StoreError(.secretsUnavailable, "cannot write \(target): \(String(cString: strerror(errno)))") }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw StoreError(.secretsUnavailable, "cannot flush \(target)") }
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
