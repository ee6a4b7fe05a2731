import Foundation
import MatterFlowJSON

/// Loads workflow files: parses, decodes, loads the sub-workflows they name (relative to the naming file), and
/// validates all of them. Every finding is returned, across all files.
public struct WorkflowLoader: Sendable {
    /// The operations actions may invoke.
    public var catalog: OperationCatalog

    /// Whether the session proofs enter each sub-workflow with only the session facts it can tell apart
    /// (``SessionExplorer/entrySession(_:into:)``); tests turn it off to compare the findings with the full facts.
    var narrowsSessionEntries = true

    /// Whether checks that a quick look proves can report nothing are left out
    /// (``VerificationContext/skipsChecksThatCannotFind``); tests turn it off to compare the findings.
    var skipsChecksThatCannotFind = true

    /// A loader that checks operations against `catalog`.
    public init(catalog: OperationCatalog = .standard) {
        self.catalog = catalog
    }

    /// How many levels of sub-workflows a workflow may nest below itself: a workflow state in a file at this
    /// depth (the top-level file is at depth 0) is an error (`nestingTooDeep`), as is one naming a file whose own
    /// sub-workflows would go deeper. Every analysis and the runner may walk a tree of at most this height.
    public static let maximumNestingDepth = 64

    /// The result of loading: the workflow when it has no errors, and every finding (errors and warnings).
    public struct Outcome: Sendable {
        /// The workflow; nil when a finding is an error.
        public var workflow: Workflow?
        /// Every finding, errors and warnings, by file and position.
        public var diagnostics: [Diagnostic]
        /// The workflow as written, also when validation or verification found errors in it or in its
        /// sub-workflows, for drawing it (`matterflow graph`): every file that could be parsed and decoded into
        /// states is in it, each sub-workflow attached to the states that run it (a file that is missing, cannot be
        /// decoded, or would nest into a cycle or too deep is not). Nil when the top-level file could not be read,
        /// parsed or decoded, or has a state too broken to decode (its transitions are unknown). It is never run:
        /// ``workflow`` is the one that passed validation.
        public var decoded: Workflow?

        /// An outcome with these members; `decoded` is `workflow` unless given.
        init(workflow: Workflow?, diagnostics: [Diagnostic], decoded: Workflow? = nil) {
            self.workflow = workflow
            self.diagnostics = diagnostics
            self.decoded = decoded ?? workflow
        }
    }

    /// Loads and validates a workflow file and everything it includes.
    public func load(path: String) -> Outcome {
        loadRecordingFiles(path: path).outcome
    }

    /// Loads a workflow file, and says which files the load read and what they held: nil when some file could
    /// not be read (or did not exist), since then the outcome depends on more than the files' contents.
    func loadRecordingFiles(path: String) -> (outcome: Outcome, files: [WorkflowLoadCache.FileRead]?) {
        var session = Session(catalog: catalog, narrowsSessionEntries: narrowsSessionEntries, skipsChecks: skipsChecksThatCannotFind)
        let key = FilePaths.standardized(path)
        let workflow = session.load(path: path, key: key)
        let outcome = Outcome(workflow: workflow, diagnostics: session.allDiagnostics, decoded: session.asWritten[key])
        return (outcome, session.readEveryFile ? session.filesRead : nil)
    }

    /// Loads and validates a workflow from text; sub-workflow paths are resolved from `baseDirectory`.
    public func load(text: String, file: String, baseDirectory: String) -> Outcome {
        load(text: text, file: file, baseDirectory: baseDirectory, files: [:])
    }

