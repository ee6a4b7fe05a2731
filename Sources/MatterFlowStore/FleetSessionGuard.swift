import MatterFlow
import MatterFlowJSON
import Synchronization

/// One active commissioning session per structure across the whole fleet, whatever hub each worker uses.
///
/// Wraps the operation catalog: before an operation that opens a session (`prepareCommissioning`) reaches the hub,
/// the run takes the structure's row in `matterflow_sessions` (the structure is its primary key, so a second run
/// conflicts and gets `sessionBusy`, on any worker); when the call fails, the row is given back. An operation that
/// releases the session (`cancelCommissioning`, `completeCommissioning`) gives the row back once it succeeded; one
/// the hub does not confirm is noted in ``unconfirmed``, for the run's end to look at the structure's row again.
/// The run is known from ``HubCallContext`` (the journal sets it for every call). The lock is taken and given
/// back through the worker's ``GroupCommitter``, in its next batch: the run's task waits suspended, holding no thread,
/// for a take; a release is handed over without waiting (it is written before the run's final status).
///
/// It also fences every hub call by the run's lease: once the store refused one of the run's records (another
/// worker took the run over), no further call of the run reaches the hub, whatever the run does next; and a run whose
/// lease this worker has not known held for half a lease (a pause, a slow heartbeat) confirms it first
/// (``LeaseConfirmations``).
struct FleetSessionGuard {
    let committer: GroupCommitter
    let leases: LeaseConfirmations
    let leaseSeconds: Double
    /// Runs whose release call failed: the hub may have released the session all the same (its answer lost), so
    /// whoever's row stands for that session is looked at again when the run ends (``StoreWorker``).
    let unconfirmed: UnconfirmedReleases

    /// Throws unless this worker still holds the run's lease, which it renews when `renewing`. A release of a session
    /// the hub opened late has no intent whose commit the lease fences, as the run's other calls have: without this,
    /// a worker that lost the run to a takeover (the store out of its reach, say) could end the session the new worker
    /// resumed the run in; it only looks (the run's lease may be meant to run out: its end could not be recorded). A
    /// run whose renewal finds it another worker's is fenced: nothing of it is written or called here any more.
    private func confirmLease(of runID: String, before operation: String, renewing: Bool) async throws(FlowError) {
        let answer: StoreCommandAnswer
        let sent = leases.now()
        leases.sending()
        do throws(StoreError) {
            answer = try await committer.perform(.confirmLease(runID: runID, renewingFor: renewing ? leaseSeconds : nil), runID: runID)
        } catch {
            throw FlowError(.hubUnreachable, "\(operation) was not called: the run store could not confirm that this worker still holds run \(runID) (\(error.message))")
        }
        guard answer == .leaseHeld(true) else {
            if renewing { committer.fence([runID], because: "the run's lease passed to another worker before its \(operation) call") }
            throw FlowError(
                .hubUnreachable,
                "\(operation) was not called: run \(runID) is no longer this worker's; the worker that holds it settles it")
        }
        if renewing { leases.confirmed([runID], sentAt: sent) }
    }

    /// Confirms (and renews) the run's lease while this worker has not known it held for half a lease, the time of
    /// the confirmation's own round trip included (a pause or a slow commit during it): a few times at most.
    private func confirmUnlessFresh(_ runID: String, before operation: String) async throws(FlowError) {
        var tries = 0
        while leases.needsConfirming(runID) {
            tries += 1
            guard tries <= Self.confirmationTries else {
                throw FlowError(
                    .hubUnreachable,
                    "\(operation) was not called: this worker could not confirm in time that it still holds run \(runID) (each look at the store took half a lease or more)")
            }
            try await confirmLease(of: runID, before: operation, renewing: true)
        }
        try refuseIfFenced(runID, before: operation)
    }

    /// Throws when the run's records can no longer be written here (its lease passed, the store lost it): no call.
    private func refuseIfFenced(_ runID: String, before operation: String) throws(FlowError) {
        if let lost = committer.failure(of: runID) {
            throw FlowError(.hubUnreachable, "\(operation) was not called: this worker can no longer record run \(runID) (\(lost.message))")
        }
    }

