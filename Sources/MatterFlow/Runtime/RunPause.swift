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
/// switch.
public final class RunPause: Sendable {
    private struct State {
        var requested = false
        var released = false
        var isParked = false
        /// The run waits for an answer or a hub event, where it may park.
        var waiting = false
        /// The run's task, suspended while parked.
        var run: CheckedContinuation<Void, Never>?
        /// Callers of ``parked()``.
        var watchers: [CheckedContinuation<Void, Never>] = []

        /// Marks a waiting run parked; returns the callers of ``RunPause/parked()`` to wake.
        mutating func parkedWhileWaiting() -> [CheckedContinuation<Void, Never>] {
            isParked = true
            defer { watchers.removeAll() }
            return watchers
        }
    }

    private let state = Mutex(State())

    public init() {}

    /// Asks the run to park at its next checkpoint.
    public func request() {
        let watchers = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.requested = true
            return state.waiting && !state.released ? state.parkedWhileWaiting() : []
        }
        for watcher in watchers { watcher.resume() }
    }

    /// Lets a parked run go on (and a run not yet parked never park).
    public func release() {
        let run = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.released = true
            // A run parked while it waits is no longer held: it goes on when its wait ends.
            if state.waiting { state.isParked = false }
            defer { state.run = nil }
            return state.run
        }
        run?.resume()
    }

    /// Whether the run is parked now.
    public var isParked: Bool { state.withLock { $0.isParked } }

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

    /// Called by the run's driver as the run begins waiting for an answer or a hub event: a pause requested before
    /// or during the wait finds it parked.
    func waitBegan() {
        let watchers = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.waiting = true
            return state.requested && !state.released ? state.parkedWhileWaiting() : []
        }
        for watcher in watchers { watcher.resume() }
    }

    /// Called by the run's driver when that wait has ended, before it takes what ended it. With a pause requested
    /// and `parking` (the run is not on its cancel path) the run stays parked, and the driver parks it there
    /// (``parkIfRequested()``); otherwise it goes on, no longer parked.
    func waitEnded(parking: Bool) {
        state.withLock { state in
            state.waiting = false
            if !(parking && state.requested && !state.released) { state.isParked = false }
        }
    }

    /// Called by the run's driver at each checkpoint where it may park: suspends until ``release()`` when a pause
    /// was requested. Task cancellation does not end the wait (a parked run makes no call until released).
    func parkIfRequested() async {
        guard state.withLock({ $0.requested && !$0.released }) else { return }
        await withCheckedContinuation { (run: CheckedContinuation<Void, Never>) in
            let (go, watchers) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                if state.released { return (true, []) }
                state.run = run
                state.isParked = true
                defer { state.watchers.removeAll() }
                return (false, state.watchers)
            }
            for watcher in watchers { watcher.resume() }
            if go { run.resume() }
        }
        state.withLock { $0.isParked = false }
    }
}
