import MatterFlowStore

/// `matterflow store metrics --store URL`: the fleet's store as Prometheus metrics, for a monitoring system.
struct StoreMetricsCommand {
    static let spec = CommandSpec(
        name: "store metrics",
        abstract: "Print a PostgreSQL run store's queue, runs needing attention and workers as Prometheus metrics.",
        arguments: [],
        options: [
            StoreOption.postgresOption,
            .init(
                name: "output", valueName: "<file>",
                help: "Write the metrics to this file instead, replacing it atomically (for node_exporter's textfile collector)."),
        ],
        discussion: """
            Prints Prometheus's text format (0.0.4), every figure a gauge read from the store now:
              matterflow_runs{status}                   queued, running and needsAttention runs
              matterflow_queue_oldest_age_seconds       how long the oldest queued run has waited since submitted
              matterflow_queue_oldest_startable_age_seconds  the longest wait, since last queued, of a queued run
                                                        a worker could start now (not behind its structure's session)
              matterflow_runs_lease_expired             running runs whose worker's lease ran out
              matterflow_runs_start_failures            open runs workers could not start (hub, secrets)
              matterflow_runs_cancel_pending            open runs asked to cancel, not ended yet
              matterflow_runs_waiting_for_answer        open runs waiting for `matterflow answer`
              matterflow_question_oldest_age_seconds    how long the oldest unanswered question has waited
              matterflow_sessions_held                  structures whose commissioning session a run holds
              matterflow_workers{state}                 running, stopping, stopped, silent
              matterflow_worker_runs_held{worker,host}  per worker not stopped; also _runs_lease_expired,
              matterflow_worker_heartbeat_age_seconds   _info{state,version,schema}
              matterflow_store_schema_version
              matterflow_store_in_recovery              1 when the server read is a standby (no worker can use it)
              matterflow_store_read_only_default        1 when the server takes no writes by default
                                                        (default_transaction_read_only: no worker can use it)
              matterflow_store_scrape_success           1, or 0 when the store could not be read
              matterflow_store_scrape_timestamp_seconds when the scrape was made
            Each status and state is written, 0 when empty. Ended runs that went as planned are not counted (the
            count would read every run the store keeps at each scrape). Alert on needsAttention above 0, on the
            startable age of the queue, and on silent workers; docs/store.md, "Monitoring", has example rules.

            Run it from cron or a systemd timer with --output into node_exporter's textfile directory, or from an
            exporter that runs commands. Each scrape makes five short read-only statements, and waits at most 5 s for
            a lock another session holds on the store's tables and 10 s for any statement's answer (a pooler holding
            statements, such as pgbouncer's PAUSE, or a server stopped: storeUnavailable). A scrape that cannot read the store prints nothing
            and, with --output, replaces the file with matterflow_store_scrape_success 0 and its timestamp alone, so
            no figure of an earlier scrape passes for a current one.

            Exit status: 0, 2 when the store cannot be read or the file cannot be written, 64 usage error.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() throws(UsageError) -> Int32 {
        let location = try StoreOption.value(arguments, command: Self.spec.name)
        try StoreOption.requirePostgres(location, command: Self.spec.name)
        let output = arguments.value("output")
        let text: String
        var failure: StoreError?
        do {
            text = try StoreOption.probe(location, command: Self.spec.name).metrics().prometheusText + StoreMetrics.scrapeText(succeeded: true, at: environment.now())
        } catch {
            failure = error
            text = StoreMetrics.scrapeText(succeeded: false, at: environment.now())
        }
        if let failure { environment.standardError.line("error[\(failure.code.rawValue)]: \(failure.message)") }
        guard let path = output else {
            if failure == nil { environment.standardOutput.write(text) }
            return failure == nil ? ExitCode.success : ExitCode.invalidInput
        }
        guard let problem = ReportFile.write(text, to: path, what: "metrics") else {
            return failure == nil ? ExitCode.success : ExitCode.invalidInput
        }
        environment.standardError.line("error[\(ReportFile.notWrittenCode)]: \(problem)")
        return ExitCode.invalidInput
    }
}