    /// How many times a call confirms a lease that stays stale before it gives up.
    static let confirmationTries = 3

    /// The catalog with each operation wrapped. A wrapper is handed arguments already checked (by the run, or by
    /// ``OperationDescriptor/call(hub:structure:arguments:)``) and performs the operation without checking them again.
    func wrapping(_ catalog: OperationCatalog) -> OperationCatalog {
        let operations = catalog.operations.map { original -> OperationDescriptor in
            original.invoking { [committer] hub, structure, arguments in
                let context = HubCallContext.current
                let runID = context?.runID
                if let runID { try refuseIfFenced(runID, before: original.name) }
                // A late session's release looks at the lease below, without renewing it.
                if let runID, context?.releasesLateSession != true {
                    try await confirmUnlessFresh(runID, before: original.name)
                }
                guard original.acquiresSession || original.releasesSession else {
                    return try await original.perform(hub: hub, structure: structure, arguments: arguments)
                }
                if original.acquiresSession, let runID {
                    let answer: StoreCommandAnswer
                    do throws(StoreError) {
                        answer = try await committer.perform(.acquireSession(structure: structure, runID: runID), runID: runID)
                    } catch {
                        throw FlowError(.hubUnreachable, "the run store could not take the fleet's session lock for structure \"\(structure)\": \(error.message)")
                    }
                    if case .busy(let holder) = answer {
                        throw holder?.refusal(structure: structure) ?? FleetSessionHolder.unknownRefusal(structure: structure)
                    }
                    do {
                        return try await original.perform(hub: hub, structure: structure, arguments: arguments)
                    } catch {
                        // Refused or failed on the hub: no session was opened, so the fleet's lock goes too. (A call
                        // whose worker dies keeps the lock until recovery settles the run.)
                        committer.post(.releaseSession(structure: structure, runID: runID, by: runID), runID: runID)
                        throw error
                    }
                }
                guard original.releasesSession else {
                    return try await original.perform(hub: hub, structure: structure, arguments: arguments)
                }
                if let context, context.releasesLateSession {
                    try await confirmLease(of: context.runID, before: original.name, renewing: false)
                }
                // Until the hub answers that it released a session, the release is unconfirmed: its answer may be lost,
                // or come after the run stopped waiting (when this task may be the only one left to see it).
                if let runID { unconfirmed.insert(runID) }
                let value = try await original.perform(hub: hub, structure: structure, arguments: arguments)
                if value["released"]?.boolValue != false {
                    if let runID { unconfirmed.remove(runID) }
                    committer.post(.releaseSession(structure: structure, runID: nil, by: runID), runID: runID)
                } else if let runID {
                    // `released: false`: the hub held no session, so only this run's own row (if any) is stale here.
                    // Another run's row may stand for a session that lapsed on the hub: left unconfirmed, the run's
                    // end looks at it (``StoreWorker``).
                    committer.post(.releaseSession(structure: structure, runID: runID, by: runID), runID: runID)
                }
                return value
            }
        }
        // Replaced one by one, so the catalog keeps its events and custom guards (whose reads go through these too).
        var wrapped = catalog
        for operation in operations { wrapped.add(operation) }
        return wrapped
    }
}

/// The runs of a worker with a release call (`cancelCommissioning`, `completeCommissioning`) the hub has not
/// confirmed: it failed, is still running, or found no session; the structure's session may have ended on the hub
/// without the fleet's row being given up.
final class UnconfirmedReleases: Sendable {
    private let runs = Mutex<Set<String>>([])

    func insert(_ runID: String) {
        runs.withLock { _ = $0.insert(runID) }
    }

    /// The hub confirmed the run's release.
    func remove(_ runID: String) {
        runs.withLock { _ = $0.remove(runID) }
    }

    /// Whether the run made such a call; forgets it.
    func take(_ runID: String) -> Bool {
        runs.withLock { $0.remove(runID) != nil }
    }
}
