import MatterFlowJSON

/// Turns an operation catalog document into ``OperationDeclarations``, reporting every problem at once with its
/// JSON pointer and line:column (docs/operation-catalog.md).
final class CatalogDecoder {
    let collector: DiagnosticCollector
    private var locations: [String: (pointer: String, location: SourceLocation?)] = [:]
    /// The file's declared causes, by name, which its operations' `errors` may name.
    private(set) var causes: [String: DeclaredCause] = [:]
    /// Causes the file declares whose declaration has an error (reported there): naming one elsewhere is no second
    /// mistake.
    private var brokenCauses: Set<String> = []
    /// The operations that decoded, also when another part of the file has an error.
    private(set) var decodedOperations: [OperationDescriptor] = []
    /// The names of every operation the file declares, also those that did not decode.
    private(set) var declaredOperationNames: Set<String> = []
    /// What each guard whose source and condition decoded reads and passes, with the guard's pointer, also when
    /// another part of it or of the file has an error: checked against the catalog for a file with errors, so one
    /// read reports every problem (``OperationCatalog/init(loading:)``).
    var decodedGuardChecks: [(check: GuardDescriptor.Check, pointer: String)] = []
    /// Where each part of the document stands, scanned once, when the first name is recorded.
    private lazy var sourceLocations = collector.document.sourceMap.locations()

    /// How deeply value shapes may nest (`{"array": {"array": ...}}`).
    static let maximumShapeDepth = 16

    init(document: JSONDocument) {
        collector = DiagnosticCollector(document: document)
    }

    func decode() -> OperationDeclarations? {
        collector.append(contentsOf: collector.document.duplicateKeyDiagnostics())
        guard let root = collector.object(collector.document.value, at: "", what: "an operation catalog") else { return nil }
        if let misplaced = FileKind.misplaced(root.object, as: .catalog) {
            collector.error(CatalogDiagnosticCode.notACatalog, at: "", misplaced)
            return nil
        }
        if let version = root.int("version", required: true) {
            if version > OperationDeclarations.currentVersion {
                collector.error(
                    DiagnosticCode.unsupportedVersion, at: root.pointer("version"),
                    "this catalog has version \(version), newer than this MatterFlow reads (\(OperationDeclarations.currentVersion)); upgrade MatterFlow or write a version 1 catalog")
                return nil
            } else if version < 1 {
                collector.error(DiagnosticCode.invalidValue, at: root.pointer("version"), "\"version\" must be 1, found \(version)")
            }
        }
        let name = root.nonEmptyString("catalog", required: true)
        _ = root.string("description")
        // `$schema` names the file's JSON Schema for editors; it is checked only for being a string.
        _ = root.string("$schema")
        for (cause, name) in declarations("causes", of: root, decodeCause) { causes[name] = cause }
        let operations = declarations("operations", of: root) { name, value, pointer in
            declaredOperationNames.insert(name)
            return decodeOperation(name, value, at: pointer)
        }.map(\.declared)
        decodedOperations = operations
        let events = declarations("events", of: root, decodeEvent).map(\.declared)
        let guards = declarations("guards", of: root, decodeGuard).map(\.declared)
        root.finish()
        guard let name, !collector.hasErrors else { return nil }
        return OperationDeclarations(
            document: collector.document, name: name, operations: operations, events: events, guards: guards,
            locations: locations)
    }

    /// The declarations of one section of the catalog (`causes`, `operations`, ...: an object whose members are named
    /// declarations), each decoded at its pointer, in file order; those that do not decode are left out, their errors
    /// reported.
    private func declarations<Declared>(
        _ section: String, of root: ObjectReader, _ decode: (String, JSONValue, String) -> Declared?
    ) -> [(declared: Declared, name: String)] {
        guard let reader = root.object(section) else { return [] }
        var declared: [(declared: Declared, name: String)] = []
        for member in reader.object.members {
            reader.allow(member.key)
            if let decoded = decode(member.key, member.value, reader.pointer(member.key)) { declared.append((decoded, member.key)) }
        }
        return declared
    }

