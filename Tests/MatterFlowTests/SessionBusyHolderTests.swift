import MatterFlow
import MatterFlowJSON
import Testing

/// The `noActiveSession` guard's `sessionBusy` names who holds the session when the hub says, and reads as before
/// when it does not.
extension InterpreterTests {
    static let busyWorkflow = action(#""guards": ["noActiveSession"], "onError": [{"errors": ["*"], "next": "routed"}]"#)
    static let unknownHolderMessage =
        "another commissioning session is active on this structure: let the run that holds it finish, recover that run if it was interrupted, release the session with cancel.json, or wait for the hub to end it (the simulated home ends one after 300 s without a call; another hub, by its own rule)"

    func busyError(_ holder: SessionHolder?, activeSession: Bool = true) async throws -> FlowError? {
        let hub = ScriptedHub()
        hub.setStatus(HubStatus(online: true, reachable: true, permissionGranted: true, activeSession: activeSession, holder: holder))
        let (result, _) = try await run(try loadWorkflow(Self.busyWorkflow), hub: hub)
        return result.error
    }

    @Test("sessionBusy names the run holding the session, its session and commissioning and since when, and keeps the holder through a fail state raising it again")
    func sessionBusyNamesTheHolder() async throws {
        let holder = SessionHolder(sessionID: "session-7", owner: "run-holder", commissioningID: "c-3", openedAt: 1_700_000_000)
        let error = try #require(try await busyError(holder))
        #expect(error.cause == .sessionBusy)
        #expect(
            error.message
                == "another commissioning session is active on this structure, held by run run-holder (session session-7, commissioning c-3) since 2023-11-14T22:13:20Z: let run run-holder finish, recover it if it was interrupted, release the session with cancel.json, or wait for the hub to end it (the simulated home ends one after 300 s without a call; another hub, by its own rule)")
        #expect(error.sessionHolder == holder, "the routed fail state raised the caught error again")
        #expect(error.jsonValue.objectValue?.keys.sorted() == ["cause", "code", "message", "state"], "workflows see the message only")
    }

    @Test("sessionBusy without an owner names what the hub told; without a holder, or one it told nothing of, it reads as before")
    func sessionBusyWithoutOwnerOrHolder() async throws {
        let anonymous = try await busyError(SessionHolder(sessionID: "session-7", openedAt: 1_700_000_000))
        #expect(
            anonymous?.message
                == "another commissioning session is active on this structure (session session-7, opened 2023-11-14T22:13:20Z): let the run that holds it finish, recover that run if it was interrupted, release the session with cancel.json, or wait for the hub to end it (the simulated home ends one after 300 s without a call; another hub, by its own rule)")
        for holder in [nil, SessionHolder()] {
            let error = try await busyError(holder)
            #expect(error?.message == Self.unknownHolderMessage)
            #expect(error?.sessionHolder == nil)
        }
        #expect(try await busyError(SessionHolder(owner: "stale"), activeSession: false) == nil, "a holder without an active session does not refuse")
    }

    @Test("a session held under the refused run's own ID (an earlier attempt of it, submitted again after a store lost it) is not named as another run to wait for")
    func sessionBusyHeldUnderTheRunsOwnID() async throws {
        let hub = ScriptedHub()
        hub.setStatus(
            HubStatus(
                online: true, reachable: true, permissionGranted: true, activeSession: true,
                holder: SessionHolder(sessionID: "session-9", owner: "lost-1")))
        let handle = try engine.start(
            try loadWorkflow(Self.busyWorkflow), inputs: [:], on: hub, options: RunOptions(structureID: "s", clock: ManualClock(), random: SeededRandomSource(seed: 7), runID: "lost-1"))
        for await _ in handle.events {}
        let error = try #require(await handle.result.error)
        #expect(
            error.message
                == "another commissioning session is active on this structure, held by run lost-1 (session session-9): lost-1 is this run's own ID, probably an earlier attempt of it (submitted again after the first was lost) or another run given the same ID, whose session this attempt does not take over; release the session with cancel.json, or wait for the hub to end it (the simulated home ends one after 300 s without a call; another hub, by its own rule)")
        #expect(error.sessionHolder?.owner == "lost-1")
    }

    @Test("a hub's own refusal of prepare to a run of the holder's ID says so too")
    func prepareRefusalOfTheHoldersOwnID() {
        let error = FlowError.sessionBusy(phase: .prepared, heldBy: SessionHolder(sessionID: "s-1", owner: "lost-1"), refusing: "lost-1")
        #expect(
            error.message
                == "another commissioning session is prepared on this structure, held by run lost-1 (session s-1): lost-1 is this run's own ID, probably an earlier attempt of it (submitted again after the first was lost) or another run given the same ID, whose session this attempt does not take over; release it with cancel.json, or wait for its lease to end")
    }

    @Test("a hub's own refusal of prepare names the phase and the holder")
    func prepareRefusalNamesTheHolder() {
        let long = String(repeating: "x", count: 100)
        let error = FlowError.sessionBusy(phase: .commissioning, heldBy: SessionHolder(sessionID: "s-1", owner: long))
        #expect(
            error.message
                == "another commissioning session is commissioning on this structure, held by run \(String(repeating: "x", count: 80))… (session s-1): let run \(String(repeating: "x", count: 80))… finish, recover it if it was interrupted, release it with cancel.json, or wait for its lease to end")
        #expect(error.sessionHolder?.owner == long, "the holder is kept whole")
    }

    @Test("moments in messages are ISO-8601 in UTC, the form delay states read back")
    func timestampText() throws {
        #expect(Timestamp.text(epochSeconds: 0) == "1970-01-01T00:00:00Z")
        #expect(Timestamp.text(epochSeconds: 951_825_600.75) == "2000-02-29T12:00:00Z")
        #expect(Timestamp.text(epochSeconds: NumberLimits.epochSeconds.upperBound) == "3000-01-01T00:00:00Z")
        #expect(Timestamp.text(epochSeconds: -86_400) == "1969-12-31T00:00:00Z")
        var seconds = 0.0
        while seconds < 32_503_680_000 {
            #expect(try Timestamp.epochSeconds(of: .string(Timestamp.text(epochSeconds: seconds))).get() == seconds)
            seconds += 86_399 * 370 + 13
        }
        #expect(Timestamp.text(epochSeconds: .infinity) == "inf s after 1970")
    }
}
