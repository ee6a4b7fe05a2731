import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator

/// Reads fixture files: finds them in directories, parses and decodes them, loads the workflows and homes they
/// name, and reports every problem with its line and column.
public struct FixtureLoader: Sendable {
    /// The suffix of fixture files found in directories (a file named explicitly may have any name).
    public static let fileSuffix = ".fixture.json"

    /// The operations workflows may invoke.
    public var catalog: OperationCatalog
    /// Workflows already loaded by this loader (fixtures share a few workflows).
    private let workflows = FileOutcomeCache<WorkflowLoader.Outcome>()
    /// Home files already decoded by this loader (fixtures share a few homes).
    private let homes = FileOutcomeCache<Result<(home: HomeDescription, warnings: [Diagnostic]), DiagnosticsError>>()

    /// A loader for workflows written against `catalog`.
    public init(catalog: OperationCatalog = .standard) {
        self.catalog = catalog
    }

    /// The result of loading one file: the fixture when it has no errors, and every finding.
    public struct Outcome: Sendable {
        /// The file that was read.
        public var file: String
        /// The fixture, when the file has no errors (warnings allowed).
        public var fixture: Fixture?
        /// Findings about the fixture, then about the files it names (its workflow, its home file).
        public var diagnostics: [Diagnostic]
    }

    /// Loads one fixture file.
    public func load(path: String) -> Outcome {
        do {
            let (document, numberProblems) = try JSONDocument.loadKeepingNumberProblems(path: path)
            return decode(document, numberProblems: numberProblems)
        } catch {
            return Outcome(file: path, fixture: nil, diagnostics: error.diagnostics)
        }
    }

    /// Loads a fixture from JSON text; relative paths in it resolve from the directory of `file`.
    public func load(text: String, file: String) -> Outcome {
        do {
            let (document, numberProblems) = try JSONDocument.parseKeepingNumberProblems(text, file: file)
            return decode(document, numberProblems: numberProblems)
        } catch {
            return Outcome(file: file, fixture: nil, diagnostics: error.diagnostics)
        }
    }

    /// Decodes a parsed fixture. Its numbers no value can hold (`numberProblems`) are reported with its other
    /// findings, and make it unusable.
    private func decode(_ document: JSONDocument, numberProblems: [Diagnostic]) -> Outcome {
        let decoder = FixtureDecoder(document: document, catalog: catalog, workflows: workflows, homes: homes)
        let fixture = decoder.decode()
        return Outcome(
            file: document.file, fixture: numberProblems.isEmpty ? fixture : nil,
            diagnostics: decoder.diagnostics(numberProblems: numberProblems))
    }

    /// The fixture files named by paths: a file as it is, a directory searched recursively for files ending in
    /// ``fileSuffix``, in path order. A path that does not exist is reported (`fileNotFound`).
    public func discover(_ paths: [String]) -> (files: [String], diagnostics: [Diagnostic]) {
        var files: [String] = []
        var diagnostics: [Diagnostic] = []
        let manager = FileManager.default
        for path in paths {
            var isDirectory: ObjCBool = false
            guard manager.fileExists(atPath: path, isDirectory: &isDirectory) else {
                diagnostics.append(
                    Diagnostic(
                        severity: .error, code: DiagnosticCode.fileNotFound,
                        message:
                            "no such file or directory; name fixture files or directories holding *\(Self.fileSuffix) files",
                        file: path))
                continue
            }
            guard isDirectory.boolValue else {
                files.append(path)
                continue
            }
            let base = path.hasSuffix("/") ? String(path.dropLast()) : path
            // Regular files only: a named pipe or a device with a fixture's name would be read until it ends, which
            // it may never do (one named on the command line is read as asked).
            let found = (manager.enumerator(atPath: path)?.allObjects as? [String] ?? [])
                .filter { $0.hasSuffix(Self.fileSuffix) }
                .sorted()
                .map { base + "/" + $0 }
                .filter { file in
                    let target = URL(fileURLWithPath: file).resolvingSymlinksInPath().path
                    return (try? manager.attributesOfItem(atPath: target)[.type] as? FileAttributeType) == .typeRegular
                }
            if found.isEmpty {
                diagnostics.append(
                    Diagnostic(
                        severity: .error, code: DiagnosticCode.fileNotFound,
                        message: "no *\(Self.fileSuffix) files in this directory", file: path))
            }
            files += found
        }
        var seen = Set<String>()
        return (files.filter { seen.insert(URL(fileURLWithPath: $0).standardizedFileURL.path).inserted }, diagnostics)
    }
}
