import Foundation
import MatterFlow
import MatterFlowSimulator
import Testing

/// `--state DIR`: consecutive runs see each other's effects through `DIR/home.json`.
@Suite("matterflow run --state")
struct StateDirectoryTests {
    let workflow = Repository.workflow("commission-device")

    @Test("two consecutive runs commission two devices; the second sees the first's")
    func twoRuns() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let state = directory.file("state")

        let first = await matterflow(
            ["run", workflow, "--home", home, "--state", state, "--trace", "none"] + commissionInputs(payload: Payloads.specQR, name: "Lamp"))
        #expect(first.code == 0, "\(first.stderr)")
        let firstIDs = try #require((try first.result()["output"] as? [String: Any])?["deviceIDs"] as? [String])
        let afterFirst = try savedHome(in: state)
        #expect(afterFirst.activeSession == nil)
        #expect(Set(afterFirst.devices.map(\.id)) == Set(["device-existing"] + firstIDs))

        // --home is ignored now that the directory holds a home, and the run says so.
        let second = await matterflow(
            ["run", workflow, "--home", home, "--state", state, "--trace", "none"] + commissionInputs(payload: Payloads.lampQR, name: "Desk Lamp", room: "Hall"))
        #expect(second.code == 0, "\(second.stdout)")
        #expect(second.stderr == "note: using the saved home in \(state)/home.json; --home only seeds an empty state directory\n")
        let secondIDs = try #require((try second.result()["output"] as? [String: Any])?["deviceIDs"] as? [String])
        #expect(Set(firstIDs).isDisjoint(with: secondIDs), "identifiers stay unique across runs")
        let afterSecond = try savedHome(in: state)
        #expect(afterSecond.activeSession == nil)
        #expect(Set(afterSecond.devices.map(\.id)) == Set(["device-existing"] + firstIDs + secondIDs))
        #expect(afterSecond.devices.first { $0.id == firstIDs.first }?.name == "Lamp")
        #expect(afterSecond.devices.first { $0.id == secondIDs.first }?.name == "Desk Lamp")
        #expect(afterSecond.devices.first { $0.id == secondIDs.first }?.room == "Hall")

