import Foundation
import MatterFlowCLI
@testable import MatterFlowStore
import Testing

/// `worker --wait-for-store`: a worker started beside a server, or a migration, that is not ready yet.
@Suite("A worker waiting for its store", .serialized, .enabled(if: TestPostgres.available, "no PostgreSQL server binary (install postgresql; .ci/run does)"))
struct WorkerStoreWaitTests {
    @Test("--wait-for-store: a database made and migrated a second after the worker started is waited for, said once; without it, exit 2 at once; past it, exit 2")
    func waitsForTheStore() async throws {
        let server = try TestPostgres.server()
        let name = "mf_late_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        let conninfo = server.split(separator: " ").filter { !$0.hasPrefix("dbname=") }.joined(separator: " ") + " dbname=\(name)"
        let impatient = await matterflow(["worker", "--store", conninfo, "--exit-when-idle"])
        // The server is up and refuses a database it does not have: said so, not as an outage.
        #expect(impatient.code == 2 && impatient.stderr.hasPrefix("error[storeRefused]"), "\(impatient.stderr)")
        #expect(impatient.stderr.contains("the server is up and refused this connection"), "\(impatient.stderr)")
        let short = await matterflow(["worker", "--store", conninfo, "--exit-when-idle", "--wait-for-store", "1"])
        #expect(short.code == 2, "\(short.stderr)")
        #expect(short.stderr.contains("waiting up to 1 s for it (--wait-for-store)"), "\(short.stderr)")

        // Made, then migrated, a little later, from a thread of its own.
        Thread.detachNewThread {
            usleep(1_000_000)
            guard let admin = try? PostgresConnection(server) else { return }
            _ = try? admin.execute("CREATE DATABASE \(name)")
            admin.close()
            usleep(1_500_000)
            guard let connection = try? PostgresConnection(conninfo) else { return }
            _ = try? StoreMigrator(connection: connection).migrate()
            connection.close()
        }
        let patient = await matterflow(["worker", "--store", conninfo, "--exit-when-idle", "--wait-for-store", "60"])
        #expect(patient.code == 0, "\(patient.stderr)")
        #expect(patient.stderr.components(separatedBy: "(--wait-for-store)").count == 2, "said once: \(patient.stderr)")
        #expect(patient.stderr.contains("worker: the store is reachable and migrated; starting"), "\(patient.stderr)")
        #expect(await matterflow(["worker", "--store", conninfo, "--wait-for-store", "x"]).code == 64)
    }

    @Test("a worker whose conninfo reaches a standby (target_session_attrs=any) says so and exits 2 at once, or once --wait-for-store has passed, instead of retrying its registration")
    func standbyIsNotAStore() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        // A standby as pg_is_in_recovery() answers: a function of that name that connections searching public before
        // pg_catalog find first (so the store's statements must call it unqualified).
        try store.execute("CREATE FUNCTION public.pg_is_in_recovery() RETURNS boolean LANGUAGE sql AS 'SELECT true'", doing: "test setup")
        let standby = conninfo + " options='-c search_path=public,pg_catalog'"
        let started = ContinuousClock.now
        let impatient = await matterflow(["worker", "--store", standby, "--exit-when-idle", "--worker-id", "w-standby"])
        #expect(impatient.code == 2, "\(impatient.stderr)")
        #expect(impatient.stderr.contains("error[storeUnavailable]: the server reached is a standby (in recovery), which takes no writes; MatterFlow asks for a writable server"), "\(impatient.stderr)")
        let waiting = await matterflow(["worker", "--store", standby, "--exit-when-idle", "--worker-id", "w-standby", "--wait-for-store", "2"])
        #expect(waiting.code == 2, "\(waiting.stderr)")
        #expect(waiting.stderr.contains("waiting up to 2 s for it (--wait-for-store)"), "\(waiting.stderr)")
        // Bounded by the wait, not by a registration's 30 s of retries.
        #expect(ContinuousClock.now - started < .seconds(25))
        #expect(try store.workers(includingStopped: true).isEmpty, "nothing registered on the standby")
    }

    @Test("a worker whose conninfo reaches a primary fenced with default_transaction_read_only (target_session_attrs=any) says so and exits 2 at once, or once --wait-for-store has passed, instead of retrying its registration")
    func readOnlyPrimaryIsNotAStore() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let fenced = conninfo + " target_session_attrs=any options='-c default_transaction_read_only=on'"
        let started = ContinuousClock.now
        let impatient = await matterflow(["worker", "--store", fenced, "--exit-when-idle", "--worker-id", "w-fenced"])
        #expect(impatient.code == 2, "\(impatient.stderr)")
        #expect(
            impatient.stderr.contains("error[storeUnavailable]: the server reached is a primary with default_transaction_read_only on, which takes no writes; MatterFlow asks for a writable server"),
            "\(impatient.stderr)")
        let waiting = await matterflow(["worker", "--store", fenced, "--exit-when-idle", "--worker-id", "w-fenced", "--wait-for-store", "2"])
        #expect(waiting.code == 2, "\(waiting.stderr)")
        #expect(waiting.stderr.contains("waiting up to 2 s for it (--wait-for-store)"), "\(waiting.stderr)")
        // Bounded by the wait, not by a registration's 30 s of retries of each refused write.
        #expect(ContinuousClock.now - started < .seconds(25))
        #expect(try store.workers(includingStopped: true).isEmpty, "nothing registered on the fenced primary")
    }
}