    // MARK: - Names

    /// Whether a name may be declared: an identifier, not a reserved name. Records where it stands.
    func checkName(_ name: String, kind: String, at pointer: String, reserved: Set<String> = OperationDeclarations.reservedNames) -> Bool {
        let isIdentifier =
            name.unicodeScalars.first.map { $0.properties.isAlphabetic && $0.isASCII } ?? false
            && name.unicodeScalars.allSatisfy { ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "_" }
            && name.unicodeScalars.count <= 64
        guard isIdentifier else {
            collector.error(
                DiagnosticCode.invalidValue, at: pointer, atKey: true,
                "\(kind) name \"\(name)\" must be an ASCII letter followed by letters, digits or \"_\" (at most 64)")
            return false
        }
        guard !reserved.contains(name) else {
            collector.error(
                CatalogDiagnosticCode.nameClash, at: pointer, atKey: true,
                "\(kind) \"\(name)\" is built in (or a hub protocol method); a catalog cannot redeclare it, so choose another name")
            return false
        }
        locations[name] = (pointer, sourceLocations.location(of: pointer, preferKey: true))
        return true
    }

    // MARK: - Causes

    /// `"NAME": {"code": CODE, "meaning": TEXT}`: a cause the file's operations may raise, with its canonical code.
    private func decodeCause(_ name: String, _ value: JSONValue, at pointer: String) -> DeclaredCause? {
        // A declaration with an error (reported here) still declares the name.
        let declared = decodeCauseBody(name, value, at: pointer)
        if declared == nil { brokenCauses.insert(name) }
        return declared
    }

