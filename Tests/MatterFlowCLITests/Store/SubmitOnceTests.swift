import Foundation
import MatterFlow
import MatterFlowCLI
import MatterFlowJSON
@testable import MatterFlowStore
import Testing

/// `matterflow submit --run-id`: a submission sent again queues nothing twice, and another run's ID (and its
/// secrets) is never taken over.
@Suite("Submitting a run once", .serialized, .enabled(if: TestPostgres.available, "no PostgreSQL server binary (install postgresql; .ci/run does)"))
struct SubmitOnceTests {
    @Test("the same submission sent again succeeds and queues nothing more; another run's ID is refused (runExists) and its secrets stay as they were; secrets a refused submit wrote are removed")
    func submitWithRunID() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try PostgresStoreTests.secretsDirectory(in: directory)
        let workflow = Repository.workflow("commission-device")
        let runID = "run-0000000005b1"
        let submit = ["submit", workflow, "--store", conninfo, "--secrets", secrets, "--run-id", runID, "--structure", "home-1"]

        let first = await matterflow(submit + commissionInputs())
        #expect(first.code == 0, "\(first.stderr)")
        #expect(first.stdout == runID + "\n")
        let file = secrets + "/\(runID).secrets"
        let written = try Data(contentsOf: URL(fileURLWithPath: file))

        // Sent again (its reply lost, or the command run again): the same run, queued once.
        let again = await matterflow(submit + commissionInputs())
        #expect(again.code == 0, "\(again.stderr)")
        #expect(again.stdout == runID + "\n")
        let store = try PostgresRunStore(conninfo: conninfo)
        #expect(try store.runs().map(\.runID) == [runID])
        // A run queued before submissions were kept (migration 7) is compared column by column.
        try store.execute("UPDATE matterflow_runs SET submission = NULL WHERE run_id = $1", [runID], doing: "test")
        #expect(await matterflow(submit + commissionInputs()).code == 0)

        // Another submission with that ID: refused by the store, the run's secrets untouched.
        let otherName = await matterflow(submit + commissionInputs(name: "Desk lamp"))
        #expect(otherName.code == 2)
        #expect(otherName.stderr.hasPrefix("error[runExists]: another run \(runID) is in the store already; choose another --run-id"), "\(otherName.stderr)")
        // Another secret value: refused before the store is asked, and the value is not repeated.
        let otherPayload = await matterflow(submit + commissionInputs(payload: Payloads.lampQR))
        #expect(otherPayload.code == 2)
        #expect(otherPayload.stderr.contains("holds other secret inputs of a run \(runID) submitted before"), "\(otherPayload.stderr)")
        #expect(!otherPayload.stderr.contains(Payloads.lampQR))
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == written)
        #expect(try store.runs().map(\.runID) == [runID])

        // A run with no secrets holds the ID: the file the refused submit wrote for it goes again.
        let plain = "run-0000000005b2"
        #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", plain]).code == 0)
        let refused = await matterflow(["submit", workflow, "--store", conninfo, "--secrets", secrets, "--run-id", plain] + commissionInputs())
        #expect(refused.code == 2)
        #expect(refused.stderr.hasPrefix("error[runExists]"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: secrets + "/\(plain).secrets"))
        #expect(try PostgresStoreTests.runFiles(in: secrets) == ["\(runID).secrets"])

        // Another device's payload through a secrets directory that holds no file of the run (another copy, or the
        // run ended and its files went): the store tells the submissions apart by the secrets' keyed digest.
        let keyed = "run-0000000005b6"
        #expect(await matterflow(["submit", workflow, "--store", conninfo, "--secrets", secrets, "--run-id", keyed, "--structure", "home-1"] + commissionInputs()).code == 0)
        let elsewhere = try PostgresStoreTests.secretsDirectory(in: directory, named: "elsewhere")
        try FileManager.default.copyItem(atPath: secrets + "/digest.key", toPath: elsewhere + "/digest.key")
        let otherDevice = await matterflow(
            ["submit", workflow, "--store", conninfo, "--secrets", elsewhere, "--run-id", keyed, "--structure", "home-1"]
                + commissionInputs(payload: Payloads.lampQR))
        #expect(otherDevice.code == 2, "\(otherDevice.stderr)")
        #expect(otherDevice.stderr.hasPrefix("error[runExists]"), "\(otherDevice.stderr)")
        #expect(try PostgresStoreTests.runFiles(in: elsewhere).isEmpty, "the refused submit's file is removed")
        // The same device's payload through that copy is the same submission.
        let sameDevice = await matterflow(
            ["submit", workflow, "--store", conninfo, "--secrets", elsewhere, "--run-id", keyed, "--structure", "home-1"] + commissionInputs())
        #expect(sameDevice.code == 0, "\(sameDevice.stderr)")
        #expect(try store.runs().map(\.runID).sorted() == [runID, plain, keyed])
        // A run with secrets queued before submissions included their digest is still known when sent again.
        try store.execute(
            """
            UPDATE matterflow_runs SET submission = encode(sha256(convert_to(jsonb_build_array(
                workflow, workflow_file, structure_id, inputs, secret_inputs, answers, secret_answers)::text, 'UTF8')), 'hex')
            WHERE run_id = $1
            """, [keyed], doing: "test")
        let legacy = await matterflow(
            ["submit", workflow, "--store", conninfo, "--secrets", elsewhere, "--run-id", keyed, "--structure", "home-1"] + commissionInputs())
        #expect(legacy.code == 0, "\(legacy.stderr)")
    }
}

