import MatterFlowJSON

/// How to run a workflow: which structure, which clock and random source, what to observe.
public struct RunOptions: Sendable {
    /// What secrets are replaced with in events.
    public static let redacted = "<redacted>"

    /// The structure the run commissions into.
    public var structureID: StructureID
    /// Real time by default; a ``VirtualClock`` for repeatable runs (fixtures use one), a ``ManualClock`` for tests
    /// that move time by hand.
    public var clock: any WorkflowClock
    /// Used for run IDs and retry jitter.
    public var random: any RandomSource
    /// A run ID to use instead of a generated one.
    public var runID: String?
    /// Show secret inputs and arguments in events (only when a user asks explicitly).
    public var showSecrets: Bool
    /// Receives every event, in order, on the run's task.
    public var observer: (@Sendable (RunEvent) -> Void)?
    /// Receives a ``RunCheckpoint`` each time a level enters a state, on the run's task, right after the
    /// `stateEntered` event, and again, without one, when a map state's element starts or ends, a repeat state's
    /// body starts a run, or a step's retry is scheduled (right after `retryScheduled`): what a journal keeps so that
    /// an interrupted run can be resumed or cancelled later. Each replaces its level's previous one. A map
    /// state's checkpoints after its first list only the results new since the one before: keep each folded onto its
    /// level's previous one (``RunCheckpoint/folded(onto:)``) to resume from it.
    public var checkpoints: (@Sendable (RunCheckpoint) -> Void)?
    /// A cancel switch the caller keeps, for runs it cannot reach through a ``RunHandle`` (``WorkflowEngine/run(_:inputs:on:options:)``)
    /// or before it has one: cancelling it cancels the run as ``RunHandle/cancel()`` does. Cancelled from the run's
    /// observer as a state is entered, it takes effect before that state does any work.
    public var cancellation: RunCancellation?
    /// Told of every report, checkpoint and hub call as the run's driver performs them (a write-ahead journal;
    /// see ``RunRecording``).
    public var recording: (any RunRecording)?
    /// Answers to the run's questions given in advance, by question name (or ask state name); each is used once,
    /// when its question is asked, and checked then (one that does not fit is reported as `answerRejected` and the
    /// question waits for another). A string that does not fit as it is reads as typed text: a choice's number or
    /// label, `yes` or `no`.
    public var answers: [String: JSONValue] = [:]
    /// Seconds since 1970 at which the run's clock reads zero, for delay states that wait until a moment; nil: the
    /// system's time when the run starts, less the clock's reading then. Tests and fixtures set it, so moments are
    /// deterministic.
    public var wallClockOrigin: Double?
    /// The clock questions' timeouts run on, when not the run's clock: a run on virtual time that a person answers
    /// gives them real seconds (and virtual time stands still while a question waits).
    public var questionClock: (any WorkflowClock)?
    /// Whether a question timed on ``questionClock`` keeps the run's own clock from moving while it waits: true (the
    /// default) for a run a person follows, so virtual time stands still for the question; false for runs that share
    /// a virtual clock with others that must go on while a person answers (a fleet's worker).
    public var questionHoldsClock = true
    /// A switch that parks the run at its next checkpoint (see ``RunPause``).
    public var pause: RunPause?
    /// How many of the run's events ``RunHandle/events`` keeps for a reader who has not taken them yet: nil (the
    /// default) keeps every one; `n` keeps the newest `n`, dropping older ones a slow reader has not taken; 0 keeps
    /// none (a caller that only awaits the result: the run then builds no events for the handle at all). The
    /// ``observer`` is told of every event whatever this says.
    public var eventBufferLimit: Int?
    /// Where the run adds its secrets for text no run produced (``SharedSecrets``: a worker takes them out of its
    /// hub's standard error); nil: they stay the run's own.
    public var sharedSecrets: SharedSecrets?

    /// Options for a run into `structureID`; by default on real time with the system's random source, a generated run
    /// ID, secrets redacted and no observer.
    public init(
        structureID: StructureID, clock: any WorkflowClock = SystemClock(),
        random: any RandomSource = SystemRandomSource(), runID: String? = nil, showSecrets: Bool = false,
        observer: (@Sendable (RunEvent) -> Void)? = nil
    ) {
        self.structureID = structureID
        self.clock = clock
        self.random = random
        self.runID = runID
        self.showSecrets = showSecrets
        self.observer = observer
    }
}
