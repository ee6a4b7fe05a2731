import Synchronization

/// The hub calls of one run that are still running after the run stopped waiting for them, so that the run
/// makes no other hub call while one of them runs (the ``Hub`` contract: never two calls for one run at once).
///
/// A call the run abandons (its timeout or the run's cancel decided its race) is cancelled and given
/// ``StepRace/gracePeriod`` to wind down. One still running after that is kept here. Before its next hub call (a
/// guard's status check or an operation, on the cancel path too), the run waits for every kept call to end, but
/// for each call at most ``limit``, once. A call that outlives its limit is given up: the run goes on without it
/// and reports, as a warning, that the contract could not be kept.
final class AbandonedCalls: Sendable {
    /// How long, beyond its grace period, a run waits for one abandoned call to end before it calls the hub again
    /// anyway.
    static let limit: Duration = .seconds(30)

    /// What a run reports about an abandoned call while it settles them.
    enum Report: Sendable, Equatable {
        /// The run is about to wait for the call.
        case waiting(String)
        /// The call outlived its limit; the run calls the hub while it still runs.
        case givenUp(String)
    }

    private struct Entry {
        let race: Race
        /// What the call was, as reports name it (`fetchRooms in state rooms`).
        let label: String
    }

    private let entries = Mutex<[Entry]>([])
    /// Sessions the hub opened for calls the run had stopped waiting for (``LateSession``): session ID and call.
    private let lateSessions = Mutex<[(sessionID: String, call: String)]>([])
    /// The run's pause switch, which counts a kept call as in flight until the hub ends it: a run is not parked
    /// while a call it abandoned still runs, wherever it waits meanwhile.
    private let pause: RunPause?

    init(pause: RunPause? = nil) {
        self.pause = pause
    }

    /// Keeps a call whose race was decided against it and whose work has not ended after the grace period.
    func keep(_ race: Race, label: String) {
        entries.withLock { $0.append(Entry(race: race, label: label)) }
        if let pause {
            pause.callBegan()
            race.afterWorkEnds { _ in pause.callEnded() }
        }
    }

    /// Whether any abandoned call is kept (cheap: read before every hub call).
    var isEmpty: Bool { entries.withLock { $0.isEmpty } }

    /// Notes a session the hub opened for a session-opening call after the run stopped waiting for it.
    func noteLateSession(_ sessionID: String, call: String) {
        lateSessions.withLock { $0.append((sessionID, call)) }
    }

    /// Whether a late session is noted.
    var hasLateSessions: Bool { lateSessions.withLock { !$0.isEmpty } }

    /// The sessions noted so far, each once, in the order first noted (the run has not released them yet); forgets
    /// them.
    func takeLateSessions() -> [(sessionID: String, call: String)] {
        let noted = lateSessions.withLock { noted in
            defer { noted = [] }
            return noted
        }
        var seen = Set<String>()
        return noted.filter { seen.insert($0.sessionID).inserted }
    }

    /// Waits until every kept call has ended or used up its limit, in the order they were abandoned, and forgets
    /// them; `report` hears of each wait and of each call given up.
    func settle(report: (Report) -> Void) async {
        while let entry = entries.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            guard !entry.race.workHasEnded else { continue }
            report(.waiting(entry.label))
            await entry.race.windDown(atMost: Self.limit)
            if !entry.race.workHasEnded { report(.givenUp(entry.label)) }
        }
    }
}
