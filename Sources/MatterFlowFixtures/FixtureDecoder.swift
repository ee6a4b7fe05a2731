import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator

/// Turns a fixture document into a ``Fixture``, reporting every problem at once: the shared JSON findings, the
/// workflow's and home's own errors, and operations, states, actions and error codes that do not exist.
final class FixtureDecoder {
    let collector: DiagnosticCollector
    /// Findings about other files (the workflow, a home file), reported under their own paths.
    private(set) var otherFiles: [Diagnostic] = []
    let catalog: OperationCatalog
    let workflows: FileOutcomeCache<WorkflowLoader.Outcome>
    /// Home files already decoded by this decoder's loader.
    let homes: FileOutcomeCache<Result<(home: HomeDescription, warnings: [Diagnostic]), DiagnosticsError>>
    /// The directory relative paths in the fixture are resolved from.
    let directory: String
    /// The workflow as the fixture runs it (mocks in place), once `workflow` and `mocks` have been read.
    var workflow: Workflow?
    /// The home's rooms, to check the rooms named in expectations.
    private(set) var home: HomeDescription?
    /// The states the fixture's mocks replace, once read: the states inside them do not run.
    private(set) var mockedStates: [String] = []

    init(
        document: JSONDocument, catalog: OperationCatalog, workflows: FileOutcomeCache<WorkflowLoader.Outcome>,
        homes: FileOutcomeCache<Result<(home: HomeDescription, warnings: [Diagnostic]), DiagnosticsError>>
    ) {
        collector = DiagnosticCollector(document: document)
        self.catalog = catalog
        self.workflows = workflows
        self.homes = homes
        directory = URL(fileURLWithPath: document.file).deletingLastPathComponent().path
    }

    /// Every finding, ordered by file and position (the fixture's own first); the fixture's numbers no value can
    /// hold (`numberProblems`) in place of what was found of the values read for them.
    func diagnostics(numberProblems: [Diagnostic]) -> [Diagnostic] {
        collector.diagnostics.replacingFindings(at: numberProblems).sortedByLocation() + otherFiles
    }

    func decode() -> Fixture? {
        collector.append(contentsOf: collector.document.duplicateKeyDiagnostics())
        guard let root = collector.object(collector.document.value, at: "", what: "a fixture") else { return nil }
        if let misplaced = FileKind.misplaced(root.object, as: .fixture) {
            collector.error(FixtureDiagnosticCode.notAFixture, at: "", misplaced)
            return nil
        }
        let version = root.int("version", required: true)
        if let version, version > Fixture.currentVersion {
            collector.error(
                DiagnosticCode.unsupportedVersion, at: root.pointer("version"),
                "this fixture has version \(version), newer than this MatterFlow reads (\(Fixture.currentVersion)); upgrade MatterFlow or write a version \(Fixture.currentVersion) fixture"
            )
            return nil
        }
        if let version, version < 1 {
            collector.error(
                DiagnosticCode.invalidValue, at: root.pointer("version"),
                "\"version\" must be \(Fixture.currentVersion), found \(version)")
        }
        let name = root.nonEmptyString("fixture", required: true)
        let description = root.string("description")
        let workflowPath = root.nonEmptyString("workflow", required: true)
        let workflow = workflowPath.flatMap { loadWorkflow($0, at: root.pointer("workflow")) }
        // Mocks name states of the workflow as written; everything after them, states of the workflow as it runs.
        self.workflow = workflow
        var runnable = workflow
        let mocks = decodeMocks(root.array("mocks") ?? [], at: root.pointer("mocks"), into: &runnable)
        mockedStates = mocks.map(\.state)
        self.workflow = runnable
        // A fixture that expects its inputs refused keeps the workflow's findings about them, as what it checks.
        let refusalExpected = if case .object(let expect)? = root.object["expect"], expect["inputRefused"] != nil { true } else { false }
        let inputs = decodeInputs(root, workflow: workflow, refusalExpected: refusalExpected)
        let home = decodeHome(root)
        self.home = home
        let seed = root.int("seed").map { UInt64(bitPattern: Int64($0)) } ?? 0
        let faults = decodeFaults(root.array("faults") ?? [], at: root.pointer("faults"))
        let events = decodeEvents(root.array("events") ?? [], at: root.pointer("events"))
        let answers = root.object("answers").map { decodeAnswers($0, workflow: workflow) } ?? [:]
        let expectations = root.object("expect", required: true).map(decodeExpectations)
        if refusalExpected {
            for key in ["mocks", "faults", "events", "answers"] where root.object[key] != nil {
                collector.error(
                    DiagnosticCode.invalidValue, at: root.pointer(key),
                    "no run starts when the inputs are refused (\"expect\" has \"inputRefused\"), so \"\(key)\" would never apply; remove it")
            }
        }
        // `$schema` names the file's JSON Schema for editors (docs/fixture.schema.json); the runner checks only that
        // it is a string.
        _ = root.string("$schema")
        root.finish()
        guard let name, let workflow, let runnable, let workflowPath, let home, let expectations, !collector.hasErrors
        else { return nil }
        var fixture = Fixture(
            name: name, description: description, file: collector.document.file, workflow: workflow, mocks: mocks,
            runnableWorkflow: runnable, workflowFile: resolve(workflowPath), inputs: inputs, home: home, seed: seed,
            faults: faults.rules, events: events, customOperations: faults.custom, expectations: expectations)
        fixture.faultPositions = faults.positions
        fixture.customOperationPositions = faults.customPositions
        fixture.answers = answers
        fixture.sourceMap = collector.document.sourceMap
        return fixture
    }

