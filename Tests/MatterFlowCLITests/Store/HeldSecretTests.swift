import Foundation
import MatterFlow
@testable import MatterFlowCLI
import MatterFlowJSON
@testable import MatterFlowStore
import Testing

/// An input or answer that is not declared secret but holds a run's secret (a device name holding the passcode) is
/// kept as the secret is: the store holds `"<redacted>"`, the secrets directory the value, and the run gets it whole.
@Suite("Values holding a secret", .serialized, .enabled(if: TestPostgres.available, "no PostgreSQL server binary (install postgresql; .ci/run does)"))
struct HeldSecretTests {
    @Test("submit and answer keep an input or answer holding the run's secret out of the store; the worker's run gets it whole")
    func heldSecretsStayOutOfTheStore() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try PostgresStoreTests.secretsDirectory(in: directory)
        // 20202021 is the passcode of the payload; the manual code 34970112332 commissions the same device.
        let named = await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--structure", "home-1"]
                + commissionInputs(name: "Lamp 20202021"))
        #expect(named.code == 0, "\(named.stderr)")
        let interactive = await matterflow([
            "submit", Repository.workflow("commission-device-interactive"), "--store", conninfo, "--secrets", secrets, "--structure",
            "home-2", "--input", "onboardingPayload=\(Payloads.specQR)", "--answer", "room=Kitchen",
        ])
        #expect(interactive.code == 0, "\(interactive.stderr)")
        let interactiveID = interactive.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let answered = await matterflow(
            ["answer", interactiveID, "--store", conninfo, "--secrets", secrets, "--answer", "name=Lamp 3497-011-2332"])
        #expect(answered.code == 0, "\(answered.stderr)")

        let store = try PostgresRunStore(conninfo: conninfo)
        let rows = try store.execute(
            """
            SELECT r.inputs::text || r.answers::text || coalesce((SELECT string_agg(a.value::text, ' ') FROM matterflow_answers a
                WHERE a.run_id = r.run_id), ''), r.secret_inputs::text, r.secret_answers::text
            FROM matterflow_runs r ORDER BY r.structure_id
            """, [], doing: "test")
        #expect(rows.rows.count == 2)
        for row in rows.rows {
            let kept = row[0] ?? ""
            #expect(!kept.contains("20202021") && !kept.contains("3497-011-2332") && !kept.contains(Payloads.specQR), "\(kept)")
        }
        #expect(rows.rows.first?[1] == "{onboardingPayload,deviceName}", "\(rows.rows)")
        let given = try store.execute(
            "SELECT name, secret FROM matterflow_answers WHERE run_id = $1", [interactiveID], doing: "test")
        #expect(given.rows == [["name", "t"]], "the answer holding the code is a secret answer: \(given.rows)")

        // The runs were given the values whole: their outputs hold the names with the secret taken out, not
        // "<redacted>" for the whole name.
        let worker = await matterflowVirtual(
            ["worker", "--store", conninfo, "--secrets", secrets, "--exit-when-idle", "--worker-id", "w1", "--lease", "60"])
        #expect(worker.code == 0 && worker.stderr.contains("finished: succeeded 2"), "\(worker.stderr)")
        let namedID = named.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let history = await matterflow(["history", namedID, "--store", conninfo])
        #expect(history.stdout.contains("output: {\"name\":\"Lamp \(RunOptions.redacted)\""), "\(history.stdout)")
        let other = await matterflow(["history", interactiveID, "--store", conninfo])
        #expect(other.stdout.contains("\"name\":\"Lamp \(RunOptions.redacted)\""), "\(other.stdout)")
    }

    @Test("an answer refused is reported without the run's secrets in it")
    func refusalsLeaveSecretsOut() {
        let err = CapturedText()
        let fits = RunQuestions.report(
            ["room": .string("20202021")], err: err, fitting: "the question the run waits for",
            secrets: SecretRedactor([.string(Payloads.specQR)])
        ) { _, value in AnswerError(.invalidAnswer, question: "room", "there is no choice \(value.stringValue ?? "")") }
        #expect(!fits)
        #expect(err.text.contains("there is no choice \(RunOptions.redacted)") && !err.text.contains("20202021"), "\(err.text)")
    }

    @Test("a worker does not start a run whose secrets file lacks an input the store keeps out: it would run without it")
    func aKeptInputMissingFromTheSecretsFileStopsTheRun() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try PostgresStoreTests.secretsDirectory(in: directory)
        let store = try PostgresRunStore(conninfo: conninfo)
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        // The device name holds the passcode: the store keeps it out, and a submit from code that writes only the
        // declared secret input leaves it out of the file too.
        let inputs: JSONObject = ["onboardingPayload": .string(Payloads.specQR), "deviceName": "Lamp 20202021"]
        #expect(workflow.secretNames(inputs: inputs, answers: [:]).inputs == ["onboardingPayload", "deviceName"])
        let runID = "run-000000000a03"
        _ = try SecretInbox(directory: secrets).create(["onboardingPayload": .string(Payloads.specQR)], runID: runID)
        _ = try store.submit(workflow, inputs: inputs, structureID: "home-1", runID: runID)
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1", leaseSeconds: 60, secrets: SecretInbox(directory: secrets)))
        let refused = await poll(timeout: .seconds(60), every: .milliseconds(20)) {
            worker.lines.contains { $0.contains("lacks the inputs deviceName") }
        }
        worker.worker.stop()
        _ = try await worker.summary
        #expect(refused, "\(worker.lines)")
        #expect(!worker.lines.contains { $0.contains("run \(runID) started") }, "\(worker.lines)")
    }

    @Test("answer says a run has ended before it reads the run's secrets; on an open run, a secrets file it cannot read stops it")
    func answerReadsSecretsOnlyForAnOpenRun() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try PostgresStoreTests.secretsDirectory(in: directory)
        let store = try PostgresRunStore(conninfo: conninfo)
        let (ended, open) = ("run-000000000a04", "run-000000000a05")
        try TestPostgres.insertRunning([(run: ended, structure: "s1", worker: "w"), (run: open, structure: "s2", worker: "w")], into: store)
        try store.execute(
            "UPDATE matterflow_runs SET workflow_file = $1", [Repository.workflow("commission-device-interactive")], doing: "test setup")
        try store.execute("UPDATE matterflow_runs SET status = 'succeeded', finished_at = now() WHERE run_id = $1", [ended], doing: "test setup")
        // Where each run's secrets file would be, a directory: no file can be read there.
        for run in [ended, open] {
            try FileManager.default.createDirectory(atPath: secrets + "/\(run).secrets", withIntermediateDirectories: true)
        }
        let late = await matterflow(["answer", ended, "--store", conninfo, "--secrets", secrets, "--answer", "name=Lamp"])
        #expect(late.code == 2 && late.stderr.contains("error[runEnded]"), "\(late.stderr)")
        let unread = await matterflow(["answer", open, "--store", conninfo, "--secrets", secrets, "--answer", "name=Lamp"])
        #expect(unread.code == 2 && unread.stderr.contains("error[secretsUnavailable]"), "\(unread.stderr)")
        #expect(try store.execute("SELECT count(*) FROM matterflow_answers", doing: "test").rows.first?.first == "0")
    }
}