extension SubmitOnceTests {
    @Test("the same submission sent twice at once is queued once and both succeed; sent again after an answer changed the run's answers it is still known; sent again after the run ended, its secrets files are not left behind")
    func submitAgainConcurrentlyAndLater() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try PostgresStoreTests.secretsDirectory(in: directory)
        let runID = "run-0000000005b4"
        let submit = ["submit", Repository.workflow("commission-device-interactive"), "--store", conninfo, "--secrets", secrets, "--run-id", runID,
                      "--input", "onboardingPayload=\(Payloads.specQR)", "--answer", "name=Lamp"]
        async let first = matterflow(submit)
        async let second = matterflow(submit)
        let both = await [first, second]
        #expect(both.map(\.code) == [0, 0], "\(both.map(\.stderr))")
        #expect(both.map(\.stdout) == [runID + "\n", runID + "\n"])
        #expect(both.filter { $0.stderr.contains("note: run \(runID) was submitted before (queued); nothing was queued again") }.count == 1)
        let store = try PostgresRunStore(conninfo: conninfo)
        #expect(try store.runs().map(\.runID) == [runID])

        // An answer given since changes the run's answers, not what was submitted.
        #expect(await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Kitchen"]).code == 0)
        #expect(await matterflow(submit).code == 0)

        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1", secrets: SecretInbox(directory: secrets)), virtualTime: true)
        #expect(try await worker.finish(after: [runID], conninfo: conninfo).finished == ["succeeded": 1], "\(worker.lines)")
        #expect(try PostgresStoreTests.runFiles(in: secrets).isEmpty)
        let late = await matterflow(submit)
        #expect(late.code == 0)
        #expect(late.stderr.contains("note: run \(runID) was submitted before (succeeded); nothing was queued again"), "\(late.stderr)")
        #expect(try PostgresStoreTests.runFiles(in: secrets).isEmpty, "a secrets file of an ended run stayed")
    }
}

extension SubmitOnceTests {
    @Test("the same submission sent again after its run ended cancelled exits 1 saying so and how to try again; the ID is printed all the same")
    func submitAgainAfterTheRunEnded() async throws {
        let conninfo = try TestPostgres.database()
        let runID = "run-0000000005b6"
        let submit = ["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", runID, "--structure", "home-1"]
        #expect(await matterflow(submit).code == 0)
        #expect(await matterflow(["cancel", runID, "--store", conninfo]).code == 0)
        let again = await matterflow(submit)
        #expect(again.code == 1, "\(again.stderr)")
        #expect(again.stdout == runID + "\n")
        #expect(again.stderr.contains("note: run \(runID) was submitted before (cancelled); nothing was queued again"), "\(again.stderr)")
        #expect(again.stderr.contains("error[runEnded]: run \(runID) ended cancelled") && again.stderr.contains("submit with another --run-id"), "\(again.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo)
        #expect(try store.runs().map(\.status) == ["cancelled"])
    }