    // MARK: - Workflow, inputs, home

    /// A path relative to the fixture's directory (absolute paths stay as they are), normalized.
    func resolve(_ path: String) -> String {
        let joined = path.hasPrefix("/") ? path : URL(fileURLWithPath: directory).appendingPathComponent(path).path
        return URL(fileURLWithPath: joined).standardizedFileURL.path
    }

    private func loadWorkflow(_ path: String, at pointer: String) -> Workflow? {
        let resolved = resolve(path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: resolved, isDirectory: &isDirectory), !isDirectory.boolValue else {
            collector.error(
                DiagnosticCode.fileNotFound, at: pointer,
                isDirectory.boolValue
                    ? "\"\(path)\" is a directory (\(resolved)), not a workflow file; name the JSON file in it"
                    : "workflow file \"\(path)\" does not exist (resolved to \(resolved))\(Self.siblingHint(resolved)); paths are relative to this fixture"
            )
            return nil
        }
        let outcome = workflows.outcome(path: resolved) { [catalog] in WorkflowLoader(catalog: catalog).load(path: $0) }
        guard let workflow = outcome.workflow else {
            collector.error(
                FixtureDiagnosticCode.invalidWorkflow, at: pointer,
                "workflow file \"\(path)\" has errors; run `matterflow validate \(ShellWord.quoted(resolved))`")
            otherFiles += outcome.diagnostics
            return nil
        }
        return workflow
    }

    /// The inputs as the workflow resolves them; what it finds wrong with them is an error of the fixture, unless
    /// the fixture expects them refused (the runner then checks what was found).
    private func decodeInputs(_ root: ObjectReader, workflow: Workflow?, refusalExpected: Bool) -> JSONObject {
        let value = root.value("inputs")
        var given = JSONObject()
        if let value {
            guard case .object(let object) = value else {
                collector.error(
                    DiagnosticCode.wrongType, at: root.pointer("inputs"),
                    "\"inputs\" must be an object, found \(value.typeName)")
                return [:]
            }
            given = object
        }
        guard let workflow else { return given }
        do {
            return try workflow.resolveInputs(given, source: collector.document.file)
        } catch {
            if refusalExpected { return given }
            for diagnostic in error.diagnostics {
                let missing = diagnostic.code == DiagnosticCode.missingKey
                let pointer =
                    missing ? (value == nil ? "" : root.pointer("inputs")) : root.pointer("inputs") + diagnostic.pointer
                // The engine's advice names the command line's --input; a fixture gives its inputs in the file.
                let name = JSONPointer.tokens(of: diagnostic.pointer).first ?? ""
                let message =
                    missing
                    ? "required input \"\(name)\" is missing (or null); give it in the fixture's \"inputs\""
                        + (value == nil ? " (add \"inputs\": {\"\(name)\": ...} to the fixture)" : "")
                    : diagnostic.message
                collector.error(diagnostic.code, at: pointer, atKey: diagnostic.code == DiagnosticCode.unknownKey, message)
            }
            return given
        }
    }

