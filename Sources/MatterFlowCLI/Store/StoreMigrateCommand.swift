import MatterFlowStore

/// `matterflow store migrate --store URL`: creates or upgrades the run store's schema in PostgreSQL.
struct StoreMigrateCommand {
    static let spec = CommandSpec(
        name: "store migrate",
        abstract: "Create or upgrade the run store's tables in PostgreSQL.",
        arguments: [],
        options: [
            StoreOption.postgresOption,
            .init(
                name: "while-workers-run", valueName: nil,
                help: "Migrate although workers built for an older schema run against the store."),
        ],
        discussion: """
            Applies the migrations the database lacks, in order, each recorded in matterflow_migrations, under an
            advisory lock: safe to run again, and from several machines at once. Prints the schema version.

            It holds back (olderWorkersRunning, naming them) while workers built for an older schema heartbeat
            against the store: they would go on claiming runs after the migration without knowing what it changes.
            Stop them (SIGTERM hands their runs back), migrate, then start the new version's workers. With
            --while-workers-run it migrates all the same; workers of MatterFlow versions that record their schema
            (13 and later) then stop claiming at their next heartbeat and exit 2. A table another session holds for
            more than 10 s (a long transaction, a backup) stops the migration (migrationBlocked): nothing is
            migrated, and the workers' statements no longer wait behind it. See docs/store.md, "Upgrading".

            Exit status: 0, 2 when the store cannot be reached, a migration fails or is held back (nothing of it is
            kept), 64 usage error.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() throws(UsageError) -> Int32 {
        let location = try StoreOption.value(arguments, command: Self.spec.name)
        guard PostgresRunStore.isPostgres(location) else {
            throw UsageError(message: "store migrate needs a PostgreSQL store (postgres://... or a conninfo), not '\(PostgresConnection.shownLocation(location))'", command: Self.spec.name)
        }
        do throws(StoreError) {
            let connection: PostgresConnection
            do throws(PostgresError) {
                connection = try PostgresConnection(location)
            } catch {
                throw StoreError.from(error, doing: "connecting to the store")
            }
            defer { connection.close() }
            let report = try StoreMigrator(connection: connection).migrate(whileWorkersRun: arguments.flag("while-workers-run"))
            let applied = report.applied.isEmpty ? "already current" : "applied \(report.applied.map(String.init).joined(separator: ", "))"
            environment.standardOutput.line("schema version \(report.version) (\(applied))")
            return ExitCode.success
        } catch {
            environment.standardError.line("error[\(error.code.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        }
    }
}
