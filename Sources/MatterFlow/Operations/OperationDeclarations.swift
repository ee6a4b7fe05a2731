import MatterFlowJSON

/// The custom operations and events an embedding service declares in an operation catalog file
/// (docs/operation-catalog.md), ready to be added to an ``OperationCatalog``.
///
/// A declared operation is called on the hub by name (``Hub/perform(operation:structure:arguments:)``; on the hub
/// protocol, a method of the operation's name). Its result must be a JSON object of the declared shape, or the
/// call fails with `internal` / `hubFailure`.
///
/// ```swift
/// let declarations = try OperationDeclarations.load(path: "firmware.catalog.json")
/// let engine = WorkflowEngine(catalog: try OperationCatalog.standard.adding(declarations))
/// ```
public struct OperationDeclarations: Sendable {
    /// The catalog's name (its `catalog` member).
    public var name: String
    /// The file the declarations were read from.
    public var file: String
    /// The declared operations, in file order.
    public var operations: [OperationDescriptor]
    /// The declared events, in file order.
    public var events: [EventDescriptor]
    /// The declared guards, in file order.
    public var guards: [GuardDescriptor]
    /// Where each declared operation, event and guard name stands in the file, for findings about clashes.
    var locations: [String: (pointer: String, location: SourceLocation?)]
    /// The catalog file, so findings made when the declarations are added stand where the file says what they
    /// are about; a document without text for declarations built in code.
    var document: JSONDocument

    /// Declarations built in code (for a service that keeps them in Swift rather than in a file).
    ///
    /// A guard's operation must be one of `operations` or already in the catalog the declarations are added to,
    /// with effect `read`; its arguments must be the operation's, and its condition must read only what the guard
    /// gives it (``OperationCatalog/adding(_:)`` checks them, as it does for a catalog file's guards).
    public init(
        name: String, operations: [OperationDescriptor], events: [EventDescriptor] = [], guards: [GuardDescriptor] = []
    ) {
        self.name = name
        file = "<\(name)>"
        self.operations = operations
        self.events = events
        self.guards = guards
        locations = [:]
        document = JSONDocument(file: file, value: .null)
    }

    init(
        document: JSONDocument, name: String, operations: [OperationDescriptor], events: [EventDescriptor],
        guards: [GuardDescriptor], locations: [String: (pointer: String, location: SourceLocation?)]
    ) {
        self.name = name
        file = document.file
        self.operations = operations
        self.events = events
        self.guards = guards
        self.locations = locations
        self.document = document
    }

    /// The format version this MatterFlow reads.
    public static let currentVersion = 1

    /// Reads a catalog file.
    /// - Throws: every finding about the file (with line and column), when it has an error.
    public static func load(path: String) throws(DiagnosticsError) -> OperationDeclarations {
        let (document, numberProblems) = try JSONDocument.loadKeepingNumberProblems(path: path)
        return try decode(document, numberProblems: numberProblems)
    }

    /// Reads a catalog from JSON text, reported as `file`.
    public static func parse(_ text: String, file: String) throws(DiagnosticsError) -> OperationDeclarations {
        let (document, numberProblems) = try JSONDocument.parseKeepingNumberProblems(text, file: file)
        return try decode(document, numberProblems: numberProblems)
    }

    /// A catalog file as ``OperationCatalog/init(loading:)`` reads it: its declarations when it has no error;
    /// otherwise its findings, with what decoded of its operations and guards so the guards can still be checked
    /// (unless it holds a number no value can hold).
    static func read(
        path: String
    ) -> (declarations: OperationDeclarations?, findings: [Diagnostic], unchecked: CatalogDecoder?) {
        do {
            let (document, numberProblems) = try JSONDocument.loadKeepingNumberProblems(path: path)
            return decoding(document, numberProblems: numberProblems)
        } catch {
            return (nil, error.diagnostics, nil)
        }
    }

    private static func decode(
        _ document: JSONDocument, numberProblems: [Diagnostic]
    ) throws(DiagnosticsError) -> OperationDeclarations {
        let decoded = decoding(document, numberProblems: numberProblems)
        guard let declarations = decoded.declarations else { throw DiagnosticsError(decoded.findings) }
        return declarations
    }

    /// A document's declarations when it has no error; otherwise its findings in file order, and its decoder. A
    /// document holding numbers no value can hold (`numberProblems`) has them among its findings, and no decoder to
    /// check further: what was read of those numbers is another value.
    private static func decoding(
        _ document: JSONDocument, numberProblems: [Diagnostic]
    ) -> (declarations: OperationDeclarations?, findings: [Diagnostic], unchecked: CatalogDecoder?) {
        let decoder = CatalogDecoder(document: document)
        let declarations = decoder.decode()
        guard numberProblems.isEmpty else {
            return (nil, decoder.collector.diagnostics.replacingFindings(at: numberProblems), nil)
        }
        guard let declarations, !decoder.collector.hasErrors else {
            return (nil, decoder.collector.diagnostics.sortedByLocation(), decoder)
        }
        return (declarations, [], nil)
    }

