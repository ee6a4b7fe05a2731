import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
import Testing

/// A crash, simulated in-process: a journaled commission-device run whose hub saves to a state directory; at the
/// chosen journal boundary the hook copies `home.json` aside. Afterwards the journal is cut back to that boundary
/// and the copy restored, so journal and hub are exactly as a process killed there would have left them.
struct CrashScenario {
    let scratch: Scratch
    var journalDirectory: String { scratch.file("journal") }
    var stateDirectory: String { scratch.file("state") }
    let runID: String
    /// The journal's record count in the complete run.
    let totalRecords: Int

    static let runID = "run-00000000c0de"

    /// - Parameter cancelOnEntering: Cancels the run when it enters this state (`workflow/path:state`), so the
    ///   crash can come on its cancel path.
    init(
        position: JournalBoundary.Position, sequence: Int, home: HomeDescription = Homes.basic(),
        workflowPath: String = Repository.workflow("commission-device"), cancelOnEntering: String? = nil,
        recordsHome: Bool = false, remoteHub: RemoteHubIdentity? = nil
    ) async throws {
        scratch = try Scratch()
        runID = Self.runID
        let stateDirectory = scratch.file("state")
        let saved = scratch.file("home-at-crash.json")
        let homePath = stateDirectory + "/" + HomeStateStore.fileName
        let hook: JournalTestHook = { boundary in
            if boundary.position == position, boundary.sequence == sequence {
                try? FileManager.default.removeItem(atPath: saved)
                if FileManager.default.fileExists(atPath: homePath) { try? FileManager.default.copyItem(atPath: homePath, toPath: saved) }
            }
            return .proceed
        }
        let clock = VirtualClock()
        let hub = try SimulatedHub(stateStore: try HomeStateStore(directory: stateDirectory, startingFrom: home), clock: clock)
        var journal = try RunJournal(directory: scratch.file("journal"))
        if recordsHome { journal.homeDirectory = stateDirectory }
        journal.remoteHub = remoteHub
        let workflow = try WorkflowEngine().load(path: workflowPath)
        let started = Mutex<RunHandle?>(nil)
        var observer: (@Sendable (RunEvent) -> Void)?
        if let target = cancelOnEntering {
            observer = { @Sendable (event: RunEvent) -> Void in
                guard case .stateEntered(let state, _) = event.kind else { return }
                let qualified: String = event.workflowPath.joined(separator: "/") + ":" + state
                if qualified == target { started.withLock { $0 }?.cancel() }
            }
        }
        let hold = ClockHold(clock)
        let handle = try journal.start(
            workflow, inputs: ["onboardingPayload": .string(Payloads.specQR), "deviceName": "Lamp", "roomName": "Kitchen"],
            on: hub, options: RunOptions(structureID: Homes.structureID, clock: clock, runID: Self.runID, observer: observer),
            testHook: hook)
        started.withLock { $0 = handle }
        _ = await handle.result
        hold.release()
        let path = journal.path(of: Self.runID)
        totalRecords = try JournalReader.read(path: path).records.count
        try cut(path, after: position == .before ? sequence - 1 : sequence)
        try? FileManager.default.removeItem(atPath: homePath)
        if FileManager.default.fileExists(atPath: saved) { try FileManager.default.copyItem(atPath: saved, toPath: homePath) }
    }

    func journal() throws -> RunJournal { try RunJournal(directory: journalDirectory) }

    /// A fresh hub on the state directory (another process).
    func hub(home: HomeDescription = Homes.basic(), clock: VirtualClock = VirtualClock()) throws -> SimulatedHub {
        try SimulatedHub(stateStore: try HomeStateStore(directory: stateDirectory, startingFrom: home), clock: clock)
    }

    /// Recovers on a fresh hub; the runs recovery continues share the hub's virtual clock.
    func recover(
        resume: Bool = false, inputs: JSONObject = [:], testHook: JournalTestHook? = nil, keepsRunsItCannotResume: Bool = false
    ) async throws -> RecoveryReport {
        let clock = VirtualClock()
        let hub = try hub(clock: clock)
        var options = RecoveryOptions(resume: resume, inputs: inputs, clock: clock, testHook: testHook)
        options.keepsRunsItCannotResume = keepsRunsItCannotResume
        return try await journal().recover(on: hub, options: options)
    }

    func savedHome() throws -> HomeDescription? { try HomeStateStore.loadSaved(directory: stateDirectory) }

