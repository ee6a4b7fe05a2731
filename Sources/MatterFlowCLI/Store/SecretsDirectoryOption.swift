import Foundation

/// `--secrets DIR` on the commands that read or write runs' secrets files: the directory must exist. A command that
/// removes files (`store prune`, `cancel`) would leave them behind without a word; one that writes them (`submit`,
/// `answer`) would fail on a file it cannot create, or on the digest key, with a message about something else.
enum SecretsDirectoryOption {
    /// What a command does with the directory.
    enum Use {
        /// Removes runs' files from it.
        case removes
        /// Writes runs' secret inputs or answers into it, for the workers.
        case writes
    }

    /// Whether `--secrets`, when given, names a directory; when not, says so on `err` with what to do (the command
    /// exits 2 before it changes anything).
    static func isValid(_ arguments: ParsedArguments, use: Use, err: any TextSink) -> Bool {
        guard let directory = arguments.value("secrets") else { return true }
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory)
        guard !exists || !isDirectory.boolValue else { return true }
        let problem = exists ? "is no directory" : "does not exist"
        switch use {
        case .removes:
            err.line(
                "error[secretsUnavailable]: --secrets \(directory) \(problem); give the directory given to "
                    + "`matterflow submit --secrets` (its runs' secrets files are removed from there)")
        case .writes:
            err.line(
                "error[secretsUnavailable]: --secrets \(directory) \(problem); give the directory the workers read with their own "
                    + "--secrets, or make it first, readable by their user alone (`mkdir -m 700 \(directory)`)")
        }
        return false
    }
}