    @Test("a submit sent again while the first one's insert is not committed yet waits for it, then finds the same submission: queued once, no error")
    func submitAgainWhileTheFirstCommits() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let workflow = try WorkflowEngine().load(path: Repository.workflow("prepare"))
        let runID = "run-0000000005b5"
        // The first submit's insert, on a connection of its own, held open (its commit's reply on its way).
        let first = try PostgresConnection(conninfo)
        defer { first.close() }
        try first.execute("BEGIN")
        try first.execute(
            PostgresRunStore.queueStatement, [runID, workflow.name, workflow.file, "home-1", "{}", "{}", "{}", "{}", nil, workflow.contentHash, "t"])
        let again = Task { try await offPool { try store.submit(workflow, inputs: [:], structureID: "home-1", runID: runID) } }
        #expect(await TestPostgres.anotherStatementWaitsForALock(seenFrom: first), "the second submit waits for the first one's row")
        try first.execute("COMMIT")
        let submitted = try await again.value
        #expect(submitted == SubmittedRun(runID: runID, queuedNow: false, status: "queued"))
        #expect(try store.runs().map(\.runID) == [runID])
    }
}

/// The secrets directory's files: written whole, never a part, and nothing of a run left once it ends.
@Suite("Secrets directory")
struct SecretInboxTests {
    @Test("a file a writer that died left half-written is replaced by the next write, and removed with the run's files")
    func partialFilesDoNotStay() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inbox = SecretInbox(directory: directory.path)
        let runID = "run-0000000005b3"
        let partial = directory.path + "/\(runID).secrets.partial"
        try Data("{\"onboardingPayload\": \"MT:".utf8).write(to: URL(fileURLWithPath: partial))
        try inbox.put(["onboardingPayload": "MT:Y.K9042C00KA0648G00"], runID: runID)
        #expect(!FileManager.default.fileExists(atPath: partial))
        #expect(try inbox.take(runID: runID) == ["onboardingPayload": "MT:Y.K9042C00KA0648G00"])

        try Data("{\"pin\": \"42".utf8).write(to: URL(fileURLWithPath: directory.path + "/\(runID).answers.partial"))
        try inbox.add(["pin": "424242"], runID: runID, kind: .answers)
        try inbox.add(["code": "1111"], runID: runID, kind: .answers)
        #expect(try inbox.take(runID: runID, kind: .answers) == ["pin": "424242", "code": "1111"])
        try Data("{".utf8).write(to: URL(fileURLWithPath: partial))
        inbox.remove(runID: runID)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("a file left or planted where a secrets file is written first (readable by others, or a link elsewhere) neither lends its mode nor is followed")
    func plantedPartialFiles() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inbox = SecretInbox(directory: directory.path)
        let readable = directory.path + "/run-1.secrets.partial"
        #expect(FileManager.default.createFile(atPath: readable, contents: Data(), attributes: [.posixPermissions: 0o644]))
        try inbox.put(["onboardingPayload": "MT:Y.K9042C00KA0648G00"], runID: "run-1")
        let mode = try FileManager.default.attributesOfItem(atPath: directory.path + "/run-1.secrets")[.posixPermissions] as? Int
        #expect(mode == 0o600)