    func bytes() throws -> (journal: [UInt8], home: [UInt8]) {
        let home = (try? JournalFile.readAll(stateDirectory + "/" + HomeStateStore.fileName)) ?? []
        return (try JournalFile.readAll(try journal().path(of: runID)), home)
    }
}

@Suite("recovery")
struct RecoveryTests {

    /// The records of the complete run.
    static func completeRecords() async throws -> [JournalRecord] {
        let scenario = try await CrashScenario(position: .after, sequence: 1_000)
        defer { scenario.scratch.remove() }
        return try JournalReader.read(path: try scenario.journal().path(of: scenario.runID)).records
    }

    static func recordCount() async throws -> Int { try await completeRecords().count }

    /// The sequence number of the record of a type for an operation.
    static func sequence(of type: String, _ operation: String) async throws -> Int {
        try #require(try await completeRecords().first { $0.type == type && $0.string("operation") == operation }).sequence
    }

    @Test("a crash at every journal boundary of commission-device: recovery settles it, and again changes nothing")
    func everyBoundary() async throws {
        let total = try await Self.recordCount()
        #expect(total > 30)
        for sequence in 1...total {
            for position in [JournalBoundary.Position.before, .after] {
                let scenario = try await CrashScenario(position: position, sequence: sequence)
                defer { scenario.scratch.remove() }
                let label = "\(position):\(sequence)"
                let report = try await scenario.recover()
                let run = try #require(report.runs.first, "\(label)")
                #expect(!report.needsAttention, "\(label): \(run.notes)")
                #expect([.recovered, .alreadyFinished, .notStarted].contains(run.action), "\(label): \(run.action)")

                let contents = try JournalReader.read(path: try scenario.journal().path(of: scenario.runID))
                #expect(contents.tornTail == nil && contents.problems.isEmpty, "\(label)")
                let status = try #require(try scenario.journal().runs().first).status
                #expect([.succeeded, .cancelled, .notStarted].contains(status), "\(label): final status \(status)")

                let home = try scenario.savedHome()
                #expect(home?.activeSession == nil, "\(label): a session was left active")
                let created = Set(
                    contents.records.flatMap { $0.payload["devices"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
                        + contents.records.flatMap { $0.payload["result"]?["deviceIDs"]?.arrayValue?.compactMap(\.stringValue) ?? [] })
                for device in home?.devices ?? [] {
                    #expect(created.contains(device.id), "\(label): device \(device.id) has no journal record of its creation")
                }
                if run.action == .recovered {
                    #expect(contents.records.last?.type == JournalEntry.Kind.recoveryFinished.rawValue, "\(label)")
                }

                let before = try scenario.bytes()
                let again = try await scenario.recover()
                #expect(again.recovered.isEmpty, "\(label)")
                let after = try scenario.bytes()
                #expect(before.journal == after.journal, "\(label): recovering twice changed the journal")
                #expect(before.home == after.home, "\(label): recovering twice changed the home")
            }
        }
    }

    @Test("an in-doubt commissionDevice that took effect: the pending device is journaled and removed")
    func inDoubtCommission() async throws {
        let outcome = try await Self.sequence(of: JournalEntry.Kind.outcome.rawValue, "commissionDevice")
        var found = false
        for sequence in [outcome] {
            let scenario = try await CrashScenario(position: .before, sequence: sequence)
            defer { scenario.scratch.remove() }
            let contents = try JournalReader.read(path: try scenario.journal().path(of: scenario.runID))
            guard let last = contents.records.last, last.type == JournalEntry.Kind.intent.rawValue,
                last.string("operation") == "commissionDevice"
            else { continue }
            // The crash came after the hub commissioned the device and before the outcome was written.
            let pending = try #require(try scenario.savedHome()?.activeSession?.deviceIDs)
            #expect(pending.count == 1)
            let run = try #require(try await scenario.recover().runs.first)
            let resolution = try #require(run.resolutions.first)
            #expect(resolution.operation == "commissionDevice")
            #expect(resolution.verdict == .applied)
            #expect(resolution.devices == pending)
            #expect(run.releasedSession)
            #expect(run.status == .cancelled)
            #expect(try scenario.savedHome()?.devices.map(\.id).contains(pending[0]) == false)
            found = true
        }
        #expect(found)
    }

    @Test("an in-doubt completion that took effect: succeeded, with or without --resume (no cancel path undoes it)")
    func inDoubtCompletion() async throws {
        let outcome = try await Self.sequence(of: JournalEntry.Kind.outcome.rawValue, "completeCommissioning")
        for resume in [false, true] {
            var found = false
            for sequence in [outcome] {
                let scenario = try await CrashScenario(position: .before, sequence: sequence)
                defer { scenario.scratch.remove() }
                let contents = try JournalReader.read(path: try scenario.journal().path(of: scenario.runID))
                guard contents.records.last?.string("operation") == "completeCommissioning",
                    contents.records.last?.type == JournalEntry.Kind.intent.rawValue
                else { continue }
                let run = try #require(try await scenario.recover(resume: resume).runs.first)
                let resolution = try #require(run.resolutions.first)
                #expect(resolution.verdict == .applied)
                #expect(resolution.devices.count == 1)
                #expect(run.releasedSession == false)
                #expect(run.status == .succeeded, "\(run.notes)")
                #expect(run.resumed == resume)
                #expect(try scenario.savedHome()?.devices.map(\.id).contains(resolution.devices[0]) == true)
                found = true
            }
            #expect(found)
        }
    }

    @Test("another client's session is never released")
    func foreignSession() async throws {
        // Crash right after prepare's intent: the hub never saw the call; then another client prepares.
        let intent = try await Self.sequence(of: JournalEntry.Kind.intent.rawValue, "prepareCommissioning")
        for sequence in [intent] {
            let scenario = try await CrashScenario(position: .after, sequence: sequence)
            defer { scenario.scratch.remove() }
            let contents = try JournalReader.read(path: try scenario.journal().path(of: scenario.runID))
            guard contents.records.last?.string("operation") == "prepareCommissioning",
                contents.records.last?.type == JournalEntry.Kind.intent.rawValue
            else { continue }
            let other = try scenario.hub()
            let context = HubCallContext(runID: "run-other-client", idempotencyKey: "run-other-client/1")
            let session = try await HubCallContext.$current.withValue(context) {
                try await other.prepareCommissioning(structure: Homes.structureID)
            }
            let run = try #require(try await scenario.recover().runs.first)
            #expect(run.resolutions.first?.verdict == .notApplied)
            #expect(run.releasedSession == false)
            #expect(run.status == .cancelled)
            #expect(try scenario.savedHome()?.activeSession?.sessionID == session)
            #expect(try scenario.savedHome()?.activeSession?.owner == "run-other-client")
            return
        }
        Issue.record("no boundary right after prepare's intent")
    }

    @Test("a directory that cannot be listed is a problem that needs attention, not a report of nothing to do")
    func unlistableDirectory() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let journal = try RunJournal(directory: scratch.file("journal"))
        try FileManager.default.removeItem(atPath: scratch.file("journal"))
        let report = await journal.recover(on: try SimulatedHub(home: Homes.basic(), clock: VirtualClock()))
        #expect(report.runs.isEmpty)
        #expect(report.needsAttention)
        #expect(report.problem?.hasPrefix("cannot list the journal directory: ") == true)
        #expect(report.problem?.contains(scratch.file("journal")) == true, "\(report.problem ?? "")")
        #expect(report.jsonValue["problem"] == report.problem.map(JSONValue.string))
    }

    @Test("recovery does not write through a symbolic link in the directory; reading a run by an ID that is no run's finds nothing")
    func symbolicLinksAreNotFollowed() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let journal = try RunJournal(directory: scratch.file("journal"))
        try FileManager.default.createDirectory(atPath: scratch.file("victim"), withIntermediateDirectories: true)
        let victim = scratch.file("victim/run-x.journal")
        try Data("not a journal, and not to be touched\n".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.createSymbolicLink(atPath: journal.path(of: "run-x"), withDestinationPath: victim)
        let report = await journal.recover(on: try SimulatedHub(home: Homes.basic(), clock: VirtualClock()))
        #expect(report.runs.map(\.action) == [.unreadable])
        #expect(report.runs.first?.notes.contains { $0.contains("is a symbolic link") } == true, "\(report.runs.first?.notes ?? [])")
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "not a journal, and not to be touched\n")
        #expect(throws: JournalError.self) { try journal.read(runID: "../victim/run-x") }
        #expect(journal.run("../victim/run-x") == nil)
    }