    private func decodeCauseBody(_ name: String, _ value: JSONValue, at pointer: String) -> DeclaredCause? {
        var nameValid = checkName(name, kind: "cause", at: pointer)
        if nameValid, ErrorCause(rawValue: name).code != nil || ErrorCode(rawValue: name) != nil {
            collector.error(
                CatalogDiagnosticCode.nameClash, at: pointer, atKey: true,
                "\"\(name)\" is already a cause or code MatterFlow knows; name it in an operation's \"errors\" without declaring it, or choose another name")
            nameValid = false
        }
        guard let reader = collector.object(value, at: pointer, what: "cause \"\(name)\"") else { return nil }
        let codeName = reader.nonEmptyString("code", required: true)
        let meaning = reader.nonEmptyString("meaning", required: true)
        reader.finish()
        var code: ErrorCode?
        if let codeName {
            code = ErrorCode(rawValue: codeName)
            if code == nil {
                let codes = ErrorCode.all.map(\.rawValue)
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("code"),
                    "\"\(codeName)\" is not a canonical error code\(SpellingSuggestion.hint(for: codeName, among: codes)) (codes: \(codes.joined(separator: ", ")))")
            }
        }
        guard nameValid, let code, let meaning else { return nil }
        return DeclaredCause(ErrorCause(rawValue: name), code: code, meaning: meaning)
    }

    /// The cause named `name`: one MatterFlow knows, or one this file declares under `causes` (given back with it, so
    /// its code travels with the operation or guard naming it); nil after reporting an unknown name at `pointer`.
    func resolveCause(_ name: String, at pointer: String) -> (cause: ErrorCause, declared: DeclaredCause?)? {
        let cause = ErrorCause(rawValue: name)
        if cause.code != nil { return (cause, nil) }
        if let declared = causes[name] { return (declared.cause, declared) }
        if brokenCauses.contains(name) { return nil }
        let known = ErrorCause.table.map(\.cause.rawValue) + causes.keys.sorted()
        collector.error(
            DiagnosticCode.invalidValue, at: pointer,
            "\"\(name)\" is not an error cause MatterFlow knows\(SpellingSuggestion.hint(for: name, among: known)); name a cause listed in docs/workflow-language.md section 14, or declare it with its code under \"causes\" in this file")
        return nil
    }

    // MARK: - Operations

    private func decodeOperation(_ name: String, _ value: JSONValue, at pointer: String) -> OperationDescriptor? {
        let nameValid = checkName(name, kind: "operation", at: pointer)
        guard let reader = collector.object(value, at: pointer, what: "operation \"\(name)\"") else { return nil }
        let summary = reader.nonEmptyString("summary", required: true)
        var arguments: [OperationDescriptor.Argument] = []
        if let argumentsReader = reader.object("arguments") {
            for member in argumentsReader.object.members {
                argumentsReader.allow(member.key)
                if let argument = decodeArgument(member.key, member.value, at: argumentsReader.pointer(member.key)) {
                    arguments.append(argument)
                }
            }
        }
        var resultFields: [ValueShape.Field] = []
        var secretResultFields = Set<String>()
        if let resultReader = reader.object("result") {
            for member in resultReader.object.members {
                resultReader.allow(member.key)
                guard let fieldReader = collector.object(member.value, at: resultReader.pointer(member.key), what: "result field \"\(member.key)\"") else { continue }
                let shape = fieldReader.value("type", required: true).flatMap { self.decodeShape($0, at: fieldReader.pointer("type"), depth: 0) }
                if fieldReader.bool("secret") == true { secretResultFields.insert(member.key) }
                let description = fieldReader.string("description") ?? ""
                fieldReader.finish()
                if let shape { resultFields.append(.init(member.key, shape, description)) }
            }
        }
        var errors: [ErrorCause] = []
        var declaredCauses: [DeclaredCause] = []
        for (index, causeName) in (reader.stringArray("errors") ?? []).enumerated() {
            guard let resolved = resolveCause(causeName, at: JSONPointer.appending(index, to: reader.pointer("errors"))) else { continue }
            if let declared = resolved.declared { declaredCauses.append(declared) }
            errors.append(resolved.cause)
        }
        let timeout = reader.number("defaultTimeoutSeconds", in: NumberLimits.duration, required: true)
        let effect = enumeration(reader, "effect", OperationDescriptor.Effect.self, required: true)
        let session = enumeration(reader, "session", SessionEffect.self) ?? SessionEffect.none
        let requires = decodeRequirements(reader)
        let idempotencyKey = reader.nonEmptyString("idempotencyKey")
        if let idempotencyKey, !arguments.contains(where: { $0.name == idempotencyKey }) {
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer("idempotencyKey"),
                "\"idempotencyKey\" must name one of the operation's arguments (\(arguments.map(\.name).joined(separator: ", ")))"
                    + SpellingSuggestion.hint(for: idempotencyKey, among: arguments.map(\.name)))
        }
        if session == .acquires, !resultFields.contains(where: { $0.name == "sessionID" && $0.shape == .string }) {
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer("session"),
                "an operation that acquires the commissioning session must return its ID: declare the result field \"sessionID\" of type \"string\"")
        }
        let releaseAttemptSuffices = reader.bool("releaseAttemptSuffices") ?? false
        if releaseAttemptSuffices, session != .releases {
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer("releaseAttemptSuffices"),
                "\"releaseAttemptSuffices\" only applies to an operation with \"session\": \"releases\"")
        }
        reader.finish()
        guard nameValid, let summary, let timeout, let effect, let requires else { return nil }
        var allRequirements = requires
        if session == .uses, !requires.contains(where: { $0.scope == .session }) {
            allRequirements.append(OrderRequirement(.session, ["prepareCommissioning"]))
        }
        let result = ValueShape.object(resultFields)
        return OperationDescriptor(
            name: name, summary: summary, arguments: arguments, result: result, errors: errors,
            defaultTimeoutSeconds: timeout, effect: effect, acquiresSession: session == .acquires,
            releasesSession: session == .releases, secretResultFields: secretResultFields, requires: allRequirements,
            releaseAttemptSuffices: releaseAttemptSuffices, idempotencyKey: idempotencyKey,
            declaredCauses: declaredCauses
        ) { hub, structure, arguments in
            let value = try await hub.perform(operation: name, structure: structure, arguments: arguments)
            guard case .object = value, result.admits(value) else {
                throw FlowError(
                    .hubFailure,
                    "the hub's result for \(name) is not the object the catalog declares (\(result)); got \(value.typeName)")
            }
            return value
        }
    }

    /// What an operation does to the commissioning session.
    enum SessionEffect: String, CaseIterable {
        case none, acquires, uses, releases
    }

    private func decodeArgument(_ name: String, _ value: JSONValue, at pointer: String) -> OperationDescriptor.Argument? {
        guard let reader = collector.object(value, at: pointer, what: "argument \"\(name)\"") else { return nil }
        let shape = reader.value("type", required: true).flatMap { self.decodeShape($0, at: reader.pointer("type"), depth: 0) }
        let required = reader.bool("required") ?? false
        let secret = reader.bool("secret") ?? false
        let onboardingPayload = reader.bool("onboardingPayload") ?? false
        let maxBytes = reader.int("maxBytes", in: NumberLimits.argumentBytes)
        let description = reader.string("description") ?? ""
        reader.finish()
        guard let shape else { return nil }
        if maxBytes != nil, shape != .string {
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer("maxBytes"),
                "argument \"\(name)\" is not a string, so \"maxBytes\" cannot limit it; remove it, or make the \"type\" \"string\"")
        }
        // Reported, and the argument kept without the flag, so that nothing else reports it missing.
        if onboardingPayload, shape != .string {
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer("onboardingPayload"),
                "argument \"\(name)\" holds an onboarding payload, a QR code or manual pairing code, so its \"type\" must be \"string\", not \"\(shape)\"")
        }
        return .init(
            name, shape, required: required, secret: secret, onboardingPayload: onboardingPayload && shape == .string,
            maxBytes: shape == .string ? maxBytes : nil, description)
    }

    private func decodeRequirements(_ reader: ObjectReader) -> [OrderRequirement]? {
        guard let elements = reader.array("requires") else { return reader.object["requires"] == nil ? [] : nil }
        var requirements: [OrderRequirement] = []
        for (index, element) in elements.enumerated() {
            let pointer = JSONPointer.appending(index, to: reader.pointer("requires"))
            guard let entry = collector.object(element, at: pointer, what: "a requirement") else { continue }
            let scope = enumeration(entry, "scope", OrderRequirement.Scope.self, required: true)
            let names = entry.stringArray("anyOf", required: true) ?? []
            entry.finish()
            if names.isEmpty, entry.object["anyOf"] != nil {
                collector.error(DiagnosticCode.invalidValue, at: entry.pointer("anyOf"), "\"anyOf\" needs at least one operation")
            }
            if let scope, !names.isEmpty { requirements.append(OrderRequirement(scope, names)) }
        }
        return requirements
    }

    // MARK: - Events

    private func decodeEvent(_ name: String, _ value: JSONValue, at pointer: String) -> EventDescriptor? {
        let nameValid = checkName(name, kind: "event", at: pointer)
        guard let reader = collector.object(value, at: pointer, what: "event \"\(name)\"") else { return nil }
        let summary = reader.nonEmptyString("summary", required: true)
        let valueField = reader.nonEmptyString("valueField", required: true)
        let values = reader.stringArray("values", required: true)
        if let values, values.isEmpty {
            collector.error(DiagnosticCode.invalidValue, at: reader.pointer("values"), "\"values\" needs at least one value")
        }
        var fields: [ValueShape.Field] = []
        var secretFields = Set<String>()
        if let fieldsReader = reader.object("fields", required: true) {
            for member in fieldsReader.object.members {
                fieldsReader.allow(member.key)
                guard let fieldReader = collector.object(member.value, at: fieldsReader.pointer(member.key), what: "field \"\(member.key)\"") else { continue }
                let shape = fieldReader.value("type", required: true).flatMap { self.decodeShape($0, at: fieldReader.pointer("type"), depth: 0) }
                let description = fieldReader.string("description") ?? ""
                if fieldReader.bool("secret") == true {
                    if member.key == valueField {
                        collector.error(
                            DiagnosticCode.invalidValue, at: fieldReader.pointer("secret"),
                            "the value field \"\(member.key)\" cannot be secret: its values are listed in \"values\" and wait states branch on them; keep the secret in another field")
                    }
                    secretFields.insert(member.key)
                }
                fieldReader.finish()
                if let shape { fields.append(.init(member.key, shape, description)) }
            }
            if let valueField, !fieldsReader.object.members.contains(where: { $0.key == valueField }) {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("valueField"),
                    "\"valueField\" must name one of the event's fields (\(fieldsReader.object.members.map(\.key).joined(separator: ", ")))")
            }
        }
        reader.finish()
        guard nameValid, let summary, let valueField, let values, !values.isEmpty else { return nil }
        return EventDescriptor(
            name: name, summary: summary, valueField: valueField, values: values, payload: .object(fields), secretFields: secretFields)
    }

    // MARK: - Shapes and enumerations

    /// A value shape: `"string"`, `"integer"`, `"number"`, `"boolean"`, `"any"`, `{"array": SHAPE}` or
    /// `{"object": {FIELD: SHAPE, ...}}`.
    private func decodeShape(_ value: JSONValue, at pointer: String, depth: Int) -> ValueShape? {
        guard depth < Self.maximumShapeDepth else {
            collector.error(DiagnosticCode.invalidValue, at: pointer, "shapes may nest at most \(Self.maximumShapeDepth) levels deep")
            return nil
        }
        switch value {
        case .string(let name):
            switch name {
            case "string": return .string
            case "integer": return .integer
            case "number": return .number
            case "boolean": return .boolean
            case "any": return .any
            default:
                let names = ["string", "integer", "number", "boolean", "any"]
                collector.error(
                    DiagnosticCode.invalidValue, at: pointer,
                    "unknown type \"\(name)\"\(SpellingSuggestion.hint(for: name, among: names, synonyms: .valueTypes)); use \(names.joined(separator: ", ")), {\"array\": TYPE} or {\"object\": {FIELD: TYPE}}")
                return nil
            }
        case .object(let object) where object.count == 1 && object["array"] != nil:
            return object["array"].flatMap { self.decodeShape($0, at: JSONPointer.appending("array", to: pointer), depth: depth + 1) }
                .map(ValueShape.array)
        case .object(let object) where object.count == 1 && object["object"] != nil:
            let fieldsPointer = JSONPointer.appending("object", to: pointer)
            guard case .object(let members)? = object["object"] else {
                collector.error(DiagnosticCode.wrongType, at: fieldsPointer, "\"object\" must map field names to types")
                return nil
            }
            var fields: [ValueShape.Field] = []
            var complete = true
            for member in members.members {
                if let field = decodeShape(member.value, at: JSONPointer.appending(member.key, to: fieldsPointer), depth: depth + 1) {
                    fields.append(.init(member.key, field, ""))
                } else {
                    complete = false
                }
            }
            return complete ? .object(fields) : nil
        default:
            collector.error(
                DiagnosticCode.invalidValue, at: pointer,
                "a type is \"string\", \"integer\", \"number\", \"boolean\", \"any\", {\"array\": TYPE} or {\"object\": {FIELD: TYPE}}, not \(JSONWriter.compact(value).prefix(60))")
            return nil
        }
    }

    private func enumeration<T: RawRepresentable>(
        _ reader: ObjectReader, _ key: String, _ type: T.Type, required: Bool = false
    ) -> T? where T.RawValue == String, T: CaseIterable {
        guard let text = reader.string(key, required: required) else { return nil }
        if let value = T(rawValue: text) { return value }
        let names = T.allCases.map(\.rawValue)
        collector.error(
            DiagnosticCode.invalidValue, at: reader.pointer(key),
            "\"\(key)\" must be one of \(names.joined(separator: ", ")), not \"\(text)\"\(SpellingSuggestion.hint(for: text, among: names))")
        return nil
    }
}

