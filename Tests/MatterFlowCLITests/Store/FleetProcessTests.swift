import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
@testable import MatterFlowStore
import MatterPayload
import TestGates
import Testing

/// `matterflow worker` processes sharing a queue in PostgreSQL, killed with SIGKILL and with the server restarted
/// under them. Part of the serialized PostgreSQL suite: the restart must not hit the other tests' connections.
extension PostgresStoreTests {
    /// Writes `home.json` in `directory`: a home whose hub takes real time, so kills land in the middle of runs;
    /// `latencies` (seconds by operation) set some operations' times besides the usual ones. Returns its path.
    static func slowHome(in directory: TemporaryDirectory, latencies: [String: Double] = [:]) throws -> String {
        let usual = ["prepareCommissioning": 0.02, "commissionDevice": 0.05, "configureDevice": 0.02, "completeCommissioning": 0.02]
        let times = usual.merging(latencies) { _, set in set }.sorted { $0.key < $1.key }.map { "\"\($0.key)\": \($0.value)" }
        return try directory.write(
            #"""
            { "version": 1, "structure": { "id": "seed", "name": "Fleet Home" }, "hub": { "online": true, "reachable": true },
              "permissionGranted": true, "rooms": [ { "id": "room-kitchen", "name": "Kitchen" } ], "devices": [], "seed": 7,
              "simulation": { "latencySeconds": { \#(times.joined(separator: ", ")) } } }
            """#, to: "home.json")
    }

    /// The files of runs in a secrets directory: all but the key of the runs' secret digests, which stays.
    static func runFiles(in secrets: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: secrets).filter { $0 != SecretDigestKey.fileName }.sorted()
    }

    /// The directory of the secrets workers read (`--secrets`), made in `directory`.
    static func secretsDirectory(in directory: TemporaryDirectory, named name: String = "secrets") throws -> String {
        let secrets = directory.file(name)
        try FileManager.default.createDirectory(atPath: secrets, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return secrets
    }

    @Test("a worker killed while commissioning: another settles its run within the lease; nothing stays held")
    func takeoverAfterKill() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try Self.slowHome(in: directory, latencies: ["commissionDevice": 30])
        let state = directory.file("state")
        let secrets = try Self.secretsDirectory(in: directory)
        let submitted = await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--structure", "home-a"]
                + commissionInputs())
        let runID = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let store = try PostgresRunStore(conninfo: conninfo)

        let first = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--home", home, "--state", state, "--secrets", secrets, "--clock", "real",
             "--lease", "1", "--worker-id", "doomed"])
        defer { first.kill() }
        let commissioning = await first.signal(SIGKILL, within: .seconds(60)) {
            store.hasIntent(of: "commissionDevice", run: runID)
        }
        let killed = try #require(commissioning, "the run never reached commissionDevice; worker said:\n\(first.stderr.text)")
        try #require(await first.waitForExit(), "the killed worker did not go")
        #expect(try store.status(of: runID) == "running")

        let second = try ChildProcess.launch(
            ["worker", "--store", conninfo, "--home", home, "--state", state, "--secrets", secrets, "--clock", "real",
             "--lease", "1", "--exit-when-idle", "--worker-id", "rescuer"])
        defer { second.kill() }
        try #require(await second.waitForExit(within: .seconds(60)), "the second worker did not finish")
        #expect(second.status == 0, "\(second.stderr.text)")
        // Killed just after the call began: settled before the killed worker's 30 s call would have ended.
        #expect(ContinuousClock.now - killed < .seconds(28))
        // The line names the dead worker: the one an on-call engineer looks for next.
        #expect(second.stderr.text.contains("settling run \(runID) (worker doomed's lease ran out)"), "\(second.stderr.text)")

        let run = try #require(try store.runs().first { $0.runID == runID })
        #expect(run.status == "cancelled")
        #expect(run.recovered)
        let records = try store.records(of: runID)
        let types = records.map(\.type)
        // The final status carries the error of recovery's runFinished, as the run's record keeps it (the same
        // members; the run's row, jsonb, orders them its own way, the record keeps the order it was written in).
        let finished = try #require(records.last { $0.type == "runFinished" })
        #expect(run.error != nil && sameJSON(run.error, finished.payload["error"]), "\(String(describing: run.error))")
        #expect(run.error?["code"]?.stringValue == "cancelled" && run.error?["state"]?.stringValue != nil)
        // Why, as the fleet knows it: the rescuer saw a lease run out, not a process stop.
        #expect(
            run.error?["message"]?.stringValue?.contains(
                "(its worker's lease ran out: the worker stopped, or could not reach the store for longer than its lease); recovery took") == true,
            "\(String(describing: run.error))")
        #expect(types.contains("recoveryStarted"))
        #expect(types.contains("resolution"))
        #expect(types.last == "recoveryFinished")
        #expect(try store.sessions().isEmpty)
        let saved = try #require(try HomeStateStore.loadSaved(directory: state + "/home-a"))
        #expect(saved.activeSession == nil)
        #expect(saved.devices.isEmpty)
    }

    @Test("3 workers, 300 runs on 50 structures, 2 workers SIGKILLed at seeded moments, PostgreSQL restarted mid-load")
    func fleetUnderFire() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try Self.slowHome(in: directory)
        let state = directory.file("state")
        let secrets = SecretInbox(directory: directory.file("secrets"))
        try FileManager.default.createDirectory(atPath: secrets.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let store = try PostgresRunStore(conninfo: conninfo)
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        var device = try #require(try OnboardingPayload.parse(Payloads.specQR).first)
        for index in 0..<300 {
            let runID = String(format: "run-fleet-%03d", index)
            // A device of its own per run (the home refuses a device it already has).
            device.discriminator = .long(UInt16(index / 50 + 1))
            let payload = try device.qrCode()
            try secrets.put(["onboardingPayload": .string(payload)], runID: runID)
            _ = try store.submit(
                workflow,
                inputs: ["onboardingPayload": .string(payload), "deviceName": .string("Lamp \(index)"), "roomName": .string("Kitchen")],
                structureID: "home-\(index % 50)", runID: runID)
        }

        var random = SeededRandom(seed: 0x5EED_F1EE7)
        let killAt = [random.next(in: 30...90), random.next(in: 130...190)]
        let restartAt = random.next(in: 100...120)
        var workers: [ChildProcess] = []
        defer { for worker in workers { worker.kill() } }
        for name in ["w1", "w2", "w3"] {
            workers.append(
                try ChildProcess.launch(
                    ["worker", "--store", conninfo, "--home", home, "--state", state, "--secrets", secrets.directory,
                     "--clock", "real", "--lease", "8", "--concurrency", "8", "--exit-when-idle", "--worker-id", name]))
        }
        var killedPIDs: Set<Int> = []
        var restarted = false
        let deadline = ContinuousClock.now + .seconds(150)
        while ContinuousClock.now < deadline {
            let done = (try? store.execute(
                "SELECT count(*) FROM matterflow_runs WHERE status NOT IN ('queued', 'running')", doing: "test"))?
                .rows.first?.first.flatMap { $0.flatMap { Int($0) } } ?? 0
            if killedPIDs.count < killAt.count, done >= killAt[killedPIDs.count] {
                let victim = workers[killedPIDs.count]
                victim.signal(SIGKILL)
                killedPIDs.insert(Int(victim.process.processIdentifier))
            }
            if !restarted, done >= restartAt {
                try TestPostgres.restart()
                restarted = true
            }
            if workers.allSatisfy({ !$0.process.isRunning }) { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        let survivor = workers[2]
        try #require(await survivor.waitForExit(within: .seconds(5)), "the fleet did not finish in time; survivor said:\n\(survivor.stderr.text.suffix(3000))")
        #expect(survivor.status == 0, "\(survivor.stderr.text.suffix(3000))")
        #expect(killedPIDs.count == 2)
        #expect(restarted)

        // Every run ended with a known status.
        let runs = try store.runs()
        #expect(runs.count == 300)
        let statuses = Dictionary(grouping: runs, by: \.status).mapValues(\.count)
        #expect(Set(statuses.keys).isSubset(of: ["succeeded", "failed", "cancelled"]), "statuses: \(statuses)")
        for run in runs where !["succeeded", "failed", "cancelled"].contains(run.status) {
            Issue.record("run \(run.runID) is \(run.status): \(run.notes)")
        }
        #expect((statuses["succeeded"] ?? 0) > 150, "statuses: \(statuses)")
        #expect(runs.contains { $0.recovered }, "no run was taken over")
        // No structure keeps a session, in the store or in any home.
        for (structure, holder) in try store.sessions() {
            let tail = try store.records(of: holder).suffix(12).map { record -> String in
                "\(record.type) \(record.string("operation") ?? "") \(record.string("verdict") ?? "")"
            }
            let status = runs.first { $0.runID == holder }?.status ?? "?"
            Issue.record("structure \(structure) keeps the fleet's session of run \(holder) (\(status)): \(tail.joined(separator: ", "))")
        }
        var created = Set<String>()
        for run in runs {
            let records = try store.records(of: run.runID)
            #expect(records.map(\.sequence) == Array(1...records.count), "run \(run.runID) has gaps")
            #expect(records.filter { $0.type == JournalEntry.Kind.runStarted.rawValue }.count == 1, "run \(run.runID)")
            #expect(records.filter { $0.type == JournalEntry.Kind.runFinished.rawValue }.count == 1, "run \(run.runID) (\(run.status)): \(records.suffix(8).map(\.type))")
            for record in records {
                created.formUnion(record.payload["devices"]?.arrayValue?.compactMap(\.stringValue) ?? [])
                created.formUnion(record.payload["result"]?["deviceIDs"]?.arrayValue?.compactMap(\.stringValue) ?? [])
            }
            // No run was claimed by two live workers: every process that wrote it but the last was killed.
            let writers = records.filter { $0.type == JournalEntry.Kind.runStarted.rawValue || $0.type == JournalEntry.Kind.recoveryStarted.rawValue }
                .compactMap { $0.payload["pid"]?.intValue }
            for pid in writers.dropLast() where pid != writers.last {
                #expect(killedPIDs.contains(pid), "run \(run.runID) was written by live workers \(writers)")
            }
        }
        for index in 0..<50 {
            guard let saved = try HomeStateStore.loadSaved(directory: state + "/home-\(index)") else { continue }
            #expect(saved.activeSession == nil, "home-\(index) keeps a session")
            for device in saved.devices {
                #expect(created.contains(device.id), "device \(device.id) in home-\(index) has no journal record")
            }
        }
    }
}

/// The test's seeded random moments: a number in a range, from ``SeededGenerator``'s words.
struct SeededRandom {
    var generator: SeededGenerator

    init(seed: UInt64) { generator = SeededGenerator(seed: seed) }

    mutating func next(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(generator.next() % UInt64(range.count))
    }
}