    @Test("a torn last record is cut off and recorded before recovery writes")
    func tornTail() async throws {
        let scenario = try await CrashScenario(position: .after, sequence: 20)
        defer { scenario.scratch.remove() }
        let path = try scenario.journal().path(of: scenario.runID)
        let half = JournalFrame.encode(["seq": 21, "type": "stateEntered", "state": "torn"])
        try cut(path, after: 20, appending: Array(half.prefix(half.count / 2)))
        #expect(try JournalReader.read(path: path).tornTail != nil)
        #expect(try scenario.journal().runs().first?.notes.first?.contains("torn") == true)
        let run = try #require(try await scenario.recover().runs.first)
        #expect(run.action == .recovered)
        let contents = try JournalReader.read(path: path)
        #expect(contents.tornTail == nil && contents.problems.isEmpty)
        let discarded = try #require(contents.records(JournalEntry.Kind.tornTailDiscarded.rawValue).first)
        #expect(discarded.sequence == 21)
        #expect(discarded.payload["length"]?.intValue == half.count / 2)
    }

    @Test("a run whose process is alive is left alone")
    func liveRun() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var home = Homes.basic()
        home.simulation.latencySeconds = [.commissionDevice: 60]
        let clock = ManualClock()
        let hub = try SimulatedHub(home: home, clock: clock)
        let journal = try RunJournal(directory: scratch.path)
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        let handle = try journal.start(
            workflow, inputs: ["onboardingPayload": .string(Payloads.specQR), "deviceName": "Lamp"], on: hub,
            options: RunOptions(structureID: Homes.structureID, clock: clock, runID: "run-0000000a11fe"))
        // The commissioning call in flight: its timeout's timer and the hub's latency. One sleeper alone may be the
        // timer of an earlier call that has not ended yet, while the run still writes its journal.
        await clock.waitForSleepers(2)
        let path = journal.path(of: "run-0000000a11fe")
        let before = try JournalFile.readAll(path)
        let report = await journal.recover(on: hub)
        #expect(report.runs.first?.action == .running)
        #expect(try JournalFile.readAll(path) == before)
        #expect(try journal.runs().first?.status == .running)
        handle.cancel()
        #expect(await handle.result.outcome == .cancelled)
        #expect(try journal.runs().first?.status == .cancelled)
    }

    @Test("a hub that cannot be read defers recovery; a later recovery settles the run")
    func deferred() async throws {
        let scenario = try await CrashScenario(position: .after, sequence: 20)
        defer { scenario.scratch.remove() }
        let elsewhere = try SimulatedHub(
            home: HomeDescription(structure: .init(id: "somewhere-else", name: "Elsewhere")), clock: VirtualClock())
        let report = try await scenario.journal().recover(on: elsewhere)
        #expect(report.needsAttention)
        #expect(report.runs.first?.action == .deferred)
        #expect(report.runs.first?.notes.last?.contains("could not be read") == true)
        #expect(try scenario.journal().runs().first?.status == .needsAttention)
        #expect(try scenario.savedHome()?.activeSession != nil)

        let settled = try await scenario.recover()
        #expect(settled.runs.first?.action == .recovered)
        #expect(try scenario.savedHome()?.activeSession == nil)
        #expect(try scenario.journal().runs().first?.status == .cancelled)
    }

    @Test("a recovery after one that stopped on its cancel path (the hub offline) names where the run itself was interrupted, not where that cancel path stopped")
    func interruptedWhereTheRunStopped() async throws {
        let scenario = try await CrashScenario(position: .after, sequence: 20)
        defer { scenario.scratch.remove() }
        let offline = try scenario.hub()
        try await offline.setOnline(false, structure: Homes.structureID)
        let first = try #require(await scenario.journal().recover(on: offline, options: RecoveryOptions(clock: VirtualClock())).runs.first)
        let interrupted = try #require(first.interruptedIn)
        #expect(first.action == .deferred, "\(first.notes)")

        let second = try #require(try await scenario.recover().runs.first)
        #expect(second.interruptedIn == interrupted, "the first recovery found the run in \(interrupted); \(second.notes)")
    }

    @Test("a recovery after one that resumed the run and was cut short names where the resumed run last was")
    func interruptedWhereTheResumedRunWas() async throws {
        let scenario = try await CrashScenario(position: .after, sequence: 20)
        defer { scenario.scratch.remove() }
        let payload: JSONObject = ["onboardingPayload": .string(Payloads.specQR)]
        // The resumed run's journal fails mid-way, as a power cut would leave it.
        let cut: JournalTestHook = { boundary in boundary.position == .before && boundary.sequence == 32 ? .tear : .proceed }
        let first = try #require(try await scenario.recover(resume: true, inputs: payload, testHook: cut).runs.first)
        let records = try JournalReader.read(path: scenario.journal().path(of: scenario.runID)).records
        let entered = try #require(records.last { $0.type == "stateEntered" })
        let workflow = try #require(entered.payload["workflow"]?.stringValue)
        let state = try #require(entered.payload["state"]?.stringValue)
        let lastPlace = (workflow.split(separator: "/").dropFirst().map(String.init) + [state]).joined(separator: "/")
        #expect(lastPlace != first.interruptedIn, "the resumed run moved on before the cut: \(lastPlace)")

        let second = try #require(try await scenario.recover(resume: true, inputs: payload).runs.first)
        #expect(second.interruptedIn == lastPlace, "\(String(describing: second.interruptedIn)) \(second.notes)")
    }

    @Test("a completion in doubt while the hub cannot be reached is left for later, not closed as cancelled")
    func anInDoubtCompletionWaitsForTheHub() async throws {
        // The hub completed the commissioning; the process died before the outcome was written.
        let outcome = try await Self.sequence(of: JournalEntry.Kind.outcome.rawValue, "completeCommissioning")
        let scenario = try await CrashScenario(position: .before, sequence: outcome)
        defer { scenario.scratch.remove() }
        let unreachable = try scenario.hub()
        try await unreachable.setReachable(false, structure: Homes.structureID)
        let report = try await scenario.journal().recover(on: unreachable)
        #expect(report.runs.first?.action == .deferred, "\(report.runs.first?.notes ?? [])")
        #expect(report.runs.first?.notes.last?.contains("completeCommissioning") == true)
        #expect(report.runs.first?.notes.last?.contains("the hub cannot be reached") == true)
        #expect(try scenario.journal().runs().first?.status == .needsAttention)

        // Once the hub answers, the completion is found applied: the run succeeded, with its device.
        let back = try scenario.hub()
        try await back.setReachable(true, structure: Homes.structureID)
        let settled = try await scenario.journal().recover(on: back)
        #expect(settled.runs.first?.action == .recovered, "\(settled.runs.first?.notes ?? []) \(String(describing: settled.runs.first?.status))")
        #expect(settled.runs.first?.status == .succeeded, "\(settled.runs.first?.notes ?? [])")
        #expect(try scenario.journal().runs().first?.status == .succeeded)
        #expect(try scenario.savedHome()?.devices.contains { $0.name == "Lamp" } == true)
    }

    @Test("a run whose journal could not record its end is told so, with the recover command; one that could is not")
    func anUnrecordedEndIsReported() async throws {
        let scenario = try await CrashScenario(position: .after, sequence: 20)
        defer { scenario.scratch.remove() }
        let warning = try #require(try scenario.journal().unrecordedEnd(of: scenario.runID, outcome: .succeeded))
        #expect(warning.contains("it reads interrupted, the run succeeded"), "\(warning)")
        #expect(warning.contains("matterflow recover --journal \(scenario.journalDirectory)"))
        _ = try await scenario.recover()
        #expect(try scenario.journal().unrecordedEnd(of: scenario.runID, outcome: .cancelled) == nil, "recovered: it ends as cancelled")
        #expect(try scenario.journal().unrecordedEnd(of: "run-00000000beef", outcome: .failed)?.contains("is gone") == true)
    }

    @Test("a copy of a run's journal under another name is left alone: the run is recovered once")
    func aCopiedJournalIsNotRecoveredAsASecondRun() async throws {
        let scenario = try await CrashScenario(position: .after, sequence: 20)
        defer { scenario.scratch.remove() }
        let original = try scenario.journal().path(of: scenario.runID)
        let copy = scenario.journalDirectory + "/run-0000000c0de2.journal"
        try FileManager.default.copyItem(atPath: original, toPath: copy)
        let copiedBytes = try JournalFile.readAll(copy)
        let report = try await scenario.recover(resume: true, inputs: ["onboardingPayload": .string(Payloads.specQR)])
        let copied = try #require(report.runs.first { $0.path == copy })
        #expect(copied.action == .unreadable)
        #expect(copied.notes.last?.contains("holds the journal of run \(scenario.runID)") == true, "\(copied.notes)")
        #expect(report.runs.first { $0.path == original }?.action == .recovered)
        let commissions = try JournalReader.read(path: original).records.filter {
            $0.type == JournalEntry.Kind.intent.rawValue && $0.string("operation") == "prepareCommissioning"
        }
        #expect(commissions.count == 1, "the run's calls were not made twice")
        #expect(try JournalFile.readAll(copy) == copiedBytes, "the copy is left as it was")
    }

    @Test("a run journaled against a simulated home's directory is settled only against that home")
    func onlyAgainstItsOwnHome() async throws {
        let scenario = try await CrashScenario(position: .after, sequence: 20, recordsHome: true)
        defer { scenario.scratch.remove() }
        let started = try #require(try JournalReader.read(path: scenario.journal().path(of: scenario.runID)).records.first)
        #expect(started.payload["homeDirectory"]?.stringValue == JournalFile.directoryPath(scenario.stateDirectory))
        for given in [nil, scenario.scratch.file("elsewhere")] as [String?] {
            var options = RecoveryOptions(clock: VirtualClock())
            options.homeDirectory = given
            let hub = try SimulatedHub(home: Homes.basic(), clock: VirtualClock())
            let report = await (try scenario.journal()).recover(on: hub, options: options)
            #expect(report.runs.first?.action == .deferred, "\(String(describing: given))")
            #expect(report.runs.first?.notes.last?.contains("recover with --state \(JournalFile.directoryPath(scenario.stateDirectory))") == true,
                    "\(report.runs.first?.notes ?? [])")
        }
        #expect(try scenario.savedHome()?.activeSession != nil, "nothing was released in another home")
        // The right directory, spelt another way, settles it.
        var options = RecoveryOptions(clock: VirtualClock())
        options.homeDirectory = scenario.stateDirectory + "/"
        let report = await (try scenario.journal()).recover(on: try scenario.hub(), options: options)
        #expect(report.runs.first?.action == .recovered, "\(report.runs.first?.notes ?? [])")
        #expect(try scenario.savedHome()?.activeSession == nil)
    }

    @Test("a run journaled against a hub over the hub protocol is settled only against a hub of that name, saying which --hub to give")
    func onlyAgainstItsOwnRemoteHub() async throws {
        let recorded = RemoteHubIdentity(endpoint: "unix:/run/hub one.sock", name: "bridge")
        let scenario = try await CrashScenario(position: .after, sequence: 20, remoteHub: recorded)
        defer { scenario.scratch.remove() }
        let started = try #require(try JournalReader.read(path: scenario.journal().path(of: scenario.runID)).records.first)
        #expect(started.payload["hubEndpoint"] == "unix:/run/hub one.sock")
        #expect(started.payload["hubName"] == "bridge")
        let refusals: [(RemoteHubIdentity?, String)] = [
            (nil, "this recovery acts on the simulated home"),
            (RemoteHubIdentity(endpoint: "unix:/run/other.sock", name: "matterflow-simulator"), "this recovery asks hub matterflow-simulator at unix:/run/other.sock"),
            // Reached elsewhere, with no name to tell: not taken for the same hub.
            (RemoteHubIdentity(endpoint: "tcp:10.0.0.8:5580", name: nil), "this recovery asks the hub at tcp:10.0.0.8:5580"),
        ]
        for (given, said) in refusals {
            var options = RecoveryOptions(clock: VirtualClock())
            options.remoteHub = given
            let report = await (try scenario.journal()).recover(on: try scenario.hub(), options: options)
            let notes = report.runs.first?.notes ?? []
            #expect(report.runs.first?.action == .deferred, "\(notes)")
            #expect(notes.last?.contains("the run acted on hub bridge at unix:/run/hub one.sock, and \(said)") == true, "\(notes)")
            #expect(notes.last?.hasSuffix("recover with --hub 'unix:/run/hub one.sock'") == true, "\(notes)")
            #expect(try scenario.savedHome()?.activeSession != nil, "nothing was released on another hub")
        }
        // The same hub, reached at another endpoint, settles it, saying so.
        var options = RecoveryOptions(clock: VirtualClock())
        options.remoteHub = RemoteHubIdentity(endpoint: "tcp:10.0.0.7:5580", name: "bridge")
        let report = await (try scenario.journal()).recover(on: try scenario.hub(), options: options)
        #expect(report.runs.first?.action == .recovered, "\(report.runs.first?.notes ?? [])")
        #expect(report.runs.first?.notes.contains { $0.contains("this recovery asks the hub at tcp:10.0.0.7:5580, taken for the same hub") } == true)
        #expect(try scenario.savedHome()?.activeSession == nil)
    }

    @Test("hubs that give an instance ID are told apart by it: another instance of the same software, even at the run's endpoint, is another hub; the same one moved settles the run")
    func instanceIDsDecide() async throws {
        let recorded = RemoteHubIdentity(endpoint: "unix:/run/hub.sock", name: "bridge", instance: "fabric-1")
        let scenario = try await CrashScenario(position: .after, sequence: 20, remoteHub: recorded)
        defer { scenario.scratch.remove() }
        let started = try #require(try JournalReader.read(path: scenario.journal().path(of: scenario.runID)).records.first)
        #expect(started.payload["hubInstance"] == "fabric-1")
        #expect(try scenario.journal().read(runID: scenario.runID).entries().first.map { record -> RemoteHubIdentity? in
            if case .runStarted(let run) = record.entry { run.remoteHub } else { nil }
        } == recorded, "the journal gives the instance back")
        // The run's endpoint and name, another instance: its hub moved and another took its place.
        for other in [RemoteHubIdentity(endpoint: "unix:/run/hub.sock", name: "bridge", instance: "fabric-2"),
                      RemoteHubIdentity(endpoint: "tcp:10.0.0.9:5580", name: "bridge", instance: "fabric-2")] {
            var options = RecoveryOptions(clock: VirtualClock())
            options.remoteHub = other
            let report = await (try scenario.journal()).recover(on: try scenario.hub(), options: options)
            let notes = report.runs.first?.notes ?? []
            #expect(report.runs.first?.action == .deferred, "\(notes)")
            #expect(notes.last?.contains("(instance fabric-1), and this recovery asks hub bridge at \(other.endpoint), instance fabric-2: another hub") == true, "\(notes)")
            #expect(try scenario.savedHome()?.activeSession != nil, "nothing was released on another hub")
        }
        // The same instance reached elsewhere settles it, saying so.
        var options = RecoveryOptions(clock: VirtualClock())
        options.remoteHub = RemoteHubIdentity(endpoint: "tcp:10.0.0.7:5580", name: "bridge-renamed", instance: "fabric-1")
        let report = await (try scenario.journal()).recover(on: try scenario.hub(), options: options)
        #expect(report.runs.first?.action == .recovered, "\(report.runs.first?.notes ?? [])")
        #expect(report.runs.first?.notes.contains { $0.contains("this recovery asks the hub at tcp:10.0.0.7:5580, the same hub (instance fabric-1)") } == true)
        #expect(try scenario.savedHome()?.activeSession == nil)
    }

    @Test("a journal whose first line is damaged is left alone, saying how to mend it and what becomes of its session")
    func aDamagedHeaderIsExplained() async throws {
        let scenario = try await CrashScenario(position: .after, sequence: 20)
        defer { scenario.scratch.remove() }
        let path = try scenario.journal().path(of: scenario.runID)
        var bytes = try JournalFile.readAll(path)
        // A newer MatterFlow's header is no damage: the advice is that version, not to put back this one's line.
        bytes.replaceSubrange(0..<20, with: Array("MATTERFLOW-JOURNAL 2".utf8))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let newer = try #require(try await scenario.recover().runs.first)
        #expect(newer.action == .unreadable)
        #expect(newer.notes.contains { $0.contains("newer than this MatterFlow reads") }, "\(newer.notes)")
        #expect(!newer.notes.contains { $0.contains("put back the line") }, "\(newer.notes)")
        bytes.replaceSubrange(0..<20, with: Array("MATTERFLOW-JOURNAX 1".utf8))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let report = try await scenario.recover()
        let run = try #require(report.runs.first)
        #expect(run.action == .unreadable)
        #expect(run.notes.last?.contains(#"put back the line "MATTERFLOW-JOURNAL 1" and recover again"#) == true, "\(run.notes)")
        // Put back, the journal recovers.
        bytes.replaceSubrange(0..<20, with: Array("MATTERFLOW-JOURNAL 1".utf8))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try await scenario.recover().runs.first?.action == .recovered)
    }
}
