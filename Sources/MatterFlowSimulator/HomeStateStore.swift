import MatterFlow
import MatterFlowJSON

/// Persisted simulated-hub state in a directory (the CLI's `--state DIR`): `DIR/home.json`, a home description in
/// the documented format.
///
/// Opening a store loads `home.json` when it exists, or starts from a given home. A ``SimulatedHub`` given the
/// store saves the structure after every call that changes it, atomically (temporary file in the same directory,
/// flushed, renamed over `home.json`, directory flushed), so consecutive processes see each other's effects and a
/// process killed at any moment leaves the last state it reached. A session left active in the file blocks the next
/// `prepareCommissioning` with `sessionBusy` until it is cancelled.
///
/// Consecutive processes are supported; two processes driving the same directory at the same time are not (the
/// last to save wins).
public struct HomeStateStore: Sendable {
    /// The file name inside the state directory.
    public static let fileName = "home.json"

    /// The state directory.
    public let directory: String
    /// The home as it was when the store was opened: the saved one, or the starting one.
    public let home: HomeDescription
    /// Whether ``home`` came from a saved file (false: the directory held no state yet).
    public let restored: Bool

    /// The persisted structure (the one a hub saves through this store).
    public var structureID: StructureID { home.structure.id }

    /// The path of the state file.
    public var path: String { Self.path(in: directory) }

    /// Opens a state directory. Nothing is written until the first change.
    /// - Parameters:
    ///   - directory: The state directory; created on the first save when missing.
    ///   - initial: The home to start from when the directory holds no saved state.
    /// - Throws: an `unusableStateDirectory` diagnostic when `directory` is not a directory or cannot be written
    ///   in (or, when missing, cannot be created); the diagnostics of a saved file that cannot be read or decoded
    ///   (with its path, line and column).
    public init(directory: String, startingFrom initial: HomeDescription) throws(DiagnosticsError) {
        try Self.checkUsable(directory: directory)
        // A home.json that is a link is saved where it leads: that place must take a file too.
        let file = Self.path(in: directory)
        if AtomicFile.linkTarget(of: file) != nil, let problem = AtomicFile.writeProblem(file) {
            throw DiagnosticsError([
                Diagnostic(
                    severity: .error, code: Self.unusableDirectoryCode,
                    message: "\(Self.fileName) is a symbolic link where nothing can be saved (\(problem)); name another directory or mend the link",
                    file: file)
            ])
        }
        self.directory = directory
        if let saved = try Self.loadSaved(directory: directory) {
            home = saved
            restored = true
        } else {
            home = initial
            restored = false
        }
    }

    /// Reads the saved home of a state directory, or nil when it holds none.
    public static func loadSaved(directory: String) throws(DiagnosticsError) -> HomeDescription? {
        let file = path(in: directory)
        do {
            return try HomeDescription.load(path: file)
        } catch {
            if error.diagnostics.count == 1, error.diagnostics[0].code == DiagnosticCode.fileNotFound {
                // A link whose file is gone (a volume not mounted) is not a directory without state.
                if let target = AtomicFile.linkTarget(of: file) {
                    throw DiagnosticsError([
                        Diagnostic(
                            severity: .error, code: unusableDirectoryCode,
                            message: "\(fileName) is a symbolic link to \(target), which is not there; restore it (mount its volume), or remove the link to start from a new home",
                            file: file)
                    ])
                }
                return nil
            }
            throw error
        }
    }

    /// Writes a home atomically to the state file, creating the directory when missing; returns the text written.
    /// - Throws: ``FlowError`` `hubFailure` naming the file and the system's reason.
    @discardableResult
    public func save(_ home: HomeDescription) throws(FlowError) -> String {
        let text = home.jsonText
        do {
            try AtomicFile.createDirectory(directory)
            try AtomicFile.write(text, to: path)
            return text
        } catch {
            throw FlowError(
                .hubFailure,
                "the simulated hub could not save its state to \(path) (\(error)); check the --state directory")
        }
    }

    private static func path(in directory: String) -> String {
        directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName
    }
}