    /// As ``load(text:file:baseDirectory:)``, with sub-workflows given as text (`files`, by standardized path)
    /// instead of read from disk, for workflows built into the engine.
    func load(text: String, file: String, baseDirectory: String, files: [String: String]) -> Outcome {
        var session = Session(catalog: catalog, narrowsSessionEntries: narrowsSessionEntries, skipsChecks: skipsChecksThatCannotFind)
        session.provided = files
        let workflow: Workflow?
        do {
            let (document, numberProblems) = try JSONDocument.parseKeepingNumberProblems(text, file: file)
            workflow = session.decode(
                document: document, directory: baseDirectory, stack: [file], text: text, numberProblems: numberProblems)
        } catch {
            session.record(file: file, error.diagnostics)
            workflow = nil
        }
        return Outcome(workflow: workflow, diagnostics: session.allDiagnostics, decoded: session.asWritten[file])
    }

    /// Loads a workflow that must be valid.
    /// - Throws: ``DiagnosticsError`` with every error (and warning) when it is not.
    public func loadValid(path: String) throws(DiagnosticsError) -> Workflow {
        let outcome = load(path: path)
        guard let workflow = outcome.workflow else { throw DiagnosticsError(outcome.diagnostics) }
        return workflow
    }

    private struct Session {
        let catalog: OperationCatalog
        /// The analyses of every file of this load, so that a parent's verification reuses its children's.
        let verification: VerificationContext
        var loaded: [String: Workflow?] = [:]
        /// For each file decoded into states (with or without errors), the workflow as written: ``Outcome/decoded``.
        var asWritten: [String: Workflow] = [:]
        /// For each file loaded, how many levels of sub-workflows nest below it (0 for a file without any).
        var heights: [String: Int] = [:]
        var diagnosticsByFile: [(String, [Diagnostic])] = []
        var stack: [String] = []
        /// Every file read, with its text.
        var filesRead: [WorkflowLoadCache.FileRead] = []
        /// No file named was missing or unreadable.
        var readEveryFile = true
        /// Files given as text, by standardized path, read instead of the disk.
        var provided: [String: String] = [:]

        init(catalog: OperationCatalog, narrowsSessionEntries: Bool, skipsChecks: Bool) {
            self.catalog = catalog
            verification = VerificationContext(catalog: catalog)
            verification.sessionGraph.narrowsEntries = narrowsSessionEntries
            verification.skipsChecksThatCannotFind = skipsChecks
        }

        var allDiagnostics: [Diagnostic] { diagnosticsByFile.flatMap { $0.1.sortedByLocation() } }

        mutating func record(file: String, _ diagnostics: [Diagnostic]) {
            diagnosticsByFile.append((file, diagnostics))
        }

        /// Loads a file once per session; `key` is its standardized path, when the caller already has it.
        mutating func load(path: String, key knownKey: String? = nil) -> Workflow? {
            load(path: path, key: knownKey, reportingMissing: true) ?? nil
        }

        /// Loads a file once per session; nil (neither reported nor remembered) when `reportingMissing` is false
        /// and the file does not exist, so that a sub-workflow's parent reports it instead. Reading is how a
        /// missing file is found: asking first would cost every file that exists a look-up.
        mutating func load(path: String, key knownKey: String?, reportingMissing: Bool) -> Workflow?? {
            let key = knownKey ?? FilePaths.standardized(path)
            if let cached = loaded[key] { return cached }
            var read = false
            do {
                let text: String
                var stamp: FileStamp?
                do {
                    if let given = provided[key] { text = given } else { (text, stamp) = try JSONDocument.readStampedText(path: path) }
                } catch where !reportingMissing && error.diagnostics.first?.code == DiagnosticCode.fileNotFound {
                    readEveryFile = false
                    return nil
                }
                read = true
                filesRead.append(WorkflowLoadCache.FileRead(path: path, text: text, stamp: stamp))
                let (document, numberProblems) = try JSONDocument.parseKeepingNumberProblems(text, file: path)
                let directory = FilePaths.directory(of: path)
                let workflow = decode(
                    document: document, directory: directory, stack: stack + [key], text: text, numberProblems: numberProblems)
                loaded[key] = .some(workflow)
                return workflow
            } catch {
                if !read { readEveryFile = false }
                record(file: path, error.diagnostics)
                loaded[key] = .some(nil)
                // Read (or unreadable) and rejected: not the "missing" of the outer optional.
                return .some(nil)
            }
        }