    /// Names no declaration may take: the standard catalog's operations and events, and the hub protocol's own
    /// methods (a declared operation travels as a method of its own name).
    public static let reservedNames: Set<String> = Set(OperationCatalog.standard.names)
        .union(OperationCatalog.standard.events.map(\.name))
        .union(HubProtocolNames.messages + HubProtocolNames.commissioning + HubProtocolNames.borderRouters + HubProtocolNames.events)
}

/// Diagnostic codes of catalog files, besides the shared ones (``DiagnosticCode``).
public enum CatalogDiagnosticCode {
    /// An operation, event or guard whose name is built in, reserved by the hub protocol, or declared by another
    /// catalog.
    public static let nameClash = "nameClash"
    /// A given file is not a catalog (a workflow or fixture named by mistake).
    public static let notACatalog = "notACatalog"
}

extension OperationCatalog {
    /// This catalog with the declared operations, events and guards added.
    /// - Throws: findings located in the declarations' file: `nameClash` for any name this catalog already has, and
    ///   every problem of a guard with the catalog it would join (its operation, arguments and condition).
    public func adding(_ declarations: OperationDeclarations) throws(DiagnosticsError) -> OperationCatalog {
        var findings: [Diagnostic] = []
        let collector = DiagnosticCollector(document: declarations.document)
        func clash(_ name: String, _ kind: String) {
            let place = declarations.locations[name]
            findings.append(
                Diagnostic(
                    severity: .error, code: CatalogDiagnosticCode.nameClash,
                    message: "\(kind) \"\(name)\" is already in the catalog (built in or declared by another catalog file); rename it",
                    file: declarations.file, pointer: place?.pointer ?? "", location: place?.location ?? nil))
        }
        var catalog = self
        func checkCauses(_ causes: [DeclaredCause]) {
            for declared in causes {
                if let earlier = catalog.declaredCause(named: declared.cause.rawValue), earlier.code != declared.code {
                    clash(declared.cause.rawValue, "cause (with code \(earlier.code.rawValue), not \(declared.code.rawValue))")
                }
            }
        }
        for operation in declarations.operations {
            checkCauses(operation.declaredCauses)
            if catalog[operation.name] != nil || OperationDeclarations.reservedNames.contains(operation.name) {
                clash(operation.name, "operation")
            } else {
                catalog.add(operation)
            }
        }
        for event in declarations.events {
            if catalog.event(named: event.name) != nil || OperationDeclarations.reservedNames.contains(event.name) {
                clash(event.name, "event")
            } else {
                catalog.events.append(event)
            }
        }
        for descriptor in declarations.guards {
            checkCauses(descriptor.declaredCauses)
            if catalog.customGuard(named: descriptor.name) != nil || BuiltInGuard(rawValue: descriptor.name) != nil {
                clash(descriptor.name, "guard")
                continue
            }
            let pointer = declarations.locations[descriptor.name]?.pointer ?? JSONPointer.appending(descriptor.name, to: "/guards")
            if catalog.checkGuard(descriptor.check, at: pointer, collector: collector) { catalog.add(descriptor) }
        }
        findings += collector.diagnostics
        guard findings.isEmpty else { throw DiagnosticsError(findings) }
        return catalog
    }

    /// Why an operation cannot be a guard's: unknown, or with an effect on the hub or its session (a guard is checked
    /// again on every attempt, so reading must change nothing); nil when it can.
    static func guardOperationProblem(_ operation: OperationDescriptor?, named name: String) -> String? {
        guard let operation else {
            return "operation \"\(name)\" is neither declared in this catalog nor built in (`matterflow operations` lists them)"
        }
        guard operation.effect == .read else {
            return "operation \"\(name)\" has effect \"\(operation.effect.rawValue)\"; a guard is checked again before every attempt, so it may only call an operation with effect \"read\""
        }
        guard !operation.acquiresSession, !operation.releasesSession else {
            return "operation \"\(name)\" opens or releases the commissioning session; a guard may only read"
        }
        return nil
    }

    /// The standard catalog with the declarations of every catalog file in `paths` added, in order.
    /// - Throws: every finding about every file; two files declaring one name is a `nameClash`.
    public init(loading paths: [String]) throws(DiagnosticsError) {
        var catalog = OperationCatalog.standard
        var findings: [Diagnostic] = []
        for path in paths {
            let reading = OperationDeclarations.read(path: path)
            if let declarations = reading.declarations {
                do {
                    catalog = try catalog.adding(declarations)
                } catch {
                    findings += error.diagnostics
                }
            } else {
                let guards = reading.unchecked.map { catalog.findings(checkingGuardsOf: $0) } ?? []
                findings += (reading.findings + guards).sortedByLocation()
            }
        }
        guard findings.isEmpty else { throw DiagnosticsError(findings) }
        self = catalog
    }
}
