import Foundation
import MatterFlow
import MatterFlowJSON
import MatterPayload
@testable import MatterFlowStore
import Testing

/// Runs that work in a structure's commissioning session start one at a time per structure across the fleet.
extension PostgresStoreTests {
    @Test("a queued run that works in its structure's session waits while another of the structure runs or was queued before it; other runs do not wait")
    func sessionRunsTakeTurnsPerStructure() throws {
        let store = try PostgresRunStore(conninfo: try TestPostgres.database())
        let engine = WorkflowEngine()
        let prepare = try engine.load(path: Repository.workflow("prepare"))
        let commission = try engine.load(path: Repository.workflow("commission-device"))
        let info = try engine.load(path: Repository.workflow("border-router-info"))
        let device: JSONObject = ["onboardingPayload": .string(Payloads.specQR), "deviceName": "Lamp", "roomName": "Kitchen"]
        _ = try store.submit(prepare, inputs: [:], structureID: "s1", runID: "run-turn-1")
        _ = try store.submit(commission, inputs: device, structureID: "s1", runID: "run-turn-2")
        _ = try store.submit(info, inputs: [:], structureID: "s1", runID: "run-turn-3")
        _ = try store.submit(prepare, inputs: [:], structureID: "s2", runID: "run-turn-4")
        // A run queued before the store knew what its workflow does is taken to work in the session.
        _ = try store.submit(info, inputs: [:], structureID: "s3", runID: "run-turn-5")
        try store.execute("UPDATE matterflow_runs SET works_in_session = NULL WHERE run_id = 'run-turn-5'", doing: "test")
        _ = try store.submit(prepare, inputs: [:], structureID: "s3", runID: "run-turn-6")

        let first = try store.claim(by: "w1", limit: 10, leaseSeconds: 60).map(\.runID)
        #expect(first == ["run-turn-1", "run-turn-3", "run-turn-4", "run-turn-5"])
        #expect(try store.claim(by: "w2", limit: 10, leaseSeconds: 60).isEmpty)
        // The structure's turn passes when its run ends, whatever worker claims next.
        try store.execute("UPDATE matterflow_runs SET status = 'succeeded' WHERE run_id IN ('run-turn-1', 'run-turn-5')", doing: "test")
        #expect(try store.claim(by: "w2", limit: 10, leaseSeconds: 60).map(\.runID) == ["run-turn-2", "run-turn-6"])
    }

    @Test("a run handed back unstarted (its secrets or hub elsewhere) keeps its structure's turn: the next is not claimed beside its takeover")
    func handedBackRunKeepsItsTurn() throws {
        let store = try PostgresRunStore(conninfo: try TestPostgres.database())
        let prepare = try WorkflowEngine().load(path: Repository.workflow("prepare"))
        _ = try store.submit(prepare, inputs: [:], structureID: "s1", runID: "run-turn-a")
        _ = try store.submit(prepare, inputs: [:], structureID: "s1", runID: "run-turn-b")
        #expect(try store.claim(by: "w1", limit: 10, leaseSeconds: 60).map(\.runID) == ["run-turn-a"])
        #expect(try store.handBack(["run-turn-a"], by: "w1", hubFailure: true) == ["run-turn-a"])
        let next = try store.claim(by: "w2", limit: 10, leaseSeconds: 60)
        #expect(next.map(\.runID) == ["run-turn-a"])
        #expect(next.first?.takeover == true)
    }

    @Test("with --exit-when-idle, a worker without --secrets is idle when all it could claim waits behind a run with secrets on its structure")
    func idleBehindASecretRun() throws {
        let store = try PostgresRunStore(conninfo: try TestPostgres.database())
        let engine = WorkflowEngine()
        let commission = try engine.load(path: Repository.workflow("commission-device"))
        let prepare = try engine.load(path: Repository.workflow("prepare"))
        let device: JSONObject = ["onboardingPayload": .string(Payloads.specQR), "deviceName": "Lamp", "roomName": "Kitchen"]
        _ = try store.submit(commission, inputs: device, structureID: "s1", runID: "run-turn-x")
        _ = try store.submit(prepare, inputs: [:], structureID: "s1", runID: "run-turn-y")
        #expect(try store.isIdle(takesSecrets: false))
        #expect(try store.claim(by: "w1", limit: 10, leaseSeconds: 60, takesSecrets: false).isEmpty)
        #expect(try !store.isIdle(takesSecrets: true))
        // Elsewhere, a run it can claim counts.
        _ = try store.submit(prepare, inputs: [:], structureID: "s2", runID: "run-turn-z")
        #expect(try !store.isIdle(takesSecrets: false))
    }