        /// Decodes and validates a parsed file. `numberProblems` are its numbers no value can hold: such a file is
        /// reported with them and its decoding findings together (without those about the unusable numbers
        /// themselves, read clamped), and not validated further.
        mutating func decode(
            document: JSONDocument, directory: String, stack: [String], text: String, numberProblems: [Diagnostic]
        ) -> Workflow? {
            let decoder = WorkflowDecoder(document: document)
            let collector = decoder.collector
            let decoded = decoder.decode()
            if !numberProblems.isEmpty {
                record(file: document.file, collector.diagnostics.replacingFindings(at: numberProblems))
                return nil
            }
            guard var definition = decoded else {
                record(file: document.file, collector.diagnostics)
                return nil
            }
            let savedStack = self.stack
            self.stack = stack
            defer { self.stack = savedStack }
            // Children with errors, as written, for the picture of this file (``Outcome/decoded``).
            var decodedChildren: [String: Workflow] = [:]
            // The depth of this file's children: the top-level file is at depth 0.
            let childDepth = stack.count
            var height = 0
            for name in definition.stateOrder {
                guard let state = definition.states[name], case .workflow(let subworkflow) = state.kind else { continue }
                let childPath = subworkflow.path.hasPrefix("/")
                    ? subworkflow.path : FilePaths.appending(subworkflow.path, to: directory)
                let childKey = FilePaths.standardized(childPath)
                let pointer = state.pointer + "/path"
                if subworkflow.path.isEmpty {
                    collector.error(
                        DiagnosticCode.invalidValue, at: pointer, "\"path\" is empty; name the sub-workflow's JSON file, relative to this file")
                    continue
                }
                // Only a path not ending in .json is looked at first: the rest are files nearly always.
                if !subworkflow.path.hasSuffix(".json"), FilePaths.isDirectory(childPath) {
                    collector.error(
                        WorkflowDiagnosticCode.undefinedWorkflowFile, at: pointer,
                        "\"\(subworkflow.path)\" is a directory (\(childPath)), not a workflow file; name the JSON file in it")
                    continue
                }
                if stack.contains(childKey) {
                    collector.error(
                        WorkflowDiagnosticCode.workflowCycle, at: pointer,
                        "\"\(subworkflow.path)\" includes this workflow again (directly or through others); break the cycle")
                    continue
                }
                if childDepth > WorkflowLoader.maximumNestingDepth {
                    collector.error(
                        WorkflowDiagnosticCode.nestingTooDeep, at: pointer,
                        "\"\(subworkflow.path)\" would be sub-workflow level \(childDepth), deeper than the \(WorkflowLoader.maximumNestingDepth) levels a workflow may nest; run this part inline or split the flow into runs of its own")
                    continue
                }
                guard let loadedChild = load(path: childPath, key: childKey, reportingMissing: false) else {
                    collector.error(
                        WorkflowDiagnosticCode.undefinedWorkflowFile, at: pointer,
                        "workflow file \"\(subworkflow.path)\" does not exist (resolved to \(childPath)); paths are relative to this file")
                    continue
                }
                if let child = loadedChild {
                    // A file loaded earlier, at a shallower place, may nest too deep from here.
                    let childHeight = heights[childKey] ?? 0
                    if childDepth + childHeight > WorkflowLoader.maximumNestingDepth {
                        collector.error(
                            WorkflowDiagnosticCode.nestingTooDeep, at: pointer,
                            "\"\(subworkflow.path)\" nests \(childHeight) more levels of sub-workflows below level \(childDepth), deeper than the \(WorkflowLoader.maximumNestingDepth) levels a workflow may nest; run part of it inline or split the flow into runs of its own")
                        continue
                    }
                    height = max(height, childHeight + 1)
                    definition.subworkflows[subworkflow.path] = child
                } else {
                    decodedChildren[subworkflow.path] = asWritten[childKey]
                    collector.error(
                        WorkflowDiagnosticCode.invalidSubworkflow, at: pointer,
                        "workflow file \"\(subworkflow.path)\" has errors; run `matterflow validate \(ShellWord.quoted(childPath))`")
                }
            }
            if let key = stack.last { heights[key] = height }
            // Hashed when a journal first asks: validating needs no hash.
            let children = definition.subworkflows.keys.sorted().map { ($0, definition.subworkflows[$0]?.contentHashSource) }
            definition.contentHashSource = ContentHashSource(text: text, children: children)
            // Compiled once: the validator, the verifier and every later reader share this model.
            let workflow = Workflow(definition)
            WorkflowValidator(
                workflow: workflow, catalog: catalog, collector: collector, verification: verification,
                isTopLevel: stack.count == 1
            ).validate()
            record(file: document.file, collector.diagnostics)
            if let key = stack.last, !workflow.model.hasPlaceholder {
                // Compiled again only when a child with errors is to be drawn inside it.
                asWritten[key] = decodedChildren.isEmpty ? workflow : workflow.with { definition in
                    definition.subworkflows.merge(decodedChildren) { own, _ in own }
                }
            }
            return collector.hasErrors ? nil : workflow
        }
    }
}

