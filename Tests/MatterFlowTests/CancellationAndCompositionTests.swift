import MatterFlow
import MatterFlowJSON
import Synchronization
import TestGates
import Testing

/// Cancellation, sub-workflows and the commissioning flow's failure semantics.
@Suite struct CancellationAndCompositionTests {
    let engine = WorkflowEngine()
    static let inputs: JSONObject = ["onboardingPayload": "MT:Y.K9042C00KA0648G00", "deviceName": "Lamp", "roomName": "Kitchen"]

    func commissionDevice() throws -> Workflow {
        try engine.load(path: Repository.workflow("commission-device.json"))
    }

    func run(_ workflow: Workflow, hub: ScriptedHub, cancelOn operation: String? = nil) async throws -> RunResult {
        let handle = try engine.start(
            workflow, inputs: Self.inputs, on: hub, options: RunOptions(structureID: "s", clock: ManualClock(), random: SeededRandomSource(seed: 3)))
        for await event in handle.events {
            if case .hubCallStarted(_, let name, _, _) = event.kind, name == operation { handle.cancel() }
        }
        return await handle.result
    }

    @Test func cancellingWhileCommissioningTakesTheCancelPathAndReleasesTheSession() async throws {
        let hub = ScriptedHub()
        hub.script("commissionDevice", [.hang])
        let result = try await run(try commissionDevice(), hub: hub, cancelOn: "commissionDevice")
        #expect(result.outcome == .cancelled)
        #expect(result.error?.code == .cancelled)
        #expect(result.error?.state == "commission/commission")
        #expect(hub.session.phase == .cancelled)
        #expect(!hub.session.isActive)
        // The child's cancel path released the session; the parent's cancel path found nothing left to release.
        #expect(Array(result.visitedStates.suffix(6)) == [
            "commission/release", "commission/cancelled", "cancelIfPrepared", "cancel", "cancel/cancel", "cancel/released",
        ] || result.visitedStates.suffix(7).contains("cancel/cancel"), "\(result.visitedStates)")
        #expect(hub.count("cancelCommissioning") == 2)
    }

    @Test("a cancel's reason reaches every level's cancelRequested event and the run's error, in a run and in a pool")
    func theCancelsReasonIsKept() async throws {
        let hub = ScriptedHub()
        hub.script("commissionDevice", [.hang])
        let handle = try engine.start(
            try commissionDevice(), inputs: Self.inputs, on: hub,
            options: RunOptions(structureID: "s", clock: ManualClock(), random: SeededRandomSource(seed: 3)))
        var reasons: [String?] = []
        for await event in handle.events {
            if case .hubCallStarted(_, "commissionDevice", _, _) = event.kind { handle.cancel(reason: "the installer left") }
            if case .cancelRequested(_, let reason) = event.kind { reasons.append(reason) }
            if case .cancelRequested = event.kind { #expect(event.jsonValue["reason"] == "the installer left") }
        }
        let result = await handle.result
        #expect(reasons == ["the installer left", "the installer left"], "each level notices the same cancel")
        #expect(result.error?.message.hasPrefix("the run was cancelled in state commission/commission (the installer left); ") == true, "\(String(describing: result.error))")

        let waiting = try loadWorkflow(
            #"""
            {"workflow": "w", "version": 1, "start": "wait", "states": {
              "wait": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 60, "result": "ended",
                       "on": {"keyUsed": "done"}, "otherwise": "done", "onTimeout": "done"},
              "done": {"type": "succeed"}
            }}
            """#)
        let pool = RunPool(hub: ScriptedHub(), clock: ManualClock(), random: SeededRandomSource(seed: 4))
        let noted = Mutex<[String?]>([])
        let run = try pool.submit(waiting, structureID: "s") { event in
            if case .cancelRequested(_, let reason) = event.kind { noted.withLock { $0.append(reason) } }
        }
        pool.cancel(run, reason: "cancel asked for by the operator")
        let pooled = try #require(await pool.result(of: run))
        #expect(pooled.outcome == .cancelled)
        #expect(pooled.error?.message == "the run was cancelled in state wait (cancel asked for by the operator)")
        #expect(noted.withLock { $0 } == ["cancel asked for by the operator"])
    }

    @Test func cancellingBeforePrepareOpenedASessionReleasesNobodysSession() async throws {
        // Another client's session is active; this run is cancelled while prepare's guards are being checked.
        let hub = ScriptedHub()
        hub.setStatus(HubStatus(online: true, reachable: true, permissionGranted: true, activeSession: true))
        hub.script("status", [.hang])
        let handle = try engine.start(
            try commissionDevice(), inputs: Self.inputs, on: hub, options: RunOptions(structureID: "s", clock: ManualClock()))
        for await event in handle.events {
            if case .stateEntered(let state, _) = event.kind, state == "prepare", event.workflowPath.count == 2 {
                handle.cancel()
            }
        }
        let result = await handle.result
        #expect(result.outcome == .cancelled)
        #expect(hub.count("cancelCommissioning") == 0, "the active session is another client's")
    }

    @Test func cancellingWhilePrepareSucceedsReleasesTheSessionItOpened() async throws {
        // The cancel arrives while prepareCommissioning is in flight, and the call still succeeds at the hub.
        let hub = ScriptedHub()
        let gate = ScriptedHub.Gate()
        hub.script("prepareCommissioning", [.afterGate(gate)])
        let handle = try engine.start(
            try commissionDevice(), inputs: Self.inputs, on: hub, options: RunOptions(structureID: "s", clock: ManualClock()))
        for await event in handle.events {
            if case .hubCallStarted(_, "prepareCommissioning", _, _) = event.kind {
                handle.cancel()
                gate.open()
            }
        }
        let result = await handle.result
        #expect(result.outcome == .cancelled)
        #expect(hub.count("prepareCommissioning") == 1)
        #expect(!hub.session.isActive, "the session prepare opened was released")
    }

    @Test func aCancelledRunIgnoresFurtherCancelsOnItsCancelPath() async throws {
        let hub = ScriptedHub()
        hub.script("commissionDevice", [.hang])
        let handle = try engine.start(
            try commissionDevice(), inputs: Self.inputs, on: hub, options: RunOptions(structureID: "s", clock: ManualClock()))
        for await event in handle.events {
            if case .hubCallStarted(_, let name, _, _) = event.kind {
                if name == "commissionDevice" { handle.cancel() }
                if name == "cancelCommissioning" { handle.cancel() }
            }
        }
        let result = await handle.result
        #expect(result.outcome == .cancelled)
        #expect(!hub.session.isActive)
    }

    @Test func cancellingTheCallingTaskCancelsTheRun() async throws {
        let hub = ScriptedHub()
        hub.script("commissionDevice", [.hang])
        let workflow = try commissionDevice()
        let engine = self.engine
        let task = Task {
            try await engine.run(workflow, inputs: Self.inputs, on: hub, options: RunOptions(structureID: "s", clock: ManualClock()))
        }
        while hub.count("commissionDevice") == 0 { await Task.yield() }
        task.cancel()
        let result = try await task.value
        #expect(result.outcome == .cancelled)
        #expect(!hub.session.isActive)
    }

    @Test func aCommissionFailureCancelsAndReportsTheOriginalError() async throws {
        let hub = ScriptedHub()
        hub.script("commissionDevice", [.fail(FlowError(.commissioningFailed, "attestation failed"))])
        let result = try await run(try commissionDevice(), hub: hub)
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .commissioningFailed)
        #expect(result.error?.state == "commission/commission")
        #expect(!hub.session.isActive)
        #expect(hub.session.phase == .cancelled)
    }

    @Test func aTransientlyUnreachableDeviceIsRetried() async throws {
        let hub = ScriptedHub()
        hub.script("commissionDevice", [.fail(FlowError(.deviceUnreachable, "no answer")), .succeed])
        let clock = ManualClock()
        let handle = try engine.start(
            try commissionDevice(), inputs: Self.inputs, on: hub, options: RunOptions(structureID: "s", clock: clock))
        for await event in handle.events {
            if case .retryScheduled(_, _, let delay, _) = event.kind {
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(delay))
            }
        }
        let result = await handle.result
        #expect(result.outcome == .succeeded)
        #expect(hub.count("commissionDevice") == 2)
    }

    @Test func aRoomsFailureLeavesAnEmptyListAndTheFlowContinues() async throws {
        let hub = ScriptedHub()
        hub.script("fetchRooms", [.fail(FlowError(.hubUnreachable, "timeout"))])
        let result = try await run(try commissionDevice(), hub: hub)
        #expect(result.outcome == .succeeded)
        #expect(result.output?["roomsOffered"] == [])
        #expect(result.warnings.count == 1)
        #expect(result.warnings.first?.contains("rooms could not be fetched") == true)
    }

    @Test func aConfigureFailureIsAWarningNotAFailure() async throws {
        let hub = ScriptedHub()
        hub.script("configureDevice", [.fail(FlowError(.roomNotFound, "no room Garage"))])
        let result = try await run(try commissionDevice(), hub: hub)
        #expect(result.outcome == .succeeded)
        #expect(result.output?["configured"] == false)
        #expect(result.output?["deviceIDs"] == ["device-1"])
        #expect(result.warnings.first?.contains("roomNotFound") == true)
    }

    @Test("prepare failures end the run without touching anyone's session", arguments: [
        (HubStatus(online: false, reachable: true, permissionGranted: true, activeSession: false), ErrorCode.unavailable, ErrorCause.hubOffline),
        (HubStatus(online: true, reachable: true, permissionGranted: false, activeSession: false), .permissionDenied, .permissionNotGranted),
        (HubStatus(online: true, reachable: true, permissionGranted: true, activeSession: true), .failedPrecondition, .sessionBusy),
    ])
    func prepareFailures(status: HubStatus, code: ErrorCode, cause: ErrorCause) async throws {
        let hub = ScriptedHub()
        hub.setStatus(status)
        let result = try await run(try commissionDevice(), hub: hub)
        #expect(result.outcome == .failed)
        #expect(result.error?.code == code)
        #expect(result.error?.cause == cause)
        #expect(result.error?.state == "prepare/prepare")
        #expect(hub.count("cancelCommissioning") == 0, "cancelling here could release another client's session")
        #expect(hub.count("prepareCommissioning") == 0)
    }
}
