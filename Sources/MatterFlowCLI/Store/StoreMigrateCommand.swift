import MatterFlowStore

/// `matterflow store migrate --store URL`: creates or upgrades the run store's schema in PostgreSQL.
struct StoreMigrateCommand {
    static let spec = CommandSpec(
        name: "store migrate",
        abstract: "Create or upgrade the run store's tables in PostgreSQL.",
        arguments: [],
        options: [StoreOption.postgresOption],
        discussion: """
            Applies the migrations the database lacks, in order, each recorded in matterflow_migrations, under an
            advisory lock: safe to run again, and from several machines at once. Prints the schema version.
            See docs/store.md.

            Exit status: 0, 2 when the store cannot be reached or a migration fails (nothing of it is kept),
            64 usage error.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() throws(UsageError) -> Int32 {
        let location = try StoreOption.value(arguments, command: Self.spec.name)
        guard PostgresRunStore.isPostgres(location) else {
            throw UsageError(message: "store migrate needs a PostgreSQL store (postgres://... or a conninfo), not '\(location)'", command: Self.spec.name)
        }
        do throws(StoreError) {
            let connection: PostgresConnection
            do throws(PostgresError) {
                connection = try PostgresConnection(location)
            } catch {
                throw StoreError.from(error, doing: "connecting to the store")
            }
            defer { connection.close() }
            let report = try StoreMigrator(connection: connection).migrate()
            let applied = report.applied.isEmpty ? "already current" : "applied \(report.applied.map(String.init).joined(separator: ", "))"
            environment.standardOutput.line("schema version \(report.version) (\(applied))")
            return ExitCode.success
        } catch {
            environment.standardError.line("error[\(error.code.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        }
    }
}
