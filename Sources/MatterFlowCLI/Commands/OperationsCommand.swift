import MatterFlow
import MatterFlowJSON

/// `matterflow operations [--json]`: the hub operations, generated from the catalog the engine uses.
struct OperationsCommand {
    static let spec = CommandSpec(
        name: "operations",
        abstract: "List the hub operations workflows can invoke, the events wait states can wait for, and the catalogs' guards.",
        arguments: [],
        options: [
            .init(name: "json", valueName: nil, help: "Print the catalog as JSON: {\"operations\", \"events\", \"guards\"}."),
            CatalogOption.option,
        ],
        discussion: nil)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() -> Int32 {
        guard let catalog = CatalogOption.catalog(arguments, err: environment.standardError) else { return ExitCode.invalidInput }
        let out = environment.standardOutput
        if arguments.flag("json") {
            out.line(JSONWriter.pretty([
                "operations": .array(catalog.operations.map(\.jsonValue)), "events": .array(catalog.events.map(\.jsonValue)),
                "guards": .array(catalog.guards.map(catalog.jsonValue(of:))),
            ]))
            return ExitCode.success
        }
        for operation in catalog.operations {
            out.line("\(operation.name) — \(operation.summary)")
            if operation.arguments.isEmpty {
                out.line("  arguments: none")
            } else {
                out.line("  arguments:")
                for argument in operation.arguments {
                    let flags = [
                        argument.required ? "required" : "optional", argument.secret ? "secret" : nil,
                        argument.onboardingPayload ? "onboarding payload" : nil,
                    ].compactMap { $0 }
                    out.line("    \(argument.name): \(argument.shape) (\(flags.joined(separator: ", "))) — \(argument.summary)")
                }
            }
            out.line("  result: \(operation.result)")
            out.line("  errors: " + operation.possibleCauses.map { "\(operation.code(of: $0)?.rawValue ?? "unknown")/\($0.rawValue)" }.joined(separator: ", "))
            out.line("  default timeout: \(NumberRange.format(operation.defaultTimeoutSeconds)) s; effect: \(operation.effect.rawValue)")
            if !operation.requires.isEmpty {
                out.line("  requires: " + operation.requires.map(\.description).joined(separator: "; "))
            }
            if let key = operation.idempotencyKey { out.line("  idempotency key: \(key)") }
            out.line("")
        }
        for event in catalog.events {
            out.line("event \(event.name) — \(event.summary)")
            out.line("  \(event.valueField): \(event.values.joined(separator: ", "))")
            out.line("  payload: \(event.payload)")
            if !event.secretFields.isEmpty { out.line("  secret: " + event.secretFields.sorted().joined(separator: ", ")) }
            out.line("")
        }
        for declared in catalog.guards {
            let failure = declared.failure
            out.line("guard \(declared.name) — \(declared.summary)")
            let reads: String
            switch declared.check {
            case .status: reads = "the hub's status"
            case .operation(let name, let arguments, _):
                reads = "\(name)(\(arguments.map { "\($0.name): \($0.value.summary)" }.joined(separator: ", ")))"
            }
            out.line("  reads: \(reads) (timeout \(NumberRange.format(catalog.timeoutSeconds(of: declared))) s)")
            out.line("  passes when: \(declared.check.condition.summary)")
            out.line("  otherwise: \(failure.code.rawValue)/\(failure.cause.rawValue): \(declared.message)")
            out.line("  errors: " + catalog.possibleCauses(of: declared).map { "\(catalog.code(ofCause: $0.rawValue)?.rawValue ?? "unknown")/\($0.rawValue)" }.joined(separator: ", "))
            out.line("")
        }
        return ExitCode.success
    }
}
