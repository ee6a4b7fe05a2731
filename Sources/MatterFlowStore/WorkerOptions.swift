import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import Synchronization

/// How a worker runs.
public struct WorkerOptions: Sendable {
    /// The worker's ID in the store (`host-pid-xxxx` by default in the CLI).
    public var workerID: String
    /// Starts runs while fewer than this many work: a run waiting for an answer, a delay or a hub event (its last
    /// event began the wait) takes no slot, up to ``maxWaiting`` such runs more. A waiting run that wakes works even
    /// when every slot is taken, so for a moment more may work.
    public var concurrency: Int
    /// How many runs beyond ``concurrency`` the worker holds at most while they wait (each a suspended task of a few
    /// tens of KB): past it, a waiting run keeps its slot.
    public var maxWaiting: Int
    /// How long a claim lasts without a heartbeat; another worker takes the runs over after it.
    public var leaseSeconds: Double
    /// The lease length a worker has unless told otherwise.
    public static let defaultLeaseSeconds: Double = 10
    /// The safety net: how often an idle worker looks for work when the store has announced none (it listens
    /// for `NOTIFY matterflow_queue`, and wakes when the earliest lease of another worker's run runs out).
    public var pollMilliseconds: Int
    /// Resume taken-over runs where that is safe (`matterflow recover --resume`), instead of taking their cancel path.
    public var resume: Bool
    /// Where the runs' secret inputs wait (``SecretInbox``); nil when the runs have none.
    public var secrets: SecretInbox?
    /// Stop once the store has no queued and no running run left (tests and batch jobs).
    public var exitWhenIdle: Bool
    /// How long graceful shutdown waits for running runs before it hands them back.
    public var drainSeconds: Double
    /// Loads workflows; its catalog is the one runs use (wrapped for the fleet's session lock).
    public var engine: WorkflowEngine
    /// The clock of the runs' timeouts and retries.
    public var clock: any WorkflowClock
    /// The clock the runs' questions time out on: people answer in real time, whatever clock the runs use. A run
    /// waiting for an answer does not hold ``clock`` meanwhile, so the worker's other runs go on in virtual time.
    public var questionClock: any WorkflowClock
    /// The hub the worker's runs call, when it is one reached over the hub protocol: recorded in each run it starts,
    /// and a run another worker started on another hub (or on the simulated home) is not settled here, but handed
    /// back for a worker on its hub (``RemoteHubIdentity``). Nil for the simulated home.
    public var remoteHub: RemoteHubIdentity?
    /// Where the worker's runs, started or recovered, add their secrets (``SharedSecrets``), so that text no run
    /// produced can be cleared of them (the CLI's worker clears its hub command's standard error); nil for none.
    public var sharedSecrets: SharedSecrets?
    /// Told what the worker does, one line per event (the CLI prints them as text or JSON); nil for silence.
    public var log: (@Sendable (WorkerLogLine) -> Void)?
    /// Given what the worker did and holds (``WorkerMetrics``) after every heartbeat, on the heartbeat's thread (keep
    /// it quick: the leases wait for it); when a command finds the store out of reach or reachable again, on that
    /// command's thread; and a last time when it stops, after the heartbeats have. Reports from two threads may
    /// arrive out of the order they were taken in (``WorkerMetrics/reportedAt`` tells). Nil for none. The CLI hands
    /// them to a writer of `--metrics-file`, which keeps the newest.
    public var metrics: (@Sendable (WorkerMetrics) -> Void)?
    /// Called each time the worker found nothing to claim and starts waiting (tests).
    public var idle: (@Sendable () -> Void)?
    /// Whether the answer to the worker's n-th claim (1, 2, ...) is dropped after the store has committed it, as when
    /// the connection breaks then (tests of a lost reply).
    var dropsClaimReply: (@Sendable (Int) -> Bool)? = nil
    /// How often, at most, a worker that finds nothing to claim sweeps its secrets directory for the files of runs
    /// that have ended (``StoreWorker/sweepSecrets()``); it sweeps at start too.
    var secretsSweepSeconds: Double = 60
    /// This machine's wall-clock time (tests give a wrong one).
    var localWallClock: @Sendable () -> Double = { JournalFile.wallTime() }
    /// This machine's monotonic clock, as the worker's lease confirmations and the store's clock read it (tests move
    /// it on, as a pause of the process would).
    var monotonicClock: @Sendable () -> ContinuousClock.Instant = { .now }

    /// Options for the worker `workerID`; the others default to 32 runs at a time, 1000 waiting runs more, a 10 s
    /// lease, a 5 s poll, a 30 s drain, no resuming, no secrets directory, the system clock and no log. Nothing is
    /// checked here: ``problem`` says whether they are in range.
    public init(
        workerID: String, concurrency: Int = 32, maxWaiting: Int = 1000, leaseSeconds: Double = defaultLeaseSeconds, pollMilliseconds: Int = 5000,
        resume: Bool = false, secrets: SecretInbox? = nil, exitWhenIdle: Bool = false, drainSeconds: Double = 30,
        engine: WorkflowEngine = WorkflowEngine(), clock: any WorkflowClock = SystemClock(),
        questionClock: any WorkflowClock = SystemClock(),
        log: (@Sendable (WorkerLogLine) -> Void)? = nil, idle: (@Sendable () -> Void)? = nil
    ) {
        self.workerID = workerID
        self.concurrency = concurrency
        self.maxWaiting = maxWaiting
        self.leaseSeconds = leaseSeconds
        self.pollMilliseconds = pollMilliseconds
        self.resume = resume
        self.secrets = secrets
        self.exitWhenIdle = exitWhenIdle
        self.drainSeconds = drainSeconds
        self.engine = engine
        self.clock = clock
        self.questionClock = questionClock
        self.log = log
        self.idle = idle
    }
}

/// What a worker did before it stopped.
public struct WorkerSummary: Sendable, Hashable {
    /// Runs it started and finished, by final status.
    public var finished: [String: Int] = [:]
    /// Runs whose worker died that it settled (recovery) or started afresh (they had not begun).
    public var takenOver: Int = 0
    /// Runs it handed back at shutdown.
    public var handedBack: Int = 0
    /// Journal records it wrote, and the transactions (group commits) that carried them.
    public var records: Int = 0
    /// The transactions (group commits) that carried ``records``.
    public var transactions: Int = 0
    /// Claims that failed (the store out of reach, a statement timeout); each was tried again.
    public var claimFailures: Int = 0
    /// Heartbeats that failed; a lease of them in a row and the worker's runs are taken over.
    public var heartbeatFailures: Int = 0
    /// Runs in progress of which the store, reached again, had lost records this worker had committed, or the run
    /// itself (a failover to a standby that lacked the last commits, or a restore).
    public var storeLosses: Int = 0
    /// The records of those runs the store had lost.
    public var recordsLost: Int = 0
    /// Hub calls that first confirmed their run's lease with the store, because the worker had not known it held for
    /// half a lease (a heartbeat slow to answer, or the worker paused): none in a worker that keeps up.
    public var leaseConfirmations: Int = 0
    /// Why the worker stopped by itself, when it did: the store's schema changed under it (a `store migrate` by
    /// another MatterFlow), so it stopped claiming and handed its runs back, as on SIGTERM.
    public var schemaChanged: StoreError?
}