/// The path arithmetic of loading sub-workflows, as plain string operations where the answer is plain, with
/// Foundation's `URL` for everything else.
///
/// `URL(fileURLWithPath:)` asks the file system whether each path is a directory, and its arithmetic allocates a
/// URL per step: for every file of a load, that was more than parsing it. The answers here are exactly
/// Foundation's (diagnostics show these paths): the plain case is an absolute path without empty, `.` or `..`
/// segments and without a trailing slash, whose standard form is itself and whose directory is what precedes
/// its last slash; anything else (relative paths, `~`, dots, doubled slashes) is left to `URL`.
enum FilePaths {
    /// Whether something at `path` is a directory (following links).
    static func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The path as `URL(fileURLWithPath:).standardizedFileURL.path` gives it.
    static func standardized(_ path: String) -> String {
        isPlain(path) ? path : URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// The directory of a file, as `URL(fileURLWithPath:).deletingLastPathComponent().path` gives it.
    static func directory(of path: String) -> String {
        guard isPlain(path), let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else {
            return URL(fileURLWithPath: path).deletingLastPathComponent().path
        }
        return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
    }

    /// A relative path resolved in a directory, as `URL(fileURLWithPath:).appendingPathComponent(_:).path` gives
    /// it.
    static func appending(_ relative: String, to directory: String) -> String {
        guard isPlain(directory), isPlainRelative(relative) else {
            return URL(fileURLWithPath: directory).appendingPathComponent(relative).path
        }
        return directory + "/" + relative
    }

    /// Whether a path is absolute with only named segments (none empty, `.` or `..`) and no trailing slash.
    static func isPlain(_ path: String) -> Bool {
        let bytes = path.utf8
        guard bytes.count > 1, bytes.first == UInt8(ascii: "/") else { return false }
        return hasOnlyNamedSegments(bytes.dropFirst())
    }

    /// Whether a relative path has only named segments (none empty, `.` or `..`) and no trailing slash.
    static func isPlainRelative(_ path: String) -> Bool {
        let bytes = path.utf8
        guard let first = bytes.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "~") else { return false }
        return hasOnlyNamedSegments(bytes[...])
    }

    /// Whether slash-separated segments are all named: not empty and not only dots (`.`, `..`; `...` is a name
    /// too, but rare enough to leave to `URL`).
    private static func hasOnlyNamedSegments(_ bytes: Substring.UTF8View) -> Bool {
        var segmentLength = 0
        var dots = 0
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if segmentLength == 0 || segmentLength == dots { return false }
                segmentLength = 0
                dots = 0
                continue
            }
            segmentLength += 1
            if byte == UInt8(ascii: ".") { dots += 1 }
        }
        return segmentLength > 0 && segmentLength != dots
    }
}
