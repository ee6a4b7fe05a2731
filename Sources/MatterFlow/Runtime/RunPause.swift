import Synchronization

/// A switch that parks a run at its next checkpoint, made before the run starts and given to it in
/// ``RunOptions/pause``: what a worker uses to hand a run to another process without leaving a call in doubt.
///
/// After ``request()``, the run stops before the first attempt of its next hub call: the state making the call has
/// been entered (its checkpoint reported), the previous call's outcome is known, and no call is in flight. There it
/// waits, its task suspended, until ``release()`` lets it go on; so its journal ends at a checkpoint from which
/// recovery resumes it elsewhere without repeating a call. A run waiting for an answer or a hub event is parked where
/// it waits: it makes no call until the wait ends, and its journal ends at the question or the wait, from which
/// recovery resumes it asking (or waiting) again; when the wait ends it stays there, the answer or event not taken,
/// until released. ``parked()`` returns once it is parked. A run on its cancel path, retrying a call or waiting for a
/// delay is not parked until it reaches such a point; a run that ends first is never parked. Give each run its own
/// switch. A run holding a secret a hub call returned (``holdsSecretNoJournalKeeps()``) never parks.
///
/// A call the run abandoned (its timeout or cancel decided its race) that the hub still runs counts as in flight
/// until the hub ends it: a run waiting for an answer or event meanwhile is parked only then.
///
/// The branches of a concurrent map share their run's switch: the run counts as parked once every branch going on
/// is parked or waits and no call is in flight (a branch retrying, in a delay or on its cancel path keeps it from
/// being parked), and ``release()`` lets every parked branch go on.
public final class RunPause: Sendable {
    private struct State {
        var requested = false
        var released = false
        /// Branches parked at a checkpoint, or about to (a wait ended while a pause was requested).
        var parkedAtCheckpoint = 0
        /// Of those, the ones a wait's end counted before they reached the checkpoint.
        var parkingAfterWait = 0
        /// Branches waiting for an answer or a hub event, where they may park.
        var waiting = 0
        /// Hub calls the run's branches have in flight.
        var callsInFlight = 0
        /// Branches going on: the run itself, or while it waits for its map's elements, each element.
        var liveBranches = 1
        /// The tasks of the parked branches, suspended.
        var runs: [CheckedContinuation<Void, Never>] = []
        /// Callers of ``RunPause/parked()``.
        var watchers: [CheckedContinuation<Void, Never>] = []

        var isParked: Bool {
            requested && !released && callsInFlight == 0 && liveBranches > 0 && parkedAtCheckpoint + waiting == liveBranches
        }

        /// The callers of ``RunPause/parked()`` to wake now that the run is parked; none while it is not.
        mutating func watchersIfParked() -> [CheckedContinuation<Void, Never>] {
            guard isParked else { return [] }
            defer { watchers.removeAll() }
            return watchers
        }
    }

    private let state = Mutex(State())

    /// A switch not yet requested.
    public init() {}

    /// Asks the run to park at its next checkpoint.
    public func request() {
        let watchers = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.requested = true
            return state.watchersIfParked()
        }
        for watcher in watchers { watcher.resume() }
    }

    /// Lets every parked branch of the run go on (and a run not yet parked never park).
    public func release() {
        let runs = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.released = true
            defer { state.runs.removeAll() }
            return state.runs
        }
        for run in runs { run.resume() }
    }

    /// Called by the run's driver once the run holds a secret a hub call returned (an ePSKc): no journal keeps it,
    /// so the run could not be resumed elsewhere. From then on it never parks, as after ``release()``: a worker that
    /// stops lets it run on to its end, and hands it back for takeover only if it outlasts the worker's drain.
    func holdsSecretNoJournalKeeps() {
        holdsUnresumableSecret.store(true, ordering: .relaxed)
        release()
    }

    private let holdsUnresumableSecret = Atomic(false)

    /// Whether the run holds a secret a hub call returned, which no journal keeps (``holdsSecretNoJournalKeeps()``):
    /// no other process could resume it, only cancel it.
    public var holdsSecretNoOtherProcessCouldResume: Bool { holdsUnresumableSecret.load(ordering: .relaxed) }

    /// Whether the run is parked now.
    public var isParked: Bool { state.withLock { $0.isParked } }

    /// How many branches are suspended at a checkpoint now.
    var branchesAtCheckpoint: Int { state.withLock { $0.runs.count } }

    /// Returns once the run is parked (at once when it is).
    public func parked() async {
        await withCheckedContinuation { (watcher: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.isParked { return true }
                state.watchers.append(watcher)
                return false
            }
            if now { watcher.resume() }
        }
    }

    /// Called by the run's driver as a branch begins waiting for an answer or a hub event: a pause requested before
    /// or during the wait finds it parked.
    func waitBegan() {
        let watchers = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.waiting += 1
            return state.watchersIfParked()
        }
        for watcher in watchers { watcher.resume() }
    }

    /// Called by the run's driver when that wait has ended, before it takes what ended it. With a pause requested
    /// and `parking` (the branch is not on its cancel path) the branch stays parked, and the driver parks it there
    /// (``parkIfRequested()``); otherwise it goes on, no longer parked.
    func waitEnded(parking: Bool) {
        state.withLock { state in
            state.waiting -= 1
            if parking && state.requested && !state.released {
                state.parkedAtCheckpoint += 1
                state.parkingAfterWait += 1
            }
        }
    }

    /// Called by the run's driver as a branch begins: a map element starts, or the run goes on after its elements.
    func branchBegan() {
        state.withLock { $0.liveBranches += 1 }
    }

    /// Called by the run's driver as a branch ends: a map element ends, or the run waits for its elements.
    func branchEnded() {
        let watchers = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.liveBranches -= 1
            return state.watchersIfParked()
        }
        for watcher in watchers { watcher.resume() }
    }

    /// Called by the run's driver as a branch's hub call begins, after the checkpoint where it may park.
    func callBegan() {
        state.withLock { $0.callsInFlight += 1 }
    }

    /// Called by the run's driver as that call has ended (its outcome known).
    func callEnded() {
        let watchers = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.callsInFlight -= 1
            return state.watchersIfParked()
        }
        for watcher in watchers { watcher.resume() }
    }

    /// Called by the run's driver at each checkpoint where a branch may park: suspends until ``release()`` when a
    /// pause was requested. Task cancellation does not end the wait (a parked run makes no call until released).
    func parkIfRequested() async {
        let parks = state.withLock { state -> Bool in
            let counted = state.parkingAfterWait > 0
            if counted { state.parkingAfterWait -= 1 }
            guard state.requested && !state.released else {
                if counted { state.parkedAtCheckpoint -= 1 }
                return false
            }
            if !counted { state.parkedAtCheckpoint += 1 }
            return true
        }
        guard parks else { return }
        await withCheckedContinuation { (run: CheckedContinuation<Void, Never>) in
            let (go, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                if state.released { return (true, []) }
                state.runs.append(run)
                return (false, state.watchersIfParked())
            }
            for watcher in watchers { watcher.resume() }
            if go { run.resume() }
        }
        state.withLock { $0.parkedAtCheckpoint -= 1 }
    }
}