        let elsewhere = directory.path + "/elsewhere"
        #expect(FileManager.default.createFile(atPath: elsewhere, contents: Data("untouched".utf8)))
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/run-2.secrets.partial", withDestinationPath: elsewhere)
        try inbox.put(["onboardingPayload": "MT:Y.K9042C00KA0648G00"], runID: "run-2")
        #expect(try String(contentsOfFile: elsewhere, encoding: .utf8) == "untouched")
        #expect(try inbox.take(runID: "run-2") == ["onboardingPayload": "MT:Y.K9042C00KA0648G00"])
    }

    @Test("a run ID that could name a file outside the directory has no files: none is read, written or removed")
    func runIDsThatLeaveTheDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inboxPath = directory.path + "/inbox"
        try FileManager.default.createDirectory(atPath: inboxPath, withIntermediateDirectories: false)
        let inbox = SecretInbox(directory: inboxPath)
        for kind in ["secrets", "answers", "output"] {
            try Data("{\"precious\": true}".utf8).write(to: URL(fileURLWithPath: directory.path + "/victim.\(kind)"))
        }
        for runID in ["../victim", "", ".victim", "a/../../victim"] {
            #expect(throws: StoreError.self) { try inbox.take(runID: runID) }
            #expect(throws: StoreError.self) { try inbox.takeIfPresent(runID: runID, kind: .answers) }
            #expect(throws: StoreError.self) { try inbox.put(["onboardingPayload": "MT:Y.K9042C00KA0648G00"], runID: runID) }
            #expect(throws: StoreError.self) { try inbox.keep(output: ["epskc": "123456789"], runID: runID) }
            inbox.remove(runID: runID, output: true)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(left == ["inbox", "victim.answers", "victim.output", "victim.secrets"])
        for kind in ["secrets", "answers", "output"] {
            #expect(try String(contentsOfFile: directory.path + "/victim.\(kind)", encoding: .utf8) == "{\"precious\": true}")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: inboxPath).isEmpty)

        // submit refuses such an ID before it writes anything (or reaches the store).
        let submitted = await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", "host=/nowhere dbname=x", "--secrets", inboxPath,
             "--run-id", "../escaped"] + commissionInputs())
        #expect(submitted.code == 64, "\(submitted.stderr)")
        #expect(submitted.stderr.contains("--run-id: a run ID cannot start with '.'"), "\(submitted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/escaped.secrets"))
    }

    @Test("a run's file not there reads as none; one that is not a JSON object is an error naming it")
    func takeIfPresent() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inbox = SecretInbox(directory: directory.path)
        #expect(try inbox.takeIfPresent(runID: "run-2", kind: .answers) == nil)
        try Data("[1, 2]".utf8).write(to: URL(fileURLWithPath: directory.path + "/run-2.answers"))
        let error = #expect(throws: StoreError.self) { try inbox.takeIfPresent(runID: "run-2", kind: .answers) }
        #expect(error?.message.contains("run-2.answers is not a JSON object of answers to secret questions") == true, "\(String(describing: error))")
    }

    @Test("of answers given to one question more than once, the last is handed over; a secret one still missing yields to a newer one")
    func lastAnswerOfEachName() {
        let answers = [
            GivenAnswer(sequence: 0, name: "pin", value: "<redacted>", secret: true),
            GivenAnswer(sequence: 4, name: "room", value: "Hall", secret: false),
            GivenAnswer(sequence: 5, name: "pin", value: "123456", secret: false),
            GivenAnswer(sequence: 6, name: "room", value: "Kitchen", secret: false),
        ]
        #expect(AnswerRelay.lastOfEachName(answers) == [2, 3])
        #expect(AnswerRelay.lastOfEachName(Array(answers.prefix(2))) == [0, 1])
    }

    @Test("create writes a run's file once: the same values again are accepted unwritten, other values refused")
    func createOnce() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let inbox = SecretInbox(directory: directory.path)
        #expect(try inbox.create(["networkKey": "00112233445566778899aabbccddeeff"], runID: "run-1"))
        #expect(try inbox.create(["networkKey": "00112233445566778899aabbccddeeff"], runID: "run-1") == false)
        #expect(throws: StoreError.self) { try inbox.create(["networkKey": "ffeeddccbbaa99887766554433221100"], runID: "run-1") }
        #expect(try inbox.take(runID: "run-1") == ["networkKey": "00112233445566778899aabbccddeeff"])
    }
}
