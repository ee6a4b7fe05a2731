import Foundation

/// `--secrets DIR` on the commands that remove a run's secrets files (`store prune`, `cancel`): the directory must
/// exist, or the files the person meant to remove would stay behind without a word.
enum SecretsDirectoryOption {
    /// Whether `--secrets`, when given, names a directory; when not, says so on `err` (the command exits 2 before it
    /// changes anything).
    static func isValid(_ arguments: ParsedArguments, err: any TextSink) -> Bool {
        guard let directory = arguments.value("secrets") else { return true }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            err.line(
                "error[secretsUnavailable]: --secrets \(directory) is no directory; give the directory given to "
                    + "`matterflow submit --secrets` (its runs' secrets files are removed from there)")
            return false
        }
        return true
    }
}