    @Test("a batch of commissionings into one structure, queued at once for two workers: each device is commissioned in turn, in the order queued, none fails sessionBusy")
    func oneStructureBatch() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = SecretInbox(directory: directory.file("secrets"))
        try FileManager.default.createDirectory(atPath: secrets.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let store = try PostgresRunStore(conninfo: conninfo)
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        var device = try #require(try OnboardingPayload.parse(Payloads.specQR).first)
        let runIDs = (1...8).map { String(format: "run-batch-%02d", $0) }
        for (index, runID) in runIDs.enumerated() {
            // A device of its own per run: the home refuses one it already has.
            device.discriminator = .long(UInt16(100 + index))
            let payload = try device.qrCode()
            try secrets.put(["onboardingPayload": .string(payload)], runID: runID)
            _ = try store.submit(
                workflow, inputs: ["onboardingPayload": .string(payload), "deviceName": .string("Lamp \(index)"), "roomName": "Kitchen"],
                structureID: "line", runID: runID)
        }
        let state = directory.file("state")
        let worker = ["worker", "--store", conninfo, "--state", state, "--secrets", secrets.directory, "--exit-when-idle"]
        async let one = matterflowVirtual(worker + ["--worker-id", "w1"])
        async let two = matterflowVirtual(worker + ["--worker-id", "w2"])
        let (first, second) = await (one, two)
        #expect(first.code == 0 && second.code == 0, "\(first.stderr)\n\(second.stderr)")

        let runs = try store.runs().filter { runIDs.contains($0.runID) }
        #expect(runs.count == runIDs.count)
        for run in runs where run.status != "succeeded" {
            Issue.record("run \(run.runID) is \(run.status): \(run.error.map { JSONWriter.compact($0) } ?? "")")
        }
        let started = runs.sorted { ($0.startedAt ?? 0, $0.runID) < ($1.startedAt ?? 0, $1.runID) }.map(\.runID)
        #expect(started == runIDs)
        #expect(try store.sessions().isEmpty)
    }
}

extension PostgresStoreTests {
    @Test("the end of a run that worked in its structure's session wakes idle workers when another run of the structure waits for its turn; other ends, while runs are queued, wake nobody")
    func aFreedTurnWakesIdleWorkers() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let prepare = try WorkflowEngine().load(path: Repository.workflow("prepare"))
        let info = try WorkflowEngine().load(path: Repository.workflow("border-router-info"))
        _ = try store.submit(prepare, inputs: [:], structureID: "s1", runID: "run-wake-1")
        _ = try store.submit(info, inputs: [:], structureID: "s2", runID: "run-wake-2")
        _ = try store.submit(prepare, inputs: [:], structureID: "s1", runID: "run-wake-3")
        _ = try store.submit(prepare, inputs: [:], structureID: "s3", runID: "run-wake-4")
        #expect(try store.claim(by: "me", limit: 10, leaseSeconds: 60).map(\.runID) == ["run-wake-1", "run-wake-2", "run-wake-4"])
        let listener = try PostgresConnection(conninfo)
        defer { listener.close() }
        try listener.listen("matterflow_queue")
        // The notifications an end sent: those that arrive before a marker sent after its commit.
        func finish(_ runID: String) throws -> [String] {
            let conclusion = RunConclusion(runID: runID, status: "succeeded", output: nil, error: nil, recovered: false, notes: [], claims: 1)
            _ = try Self.performInOneBatch([.finish(conclusion, release: nil)], conninfo: conninfo)
            try store.execute("SELECT pg_notify('matterflow_queue', 'marker')", doing: "test")
            var payloads: [String] = []
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline {
                payloads += try listener.notifications(timeoutMilliseconds: 500).filter { $0.channel == "matterflow_queue" }.map(\.payload)
                if let marker = payloads.firstIndex(of: "marker") { return Array(payloads[..<marker]) }
            }
            Issue.record("the marker never came: \(payloads)")
            return payloads
        }
        // run-wake-3 waits for s1's turn: ends of runs of other structures (one leaving the session alone) wake nobody.
        #expect(try finish("run-wake-2") == [])
        #expect(try finish("run-wake-4") == [])
        // The end of s1's session run frees its turn for run-wake-3.
        #expect(try finish("run-wake-1") == ["finished"])
        #expect(try store.claim(by: "other", limit: 10, leaseSeconds: 60).map(\.runID) == ["run-wake-3"])
    }
}