        // A third run with the first device's payload sees that it is already in the home.
        let third = await matterflow(
            ["run", workflow, "--state", state, "--trace", "none"] + commissionInputs(payload: Payloads.specQR, name: "Again"))
        #expect(third.code == 1)
        #expect(try third.resultError()["cause"] as? String == "deviceAlreadyCommissioned")
        let afterThird = try savedHome(in: state)
        #expect(afterThird.activeSession == nil)
        #expect(afterThird.devices == afterSecond.devices)
    }

    @Test("--home seeds an empty state directory even when the run changes nothing")
    func seededWithoutChanges() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = Repository.root + "/Examples/border-router-home.json"
        let state = directory.file("state")

        // Reads the border router and changes nothing in the home.
        let first = await matterflow(["run", Repository.workflow("border-router-info"), "--home", home, "--state", state, "--trace", "none"])
        #expect(first.code == 0, "\(first.stdout)")
        #expect(first.stderr == "")
        let seeded = try savedHome(in: state)
        #expect(seeded.structure.id == (try HomeDescription.load(path: home)).structure.id)

        // The next run on the directory alone starts from that home, not the built-in one.
        let second = await matterflow(["run", Repository.workflow("border-router-info"), "--state", state, "--trace", "none"])
        #expect(second.code == 0, "\(second.stdout)")
    }

    @Test("the phase workflows run one by one on the same state commission a device")
    func phaseByPhase() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        try directory.write(TestHomes.json(), to: "state/home.json")

        func step(_ name: String, _ inputs: [String] = []) async throws -> [String: Any] {
            let run = await matterflow(["run", Repository.workflow(name), "--state", state, "--trace", "none"] + inputs)
            #expect(run.code == 0, "\(name): \(run.stdout)")
            #expect(run.stderr == "", "\(name)")
            let result = try run.result()
            #expect(result["outcome"] as? String == "succeeded", "\(name)")
            #expect(result["workflow"] as? String == name)
            return try #require(result["output"] as? [String: Any], "\(name) has an output")
        }

        let prepared = try await step("prepare")
        let sessionID = try #require(prepared["sessionID"] as? String)
        #expect(try savedHome(in: state).activeSession?.sessionID == sessionID)
        #expect(try savedHome(in: state).activeSession?.phase == .prepared)

        let request = try await step("add-device", ["--input", "ecosystemName=Test Ecosystem"])
        #expect(request["ecosystemName"] as? String == "Test Ecosystem")
        #expect(try savedHome(in: state).activeSession?.phase == .requested)

        _ = try await step("commission", ["--input", "onboardingPayload=\(Payloads.specQR)", "--input", "commissioningID=c-1"])
        let commissioned = try #require(try savedHome(in: state).activeSession)
        #expect(commissioned.phase == .commissioned)
        #expect(commissioned.deviceIDs.count == 1)

        let rooms = try await step("rooms")
        #expect(rooms["rooms"] as? [String] == ["Kitchen", "Hall"])

        let configured = try await step("configure", ["--input", "name=Porch Light", "--input", "room=Kitchen"])
        #expect(configured["configured"] as? Bool == true)
        #expect(try savedHome(in: state).activeSession?.phase == .configured)

        let completed = try await step("complete")
        let deviceIDs = try #require(completed["deviceIDs"] as? [String])
        #expect(deviceIDs == commissioned.deviceIDs)

        let home = try savedHome(in: state)
        #expect(home.activeSession == nil)
        let device = try #require(home.device(id: deviceIDs[0]))
        #expect(device.name == "Porch Light")
        #expect(device.room == "Kitchen")
        #expect(device.vendorID == 0xFFF1)
        #expect(device.productID == 0x8000)
    }

    @Test("a session left active blocks commission-device with sessionBusy until cancel.json releases it")
    func leftoverSession() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        try directory.write(TestHomes.json(activeSession: TestHomes.foreignSession), to: "state/home.json")
        let commission = ["run", workflow, "--state", state, "--trace", "none"] + commissionInputs()

        for _ in 0..<2 {
            let blocked = await matterflow(commission)
            #expect(blocked.code == 1)
            #expect(try blocked.resultError()["cause"] as? String == "sessionBusy")
            #expect(try savedHome(in: state).activeSession?.sessionID == "session-foreign")
        }

        let cancel = await matterflow("run", Repository.workflow("cancel"), "--state", state, "--trace", "none")
        #expect(cancel.code == 0, "\(cancel.stdout)")
        #expect(cancel.stderr == "")
        #expect((try cancel.result()["output"] as? [String: Any])?["released"] as? Bool == true)
        #expect(try savedHome(in: state).activeSession == nil)

        let unblocked = await matterflow(commission)
        #expect(unblocked.code == 0, "\(unblocked.stdout)")
        #expect(try savedHome(in: state).activeSession == nil)
        #expect(try savedHome(in: state).devices.count == 2)
    }

    @Test("cancel.json is harmless when no session is active")
    func cancelWithoutSession() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        try directory.write(TestHomes.json(), to: "state/home.json")
        let run = await matterflow("run", Repository.workflow("cancel"), "--state", state, "--trace", "none")
        #expect(run.code == 0, "\(run.stdout)")
        #expect((try run.result()["output"] as? [String: Any])?["released"] as? Bool == false)
        #expect(try savedHome(in: state).activeSession == nil)
    }

    @Test("--home seeds an empty state directory; the state file is the documented home format")
    func seedsFromHome() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let home = try directory.write(TestHomes.json(), to: "seed.json")
        let state = directory.file("state")
        let run = await matterflow(["run", workflow, "--home", home, "--state", state, "--trace", "none"] + commissionInputs())
        #expect(run.code == 0)
        #expect(run.stderr == "")
        let saved = try savedHome(in: state)
        #expect(saved.structure.id == TestHomes.structureID)
        #expect(saved.devices.count == 2)
        // The state file validates as a home description on its own.
        #expect(try HomeDescription.load(path: state + "/home.json") == saved)
        // No stray temporary files next to it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: state) == ["home.json"])
    }
}
