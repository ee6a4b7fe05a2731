import Foundation
import Synchronization
import MatterFlow
@testable import MatterFlowCLI
import MatterFlowJSON
import MatterFlowSimulator
import MatterFlowJournal
@testable import MatterFlowStore
import Testing

/// `matterflow answer`: a question of a fleet run answered while the run waits on a worker, from another process.
@Suite("Answers given to fleet runs", .serialized, .enabled(if: TestPostgres.available, "no PostgreSQL server binary (install postgresql; .ci/run does)"))
struct FleetAnswerTests {
    /// A room (a choice) and a confirmation (yes or no), each waiting 300 s: on the tests' manual clock, until answered.
    static let desk = #"""
        {"workflow": "desk", "version": 1, "start": "room", "states": {
          "room": {"type": "ask", "prompt": "Which room?", "answer": {"choice": {"from": ["Kitchen", "Hall"]}},
                   "result": "room", "timeoutSeconds": 300, "next": "sure", "onTimeout": "late"},
          "sure": {"type": "ask", "question": "confirm", "prompt": "Sure?", "answer": {"yesNo": {}},
                   "result": "sure", "timeoutSeconds": 300, "next": "done", "onTimeout": "late"},
          "done": {"type": "succeed", "output": {"room": "${vars.room}", "sure": "${vars.sure}"}},
          "late": {"type": "fail", "code": "deadlineExceeded", "message": "nobody answered"}
        }}
        """#

    /// A secret question (a six-digit code), waiting 300 s.
    static let door = #"""
        {"workflow": "door", "version": 1, "start": "door", "states": {
          "door": {"type": "ask", "question": "pin", "prompt": "Code?", "answer": {"text": {"pattern": "[0-9]{6}"}}, "secret": true,
                   "result": "code", "timeoutSeconds": 300, "next": "done", "onTimeout": "late"},
          "done": {"type": "succeed"},
          "late": {"type": "fail", "code": "deadlineExceeded", "message": "nobody answered"}
        }}
        """#

    /// The answering side's secrets directory and the worker's, each of its own: the worker's is a copy brought up to
    /// date later (a synchronised volume).
    static func secretsDirectories(in directory: TemporaryDirectory) throws -> (answering: String, worker: String) {
        let answering = directory.file("answering")
        let worker = directory.file("worker")
        for path in [answering, worker] { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]) }
        return (answering, worker)
    }

    @Test("a waiting run takes the answer given from elsewhere, and one to a later question when it asks it; misfits, unknown names and ended runs are refused")
    func answeredWhileWaiting() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try directory.write(Self.desk, to: "desk.json")
        let submitted = await matterflow(["submit", workflow, "--store", conninfo, "--run-id", "run-00000000de5c"])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        #expect(submitted.stderr.contains("each waits for `matterflow answer RUN --answer NAME=VALUE` until its timeout"), "\(submitted.stderr)")
        let runID = "run-00000000de5c"

        // Refused before anything is stored: what the workflow alone shows cannot fit.
        let misfit = await matterflow(["answer", runID, "--store", conninfo, "--answer", "confirm=maybe"])
        #expect(misfit.code == 2)
        #expect(misfit.stderr.contains("--answer confirm does not fit its question: the answer must be yes or no"), "\(misfit.stderr)")
        let unknown = await matterflow(["answer", runID, "--store", conninfo, "--answer", "rooom=Kitchen"])
        #expect(unknown.code == 2)
        #expect(unknown.stderr.contains("no ask state of desk is called \"rooom\""), "\(unknown.stderr)")
        let both = await matterflow(["answer", runID, "--store", conninfo, "--json", "--answer", "room=Hall"])
        #expect(both.code == 64)
        let nobody = await matterflow(["answer", "run-000000000000", "--store", conninfo, "--answer", "room=Hall"])
        #expect(nobody.code == 2)
        #expect(nobody.stderr.contains("error[runNotFound]"), "\(nobody.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo)
        #expect(try store.answers(of: runID, after: 0).isEmpty)
        let queued = await matterflow(["answer", runID, "--store", conninfo])
        #expect(queued.code == 0, "\(queued.stderr)")
        #expect(queued.stdout == "run \(runID) (queued) waits for no question now\n")

        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1"))
        let asked = try await Self.waitForRecord("questionAsked", of: runID, conninfo: conninfo)
        #expect(asked, "the run asked for the room within a minute")
        let shown = await matterflow(["answer", runID, "--store", conninfo])
        #expect(shown.stdout == "run \(runID) (running) waits for:\n  room (desk/room): Which room? [one of 2 choices]\n    1. Kitchen\n    2. Hall\n")
        let json = await matterflow(["answer", runID, "--store", conninfo, "--json"])
        let listed = try #require(try parseJSON(json.stdout) as? [[String: Any]])
        #expect(listed.map { $0["name"] as? String } == ["room"])
        #expect(listed.first?["workflow"] as? String == "desk")
        // The choices as the run resolved them check an answer to the waiting question before it is stored.
        let garage = await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Garage"])
        #expect(garage.code == 2)
        #expect(garage.stderr.contains("--answer room does not fit the question the run waits for: \"Garage\" is not one of the choices"), "\(garage.stderr)")
        #expect(try store.answers(of: runID, after: 0).isEmpty)
        // The room waits now; the confirmation is asked only after it. One command gives both.
        let answered = await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Kitchen", "--answer", "confirm=yes"])
        #expect(answered.code == 0, "\(answered.stderr)")
        #expect(answered.stdout == "running\n")
        let summary = try await worker.finish(after: [runID], conninfo: conninfo)
        let lines = worker.lines
        #expect(summary.finished == ["succeeded": 1], "\(lines)")
        #expect(lines.contains("worker w1: run \(runID): answered room"), "\(lines)")
        #expect(lines.contains("worker w1: run \(runID): the answer to confirm waits until the run asks it"), "\(lines)")
        let output = try store.execute("SELECT output::text FROM matterflow_runs WHERE run_id = $1", [runID], doing: "test")
        #expect(output.rows.first?.first == #"{"room": "Kitchen", "sure": true}"#)
        #expect(try store.answers(of: runID, after: 0).map(\.name) == ["confirm", "room"])
        let types = try store.records(of: runID).map(\.type)
        #expect(types.filter { $0 == "answered" }.count == 2, "\(types)")

        let late = await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Hall"])
        #expect(late.code == 2)
        #expect(late.stderr.contains("error[runEnded]: run \(runID) has ended (succeeded)"), "\(late.stderr)")
    }

    @Test("an answer given at submit that the run refuses when it asks (a room its choices, known only then, lack) is said in the worker's log with how to give another; the run waits for it")
    func refusedAnswerIsLogged() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try directory.write(
            #"""
            {"workflow": "rooms-late", "version": 1, "start": "list", "states": {
              "list": {"type": "assign", "set": {"rooms": ["Kitchen", "Hall"]}, "next": "room"},
              "room": {"type": "ask", "prompt": "Which room?", "answer": {"choice": {"from": "${vars.rooms}"}},
                       "result": "room", "timeoutSeconds": 300, "next": "done", "onTimeout": "late"},
              "done": {"type": "succeed", "output": {"room": "${vars.room}"}},
              "late": {"type": "fail", "code": "deadlineExceeded", "message": "nobody answered"}
            }}
            """#, to: "rooms-late.json")
        let runID = "run-0000000ba5e1"
        let submitted = await matterflow(["submit", workflow, "--store", conninfo, "--run-id", runID, "--answer", "room=Garage"])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo)
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w-refuse"))
        #expect(try await Self.waitForRecord("answerRejected", of: runID, conninfo: conninfo), "\(worker.lines)")
        let answered = await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Hall"])
        #expect(answered.code == 0, "\(answered.stderr)")
        let summary = try await worker.finish(after: [runID], conninfo: conninfo)
        #expect(summary.finished == ["succeeded": 1], "\(worker.lines)")
        #expect(
            worker.lines.contains { $0.hasPrefix("warning: worker w-refuse: run \(runID) refused the answer to room (") && $0.hasSuffix("it waits for another: matterflow answer \(runID) --answer room=...") },
            "\(worker.lines)")
    }

    @Test("a run waiting for an answer parks there when its worker stops, twice in a rolling restart; each next worker resumes it (without --resume), and it waits for the answer again and takes it")
    func answeredAfterTakeover() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try directory.write(Self.desk, to: "desk.json")
        let runID = "run-00000000de5d"
        let submitted = await matterflow(["submit", workflow, "--store", conninfo, "--run-id", runID, "--answer", "confirm=yes"])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo)
        // A long drain: the run is parked at once, so the worker does not wait for it.
        let stopping = WorkerOptions(workerID: "w1", leaseSeconds: 2, drainSeconds: 120)
        let first = TestWorker(store: store, options: stopping)
        #expect(try await Self.waitForRecord("questionAsked", of: runID, conninfo: conninfo))
        first.worker.stop()
        let firstSummary = try await first.summary
        #expect(firstSummary.handedBack == 1, "\(first.lines)")
        #expect(first.lines.contains("worker w1: handed back 1 run(s) at a checkpoint: \(runID)"), "\(first.lines)")
        // The line is about the run for a log store too (its runs), not only in its words.
        #expect(first.entries.contains { $0.message.hasPrefix("handed back 1 run(s) at a checkpoint") && $0.runIDs == [runID] }, "\(first.lines)")
        #expect(try store.status(of: runID) == "queued")

        // The next worker resumes the run at its question, which waits (recovery alone would cancel it).
        var next = stopping
        next.workerID = "w2"
        let second = TestWorker(store: store, options: next)
        #expect(try await Self.waitForRecord("recoveryStarted", of: runID, conninfo: conninfo))
        #expect(try await Self.waitForRecord("questionAsked", of: runID, conninfo: conninfo, count: 2))
        #expect(second.lines.contains("worker w2: resuming run \(runID) from its last checkpoint (handed back by its worker)"), "\(second.lines)")
        // A rolling restart: the worker that resumed it stops too, and the run, resumed by recovery, parks again.
        second.worker.stop()
        let secondSummary = try await second.summary
        #expect(secondSummary.handedBack == 1, "\(second.lines)")
        #expect(second.lines.contains("worker w2: handed back 1 run(s) at a checkpoint: \(runID)"), "\(second.lines)")
        next.workerID = "w3"
        let third = TestWorker(store: store, options: next)
        #expect(try await Self.waitForRecord("questionAsked", of: runID, conninfo: conninfo, count: 3))
        let answered = await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Hall"])
        #expect(answered.code == 0, "\(answered.stderr)")
        let summary = try await third.finish(after: [runID], conninfo: conninfo)
        let lines = third.lines
        #expect(summary.finished == ["succeeded": 1], "\(lines)")
        #expect(lines.contains("worker w3: run \(runID): answered room"), "\(lines)")
        let output = try store.execute("SELECT output::text FROM matterflow_runs WHERE run_id = $1", [runID], doing: "test")
        #expect(output.rows.first?.first == #"{"room": "Hall", "sure": true}"#)
    }

    @Test("a secret answer given while the run waits is never stored: it reaches the worker through the secrets directory")
    func secretAnswerWhileWaiting() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = directory.file("secrets")
        try FileManager.default.createDirectory(atPath: secrets, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let workflow = try directory.write(Self.door, to: "door.json")
        let runID = "run-00000000de5e"
        #expect(await matterflow(["submit", workflow, "--store", conninfo, "--run-id", runID]).code == 0)
        let nowhere = await matterflow(["answer", runID, "--store", conninfo, "--answer", "pin=424242"])
        #expect(nowhere.code == 64)
        #expect(nowhere.stderr.contains("the answer to pin is secret and the store never keeps them; pass --secrets DIR"), "\(nowhere.stderr)")
        // The pattern is checked before anything is written, and the refusal does not repeat the answer.
        let short = await matterflow(["answer", runID, "--store", conninfo, "--secrets", secrets, "--answer", "pin=4242"])
        #expect(short.code == 2)
        #expect(!short.stderr.contains("4242"), "\(short.stderr)")

        let store = try PostgresRunStore(conninfo: conninfo)
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1", secrets: SecretInbox(directory: secrets)))
        #expect(try await Self.waitForRecord("questionAsked", of: runID, conninfo: conninfo))
        let answered = await matterflow(["answer", runID, "--store", conninfo, "--secrets", secrets, "--answer", "pin=424242"])
        #expect(answered.code == 0, "\(answered.stderr)")
        let summary = try await worker.finish(after: [runID], conninfo: conninfo)
        #expect(summary.finished == ["succeeded": 1], "\(worker.lines)")
        #expect(try store.answers(of: runID, after: 0).map(\.value) == [.string(RunOptions.redacted)])
        let stored = try store.execute(
            "SELECT answers::text || secret_answers::text FROM matterflow_runs WHERE run_id = $1", [runID], doing: "test")
        #expect(stored.rows.first?.first == #"{"pin": "<redacted>"}{pin}"#)
        let records = try store.records(of: runID).map { JSONWriter.compact(.object($0.payload)) }.joined()
        #expect(!records.contains("424242"))
        // The worker removed the run's secrets file once the run ended.
        #expect(!FileManager.default.fileExists(atPath: secrets + "/\(runID).answers"))
    }

    @Test("a secret answer announced before its value reaches the worker's copy of the secrets directory is handed over once the value arrives")
    func secretAnswerArrivingLate() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (answering, workers) = try Self.secretsDirectories(in: directory)
        let workflow = try directory.write(Self.door, to: "door.json")
        let runID = "run-0000000001a7"
        #expect(await matterflow(["submit", workflow, "--store", conninfo, "--run-id", runID]).code == 0)
        let store = try PostgresRunStore(conninfo: conninfo)
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1", secrets: SecretInbox(directory: workers)))
        #expect(try await Self.waitForRecord("questionAsked", of: runID, conninfo: conninfo))
        let answered = await matterflow(["answer", runID, "--store", conninfo, "--secrets", answering, "--answer", "pin=424242"])
        #expect(answered.code == 0, "\(answered.stderr)")
        let missed = await worker.waitForLine(containing: "the answer to pin is secret and not in this worker's --secrets directory yet")
        #expect(missed, "\(worker.lines)")
        try FileManager.default.copyItem(atPath: answering + "/\(runID).answers", toPath: workers + "/\(runID).answers")
        let summary = try await worker.finish(after: [runID], conninfo: conninfo)
        #expect(summary.finished == ["succeeded": 1], "\(worker.lines)")
        #expect(worker.lines.contains("worker w1: run \(runID): answered pin"), "\(worker.lines)")
        #expect(!worker.lines.joined().contains("424242"))
    }

    @Test("a secret answer given to a queued run whose value is not yet in the worker's copy of the secrets directory at its claim: the run starts without it and takes it once the value arrives")
    func secretAnswerMissingAtClaim() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (answering, workers) = try Self.secretsDirectories(in: directory)
        let workflow = try directory.write(Self.door, to: "door.json")
        let runID = "run-0000000001a8"
        #expect(await matterflow(["submit", workflow, "--store", conninfo, "--run-id", runID]).code == 0)
        #expect(await matterflow(["answer", runID, "--store", conninfo, "--secrets", answering, "--answer", "pin=424242"]).code == 0)
        let store = try PostgresRunStore(conninfo: conninfo)
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1", secrets: SecretInbox(directory: workers)))
        let missed = await worker.waitForLine(containing: "the answers to pin are secret and not in this worker's --secrets directory yet")
        #expect(missed, "\(worker.lines)")
        try FileManager.default.copyItem(atPath: answering + "/\(runID).answers", toPath: workers + "/\(runID).answers")
        let summary = try await worker.finish(after: [runID], conninfo: conninfo)
        #expect(summary.finished == ["succeeded": 1], "\(worker.lines)")
    }

    @Test("a run waiting for an answer takes no slot: a worker of concurrency 1 holds two waiting runs, listed by runs --waiting, and the third waits for --max-waiting")
    func waitingRunsTakeNoSlot() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try directory.write(Self.desk, to: "desk.json")
        let runs = ["run-00000000de61", "run-00000000de62", "run-00000000de63"]
        for runID in runs {
            #expect(await matterflow(["submit", workflow, "--store", conninfo, "--run-id", runID]).code == 0)
        }
        let store = try PostgresRunStore(conninfo: conninfo, applicationName: WorkerCommand.applicationName("w1"))
        // What the worker reports after each heartbeat (every second with a 3 s lease), and when it stops.
        let (reports, reported) = AsyncStream.makeStream(of: WorkerMetrics.self)
        var options = WorkerOptions(workerID: "w1", concurrency: 1, maxWaiting: 1, leaseSeconds: 3)
        options.metrics = { reported.yield($0) }
        let worker = TestWorker(store: store, options: options)
        // Two runs wait for their room at once on one slot; the third is left queued, as one more waiting run than
        // the slot would pass --max-waiting.
        #expect(try await Self.waitForRecord("questionAsked", of: runs[0], conninfo: conninfo))
        #expect(try await Self.waitForRecord("questionAsked", of: runs[1], conninfo: conninfo))
        #expect(try store.status(of: runs[2]) == "queued")
        // What a person answering the fleet looks for: a line per question a running run waits for.
        let waiting = await matterflow(["runs", "--store", conninfo, "--waiting"])
        let lines = waiting.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(waiting.stdout)")
        #expect(lines.first?.hasPrefix("RUN") == true)
        for (line, runID) in zip(lines.dropFirst(), runs.prefix(2)) {
            #expect(line.hasPrefix(runID) && line.contains(" desk ") && line.contains(" room ") && line.hasSuffix("Which room?"), "\(line)")
        }
        let waitingJSON = try #require(try parseJSON(await matterflow(["runs", "--store", conninfo, "--waiting", "--json"]).stdout) as? [[String: Any]])
        #expect(waitingJSON.map { $0["runID"] as? String } == runs.prefix(2).map { $0 })
        #expect(await matterflow(["runs", "--journal", directory.path, "--waiting"]).code == 64)
        // The store reads the records of all open runs that asked in one statement: the same as reading each run's.
        let each = try PostgresRunStore.waiting(among: try store.runs()) { run throws(StoreError) in try store.records(of: run.runID) }
        #expect(each.count == 2)
        #expect(try store.waitingRuns().map(\.jsonValue) == each.map(\.jsonValue))
        // Every connection of the worker (its store's, the committer's, the two listeners') carries its ID, so a DBA
        // can tell whose a backend is.
        let named = try store.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'matterflow worker w1' AND datname = current_database()",
            doing: "test")
        #expect(named.rows.first?.first == "4", "\(named.rows)")
        // A monitoring system counts them, and sees how long the oldest question has waited.
        let metrics = try store.metrics()
        #expect(metrics.waitingForAnswer == 2 && metrics.queued == 1 && metrics.running == 2, "\(metrics)")
        #expect(metrics.oldestQuestionAge >= 0 && metrics.oldestQuestionAge < 600, "\(metrics)")
        #expect(metrics.prometheusText.contains("\nmatterflow_runs_waiting_for_answer 2\n"))
        // The worker's own report, from a heartbeat: two runs in its hands, both waiting, none ended yet.
        var iterator = reports.makeAsyncIterator()
        var beat: WorkerMetrics?
        while let report = await iterator.next() {
            if report.waiting == 2 { beat = report; break }
        }
        #expect(beat?.active == 2 && beat?.summary.finished.isEmpty == true && beat?.storeReachable == true, "\(String(describing: beat))")
        // Answering one lets the third in; all end.
        for runID in runs {
            let answered = await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Hall", "--answer", "confirm=no"])
            #expect(answered.code == 0, "\(answered.stderr)")
        }
        let summary = try await worker.finish(after: runs, conninfo: conninfo)
        #expect(summary.finished == ["succeeded": 3], "\(worker.lines)")
        #expect(try store.waitingRuns().isEmpty)
        // The last report is the worker's last word: after every heartbeat's, with nothing left in its hands.
        reported.finish()
        var last: WorkerMetrics?
        while let report = await iterator.next() { last = report }
        #expect(last?.active == 0 && last?.summary.finished == ["succeeded": 3] && (last?.summary.records ?? 0) > 0, "\(String(describing: last))")
        // The third run started only once an answer had been given: before, its slot was held by waiting runs.
        let order = try store.execute(
            """
            SELECT (SELECT started_at FROM matterflow_runs WHERE run_id = $1) > (SELECT min(given_at) FROM matterflow_answers)
            """, [runs[2]], doing: "test")
        #expect(order.rows == [["t"]])
    }

    @Test("an answer the store is sent twice (its commit's reply lost), even while the first holds the run's row, is given once; a claim's number covers its answers")
    func anAnswerSentAgainIsGivenOnce() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try directory.write(Self.desk, to: "desk.json")
        let runID = "run-00000000de71"
        #expect(await matterflow(["submit", workflow, "--store", conninfo, "--run-id", runID]).code == 0)
        let store = try PostgresRunStore(conninfo: conninfo)
        #expect(try store.answer(runID: runID, name: "room", value: "Hall", secret: false, answerID: "answer-1") == "queued")
        #expect(try store.answer(runID: runID, name: "room", value: "Hall", secret: false, answerID: "answer-1") == "queued")
        let given = try store.answers(of: runID, after: 0)
        #expect(given.map(\.name) == ["room"])
        let row = try store.execute("SELECT answered_through, answers::text FROM matterflow_runs WHERE run_id = $1", [runID], doing: "test")
        #expect(row.rows == [[String(given[0].sequence), #"{"room": "Hall"}"#]])

        // Sent again while the first statement still holds the run's row (its reply lost, the store's retry on
        // another connection): still one answer, and no error.
        let first = try PostgresConnection(conninfo)
        defer { first.close() }
        try first.execute("BEGIN")
        try first.execute(PostgresRunStore.answerStatement, [runID, "confirm", "true", "false", "answer-2"])
        let repeated = Task { try await offPool { try store.answer(runID: runID, name: "confirm", value: true, secret: false, answerID: "answer-2") } }
        #expect(await TestPostgres.anotherStatementWaitsForALock(seenFrom: first), "the repeated statement waits for the run's row")
        try first.execute("COMMIT")
        #expect(try await repeated.value == "queued")
        let afterRepeat = try store.answers(of: runID, after: 0)
        #expect(afterRepeat.map(\.name) == ["room", "confirm"])
        #expect(afterRepeat.map(\.value) == ["Hall", true])
        // An answer ID another run's answer has is refused, not taken for a repeat.
        #expect(await matterflow(["submit", workflow, "--store", conninfo, "--run-id", "run-00000000de72"]).code == 0)
        let reused = #expect(throws: StoreError.self) {
            try store.answer(runID: "run-00000000de72", name: "room", value: "Hall", secret: false, answerID: "answer-1")
        }
        #expect(reused?.message.contains("answer ID answer-1 was given to run \(runID) already") == true, "\(reused?.message ?? "")")
        // What a claim hands the worker: the answers and the number of the last, from the same row.
        try store.registerWorker("w1", host: "test", pid: 1, leaseSeconds: 10)
        let claimed = try #require(try store.claim(by: "w1", limit: 1, leaseSeconds: 10).first)
        let through = try store.execute("SELECT answered_through FROM matterflow_runs WHERE run_id = $1", [runID], doing: "test")
        #expect(through.rows.first?.first == String(claimed.answeredThrough))
        #expect(claimed.answeredThrough >= afterRepeat.last?.sequence ?? 0)
        #expect(claimed.answers == ["room": "Hall", "confirm": true])
    }

    @Test("a matterflow worker process on virtual time: a question waits in real time for `matterflow answer`, and the worker's clock is not held")
    func aWorkerProcessOnVirtualTimeWaitsForTheAnswer() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try directory.write(Self.desk, to: "desk.json")
        let asking = "run-00000000de81"
        #expect(await matterflow(["submit", workflow, "--store", conninfo, "--run-id", asking]).code == 0)
        // The default clock with the simulated home is virtual: before, the question timed out at once on it.
        let secrets = directory.file("secrets")
        try FileManager.default.createDirectory(atPath: secrets, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let worker = try ChildProcess.launch(["worker", "--store", conninfo, "--secrets", secrets, "--exit-when-idle", "--worker-id", "p1"])
        defer { worker.kill() }
        #expect(try await Self.waitForRecord("questionAsked", of: asking, conninfo: conninfo))
        // While it waits, a commissioning on the same worker goes through its simulated latencies in virtual time.
        let commissioning = await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--structure", "other",
             "--run-id", "run-00000000de82"] + commissionInputs())
        #expect(commissioning.code == 0, "\(commissioning.stderr)")
        #expect(try await Self.waitForRecord("runFinished", of: "run-00000000de82", conninfo: conninfo))
        let store = try PostgresRunStore(conninfo: conninfo)
        #expect(try store.status(of: "run-00000000de82") == "succeeded")
        #expect(try store.status(of: asking) == "running")
        let answered = await matterflow(["answer", asking, "--store", conninfo, "--answer", "room=1", "--answer", "confirm=no"])
        #expect(answered.code == 0, "\(answered.stderr)")
        #expect(await worker.waitForExit(within: .seconds(60)), "the worker did not finish")
        #expect(worker.status == 0, "\(worker.stderr.text)")
        // The run took both answers, whichever way they reached it (handed to the waiting run, or read at the question).
        let answeredRecords = try store.records(of: asking).filter { $0.type == "answered" }
        #expect(answeredRecords.count == 2, "\(worker.stderr.text)")
        let output = try store.execute("SELECT output::text FROM matterflow_runs WHERE run_id = $1", [asking], doing: "test")
        #expect(output.rows.first?.first == #"{"room": "Kitchen", "sure": false}"#)
    }

    /// Waits (at most `limit`) until the run has `count` records of `type`, woken by the store's notifications. The
    /// wait blocks a thread of its own, never one of the tasks' (in-process workers need those meanwhile).
    static func waitForRecord(
        _ type: String, of runID: String, conninfo: String, count: Int = 1, within limit: Duration = .seconds(60)
    ) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try blockingWaitForRecord(type, of: runID, conninfo: conninfo, count: count, within: limit) })
            }
        }
    }

    private static func blockingWaitForRecord(_ type: String, of runID: String, conninfo: String, count: Int, within limit: Duration) throws -> Bool {
        let store = try PostgresRunStore(conninfo: conninfo)
        let listener = try PostgresConnection(conninfo)
        defer {
            PostgresRunStore.endWatching(runID, on: listener)
            listener.close()
        }
        try listener.listen("matterflow_records")
        try PostgresRunStore.beginWatching(runID, on: listener)
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if try store.records(of: runID).filter({ $0.type == type }).count >= count { return true }
            _ = try listener.notifications(timeoutMilliseconds: 200)
        }
        return false
    }
}

/// A worker in-process on a manual clock (a question waits until answered), on the built-in simulated home, that
/// exits when the store is idle; its log kept.
final class TestWorker: Sendable {
    private final class Log: Sendable {
        let lines = Mutex<[String]>([])
        /// Each line as the worker gave it, with its level and runs.
        let entries = Mutex<[WorkerLogLine]>([])
        /// Each line as logged, for ``waitForLine(containing:within:)``.
        let stream: AsyncStream<String>
        let continuation: AsyncStream<String>.Continuation

        init() {
            (stream, continuation) = AsyncStream<String>.makeStream()
        }
    }

    let worker: StoreWorker
    private let log = Log()
    private let task: Task<WorkerSummary, any Error>

    /// - Parameter virtualTime: Runs and hub on a virtual clock, so hub calls that take time end (on the manual
    ///   clock they wait until the test moves it); questions wait in real time either way.
    /// - Parameter hubs: Where the runs find their hubs (default: the built-in simulated home, on the worker's clock).
    /// - Parameter clock: The runs' clock, for a test that moves it itself (then `virtualTime` does not apply).
    init(
        store: PostgresRunStore, options: WorkerOptions, virtualTime: Bool = false, hubs: StoreWorker.HubProvider? = nil,
        clock: (any WorkflowClock)? = nil
    ) {
        var options = options
        options.exitWhenIdle = true
        let clock: any WorkflowClock = clock ?? (virtualTime ? VirtualClock() : ManualClock())
        options.clock = clock
        let log = log
        options.log = { line in
            log.lines.withLock { $0.append(line.text) }
            log.entries.withLock { $0.append(line) }
            log.continuation.yield(line.text)
        }
        worker = StoreWorker(
            store: store, hubs: hubs ?? { _ in try SimulatedHub(home: HomeDescription.defaultHome, clock: clock) }, options: options)
        task = Task { [worker] in try await worker.run(host: "test", pid: 1) }
    }

    /// The lines it logged so far.
    var lines: [String] { log.lines.withLock { $0 } }

    /// The lines it logged so far, as the worker gave them (level, runs).
    var entries: [WorkerLogLine] { log.entries.withLock { $0 } }

    /// Waits (at most `limit`) until the worker logs a line containing `text`, or has logged one; false if it does
    /// not. For one waiter at a time.
    func waitForLine(containing text: String, within limit: Duration = .seconds(60)) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask { [stream = log.stream] in
                for await line in stream where line.contains(text) { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                return false
            }
            let found = await group.next() ?? false
            group.cancelAll()
            return found
        }
    }

    /// What it did, once it has stopped.
    var summary: WorkerSummary {
        get async throws { try await task.value }
    }

    /// Waits (at most a minute each) for the runs to finish, stopping the worker if one does not (a run that never
    /// hears its answers would wait on the manual clock for ever); then what it did.
    func finish(after runIDs: [String], conninfo: String) async throws -> WorkerSummary {
        for runID in runIDs {
            let finished = try await FleetAnswerTests.waitForRecord("runFinished", of: runID, conninfo: conninfo)
            #expect(finished, "run \(runID) finished within a minute")
            if !finished {
                worker.stop()
                break
            }
        }
        return try await summary
    }
}

extension FleetAnswerTests {
    @Test("a run resumed by the next worker keeps the warnings it gave before and gives after in its notes, each once")
    func warningsAcrossAHandBack() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try directory.write(
            #"""
            {"workflow": "warned", "version": 1, "start": "early", "states": {
              "early": {"type": "assign", "warning": "the early warning", "next": "room"},
              "room": {"type": "ask", "prompt": "Which room?", "answer": {"choice": {"from": ["Kitchen", "Hall"]}},
                       "result": "room", "timeoutSeconds": 300, "next": "late", "onTimeout": "done"},
              "late": {"type": "assign", "warning": "the late warning", "next": "done"},
              "done": {"type": "succeed"}
            }}
            """#, to: "warned.json")
        let runID = "run-00000000a5e1"
        #expect(await matterflow(["submit", workflow, "--store", conninfo, "--run-id", runID]).code == 0)
        let store = try PostgresRunStore(conninfo: conninfo)
        let options = WorkerOptions(workerID: "w1", leaseSeconds: 2, drainSeconds: 120)
        let first = TestWorker(store: store, options: options)
        #expect(try await Self.waitForRecord("questionAsked", of: runID, conninfo: conninfo))
        first.worker.stop()
        #expect(try await first.summary.handedBack == 1, "\(first.lines)")
        var next = options
        next.workerID = "w2"
        let second = TestWorker(store: store, options: next)
        #expect(try await Self.waitForRecord("questionAsked", of: runID, conninfo: conninfo, count: 2))
        #expect(await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Hall"]).code == 0)
        let summary = try await second.finish(after: [runID], conninfo: conninfo)
        #expect(summary.finished == ["succeeded": 1], "\(second.lines)")
        let listed = try JSONDocument.parse(await matterflow(["runs", "--store", conninfo, "--json"]).stdout, file: "<out>").value
        let notes = listed.arrayValue?.first?["notes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(notes.filter { $0.hasPrefix("warning: ") } == ["warning: the early warning", "warning: the late warning"], "\(notes)")
    }
}