    private func decodeHome(_ root: ObjectReader) -> HomeDescription? {
        let pointer = root.pointer("home")
        switch root.value("home") {
        case nil:
            return HomeDescription.defaultHome
        case .string(let path)?:
            do {
                let loaded = try homes.outcome(path: resolve(path)) { path in
                    Result { () throws(DiagnosticsError) in try HomeDescription.loadWithWarnings(path: path) }
                }.get()
                otherFiles += loaded.warnings
                return loaded.home
            } catch {
                let missing = error.diagnostics.contains { $0.code == DiagnosticCode.fileNotFound }
                collector.error(
                    missing ? DiagnosticCode.fileNotFound : FixtureDiagnosticCode.invalidHome, at: pointer,
                    missing
                        ? "home file \"\(path)\" does not exist (resolved to \(resolve(path)))\(Self.siblingHint(resolve(path))); paths are relative to this fixture"
                        : "home file \"\(path)\" has errors (see docs/home-format.md)")
                if !missing { otherFiles += error.diagnostics }
                return nil
            }
        case .object(let object)?:
            // An inline home is decoded on its own, then its findings are placed in this file.
            let inline = JSONDocument(file: collector.document.file, value: .object(object))
            let (home, findings) = HomeDescription.decode(inline)
            for finding in findings {
                collector.report(
                    finding.severity, finding.code, at: pointer + finding.pointer,
                    atKey: finding.code == DiagnosticCode.unknownKey, finding.message)
            }
            return home
        case let other?:
            collector.error(
                DiagnosticCode.wrongType, at: pointer,
                "\"home\" must be a home file's path or an inline home object, found \(other.typeName)")
            return nil
        }
    }

    // MARK: - Shared helpers

    /// ` (did you mean "commission-device.json"?)` when a file next to a missing one has a similar name.
    static func siblingHint(_ missing: String) -> String {
        let url = URL(fileURLWithPath: missing)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)) ?? []
        return SpellingSuggestion.hint(for: url.lastPathComponent, among: names.filter { $0.hasSuffix(".json") })
    }

    /// An operation name, or nil (reported) when the simulated hub has no such operation.
    func operation(_ name: String, at pointer: String) -> SimulatedOperation? {
        if let operation = SimulatedOperation(rawValue: name) { return operation }
        let names = SimulatedOperation.allCases.map(\.rawValue)
        let hint = SpellingSuggestion.hint(for: name, among: names)
        collector.error(
            FixtureDiagnosticCode.unknownOperation, at: pointer,
            "unknown operation \"\(name)\"\(hint)"
                + (hint.isEmpty ? "; `matterflow operations` lists them (a custom operation needs its catalog: --catalog FILE)" : ""))
        return nil
    }

    /// A qualified state name, or nil (reported) when no run of the workflow can visit it.
    func state(_ name: String, at pointer: String) -> String? {
        guard let workflow else { return nil }
        if workflow.hasQualifiedState(name) { return name }
        if let mocked = mockedStates.first(where: { name.hasPrefix($0 + "/") }), name != mocked + "/" + FixtureMock.stateName {
            collector.error(
                FixtureDiagnosticCode.unknownState, at: pointer,
                "state \"\(name)\" is inside \"\(mocked)\", which a mock of this fixture replaces: the run enters \"\(mocked)/\(FixtureMock.stateName)\" instead, so its states never run; name that one, or drop the mock")
            return nil
        }
        let hint = SpellingSuggestion.hint(for: name, among: workflow.qualifiedStateCandidates(for: name))
        // How to name states: qualified, where the workflow has sub-workflows; else its states, when few.
        let naming = workflow.subworkflows.isEmpty
            ? (workflow.stateOrder.count <= 12 ? "; its states: \(workflow.stateOrder.joined(separator: ", "))" : "; name states as in visitedStates")
            : "; name states as in visitedStates, qualified by sub-workflow states (\"commission/commission\")"
        collector.error(FixtureDiagnosticCode.unknownState, at: pointer, "workflow \(workflow.name) has no state \"\(name)\"\(hint)\(naming)")
        return nil
    }

    /// The `deviceID` of a border-router action: required, and one of the home's border routers.
    func borderRouter(_ reader: ObjectReader) -> String? {
        guard let deviceID = reader.nonEmptyString("deviceID", required: true) else { return nil }
        return borderRouterID(deviceID, at: reader.pointer("deviceID"))
    }

    /// A device ID that must name one of the home's border routers (reported otherwise).
    func borderRouterID(_ deviceID: String, at pointer: String) -> String? {
        guard let home else { return deviceID }
        let routers = home.thread.borderRouters.map(\.deviceID)
        if routers.contains(deviceID) { return deviceID }
        let hint = SpellingSuggestion.hint(for: deviceID, among: routers)
        collector.error(
            HomeDiagnosticCode.unknownDevice, at: pointer,
            "the home has no border router \"\(deviceID)\"\(hint)"
                + (hint.isEmpty
                    ? " (border routers: \(routers.isEmpty ? "none" : routers.joined(separator: ", ")))" : ""))
        return nil
    }

    /// An array of state names (each checked).
    func states(_ reader: ObjectReader, _ key: String) -> [String]? {
        guard let names = reader.stringArray(key) else { return nil }
        var checked: [String] = []
        for (index, name) in names.enumerated() {
            if let state = state(name, at: JSONPointer.appending(index, to: reader.pointer(key))) {
                checked.append(state)
            }
        }
        return checked.count == names.count ? checked : nil
    }
}
