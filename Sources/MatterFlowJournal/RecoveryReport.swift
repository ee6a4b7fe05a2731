import MatterFlow
import MatterFlowJSON

/// How recovery settled one in-doubt hub call: a call whose intent is in the journal but whose outcome is not.
public struct Resolution: Sendable, Hashable {
    /// What reading the hub showed.
    public enum Verdict: String, Sendable, Hashable {
        /// The call took effect.
        case applied
        /// The call had no effect, or its effect is gone (nothing of it is held).
        case notApplied
        /// The hub's state cannot tell; nothing is retried.
        case unknown
        /// The call only reads; there is nothing to reconcile.
        case noEffect
    }

    /// The call's idempotency key.
    public var key: String
    /// The catalog operation the call made, by name.
    public var operation: String
    /// What reading the hub showed of the call: applied, not applied, unknown, or no effect.
    public var verdict: Verdict
    /// What recovery read from the hub, in words.
    public var evidence: String
    /// Devices the call created, where it created some (so every device has a journal record of its creation).
    public var devices: [String]
    /// The call's result rebuilt from the hub's state (for example the session ID of an applied prepare).
    public var result: JSONValue?

    /// The resolution as JSON (`key`, `operation`, `verdict`, `evidence`, `devices`, `result`), as an entry of a
    /// run's `resolutions` in ``RunRecovery/jsonValue``.
    public var jsonValue: JSONValue {
        [
            "key": .string(key), "operation": .string(operation), "verdict": .string(verdict.rawValue),
            "evidence": .string(evidence), "devices": .array(devices.map(JSONValue.string)), "result": result ?? .null,
        ]
    }
}

/// What recovery did with one journal.
public struct RunRecovery: Sendable {
    /// What recovery did.
    public enum Action: String, Sendable, Hashable {
        /// The run was interrupted; recovery resolved it (cancel path or resume) and recorded its final status.
        case recovered
        /// Recovery put the run into a pool (``RunJournal/recover(into:options:settled:)``), resumed or on its cancel
        /// path; its journal ends when the run does (``RunRecovery/pooled`` is the run there).
        case continuing
        /// The run had already ended (by itself or through an earlier recovery): nothing to do.
        case alreadyFinished
        /// A live process holds the journal; the run was left alone.
        case running
        /// The journal holds no complete record: the run never began, so nothing is held.
        case notStarted
        /// Recovery could not finish (the reason is in ``notes``); run it again later.
        case deferred
        /// The file could not be read as a journal.
        case unreadable
    }

    /// The run's ID: its journal's file name without `.journal`, or the ID a ``SinkJournal`` recovery was given.
    public var runID: String
    /// The journal file recovered; for a ``SinkJournal`` recovery, the sink's name.
    public var path: String
    /// The workflow's name from the run's `runStarted` record; nil when recovery did not read one.
    public var workflow: String?
    /// The structure the run acts on, from its `runStarted` record; nil when recovery did not read one.
    public var structureID: String?
    /// When the run began, in seconds since the Unix epoch.
    public var startedAt: Double?
    /// What recovery did with the journal.
    public var action: Action
    /// The run's status once recovery is done.
    public var status: JournalRunStatus
    /// The state the run was in when it stopped (qualified by sub-workflow), for interrupted runs.
    public var interruptedIn: String?
    /// How recovery settled each of the run's in-doubt hub calls; empty when it settled none.
    public var resolutions: [Resolution] = []
    /// Whether recovery released a commissioning session the run held.
    public var releasedSession: Bool = false
    /// Whether the run was continued (resumed) instead of taking its cancel path.
    public var resumed: Bool = false
    /// Border routers whose ePSKc key, left active by the run, recovery withdrew.
    public var withdrewEpskc: [String] = []
    /// What recovery found or could not do, in words for a person (damage, why it deferred, what is left).
    public var notes: [String] = []
    /// Deferred because the run acted on another hub (or simulated home) than this recovery's.
    public var deferredForOtherHub = false
    /// The run in the pool recovery put it into (action ``Action/continuing``).
    public var pooled: RunPool.Run?
    /// The run's `runFinished` as recovery wrote it, or found it when the run had finished (its output and error, to
    /// report without reading the journal again); nil when the run has none.
    public var finished: RunFinishedEntry?
    /// The whole output of a run recovery continued to its end, secrets included (``finished`` has it redacted, as
    /// the journal does): for the caller to hand over (a fleet's worker to its secrets directory); never journaled
    /// nor in ``jsonValue``.
    public var output: JSONValue?
    /// Whether the run ended holding its commissioning session (``RunResult/holdsSession``): for a run recovery
    /// ended, and for one it found finished whose terminal record says (``RunFinishedEntry/holdsSession``); nil for
    /// any other run.
    public var holdsSession: Bool?

    /// The run's recovery as JSON: one entry of `runs` in ``RecoveryReport/jsonValue``, which `matterflow recover`
    /// prints on stdout.
    public var jsonValue: JSONValue {
        [
            "runID": .string(runID), "workflow": workflow.map(JSONValue.string) ?? .null,
            "structureID": structureID.map(JSONValue.string) ?? .null, "action": .string(action.rawValue),
            "status": .string(status.rawValue), "interruptedIn": interruptedIn.map(JSONValue.string) ?? .null,
            "resolutions": .array(resolutions.map(\.jsonValue)), "releasedSession": .bool(releasedSession),
            "resumed": .bool(resumed), "withdrewEpskc": .array(withdrewEpskc.map(JSONValue.string)), "notes": .array(notes.map(JSONValue.string)), "path": .string(path),
        ]
    }
}

/// What one recovery pass over a journal directory did.
public struct RecoveryReport: Sendable {
    /// One entry per journal in the directory, oldest run first.
    public var runs: [RunRecovery]
    /// Why the directory could not be listed (removed, unmounted, not readable); nil when it was. A report with a
    /// problem has no runs, though the directory may hold some: it needs attention.
    public var problem: String?

    /// A report of these runs.
    public init(runs: [RunRecovery], problem: String? = nil) {
        self.runs = runs
        self.problem = problem
    }

    /// Whether the directory could not be listed, or some run could not be settled (deferred or unreadable): it
    /// needs another recovery or a person.
    public var needsAttention: Bool {
        problem != nil || runs.contains { $0.action == .deferred || $0.action == .unreadable }
    }

    /// The runs this pass recovered.
    public var recovered: [RunRecovery] { runs.filter { $0.action == .recovered } }

    /// The report as JSON, as `matterflow recover` prints it.
    public var jsonValue: JSONValue {
        var object: JSONObject = ["runs": .array(runs.map(\.jsonValue)), "needsAttention": .bool(needsAttention)]
        if let problem { object["problem"] = .string(problem) }
        return .object(object)
    }
}

/// How to recover.
public struct RecoveryOptions: Sendable {
    /// Resume runs where that is safe instead of taking their cancel path (see `docs/journal.md`).
    public var resume: Bool
    /// With ``resume``: a run that could be resumed but for something a person can put right is left where it
    /// stopped (its recovery deferred: recover again once it is) instead of taking its cancel path, which would undo
    /// its commissioning: secret inputs not all given again, or a workflow file changed since the run started
    /// (restore it). (A secret answer not given again still takes the cancel path.) `matterflow recover --resume`
    /// sets it, as a person is there; a fleet's worker, which has nobody to ask, does not.
    public var keepsRunsItCannotResume = false
    /// The former name of ``keepsRunsItCannotResume``, which now also covers a workflow file to restore.
    @available(*, deprecated, renamed: "keepsRunsItCannotResume")
    public var keepRunsMissingSecrets: Bool {
        get { keepsRunsItCannotResume }
        set { keepsRunsItCannotResume = newValue }
    }
    /// Why the runs stopped, as recovery's messages say it, when the one recovering knows better than "its process
    /// stopped" (a fleet's worker: the run's lease ran out, or its worker handed it back); a hub connection's loss
    /// that the journal records is said instead either way.
    public var interruption: String?
    /// Values for the runs' secret inputs, which the journal never keeps; needed to resume a run that still
    /// uses them (`matterflow recover --input NAME=VALUE`).
    public var inputs: JSONObject
    /// Loads each run's workflow again (its catalog must be the one the run used).
    public var engine: WorkflowEngine
    /// The clock the continued runs' timeouts and retries use.
    public var clock: any WorkflowClock
    /// The wall-clock time, in seconds since the Unix epoch, a resumed run's waits are counted to from the wall
    /// times of its records (a question asked before it stopped times out no later for having stopped): this
    /// machine's clock by default; a fleet's worker gives its store's, which stamped the records.
    public var wallClock: @Sendable () -> Double = { JournalFile.wallTime() }
    /// Called at every boundary of the journal writes recovery makes (crash tests); nil in production.
    public var testHook: JournalTestHook?
    /// Interrupts the runs recovery continues (a signal to the process): they take their cancel path.
    public var interrupt: RecoveryInterrupt?
    /// Answers to the questions of resumed runs, by question (or ask state) name (`matterflow recover --answer`).
    /// A resumed run asks again a question it was waiting on when it stopped (one answered before it stopped is
    /// not asked again); a question with no answer here, or one that does not fit, makes the run take its cancel
    /// path at once, as recovery has nobody to ask. A secret question answered before the run stopped needs its
    /// answer again when the run still holds it: it is checked against the digest the journal keeps (another
    /// value is refused, as a secret input is) and put back into the variable the question bound.
    public var answers: [String: JSONValue] = [:]
    /// Given each run recovery continues (``recover(on:options:)``), as it starts, so that its questions can be
    /// answered while it runs (``RunHandle/give(_:to:)``). With it, a question without an answer here waits for one
    /// until its timeout instead of cancelling the run, as a run in a pool does (a fleet's worker answers them:
    /// `matterflow answer`); nil by default, as recovery has nobody to ask.
    public var answering: (@Sendable (RunHandle) -> Void)?
    /// The clock the questions of a run recovery continues time out on, and whether such a question holds the run's
    /// clock while it waits (``RunOptions/questionClock``, ``RunOptions/questionHoldsClock``).
    public var questionClock: (any WorkflowClock)?
    /// Whether a question of a run recovery continues, timed on ``questionClock``, keeps the run's own clock from
    /// moving while it waits; true by default.
    public var questionHoldsClock = true
    /// Told each event of a run recovery continues (a fleet's worker follows its waits); nil for none.
    public var observer: (@Sendable (RunEvent) -> Void)?
    /// Parks a run recovery resumes on its normal path (never one on its cancel path, nor one with a level or a map
    /// element on its cancel path) at its next checkpoint, or
    /// where it waits for an answer or a hub event, as ``RunOptions/pause`` parks a run: a fleet's stopping worker
    /// hands such a run back to be resumed again. Recovery then waits for it until it is released.
    public var pause: RunPause?
    /// Where a run recovery continues adds its secrets for text no run produced (``RunOptions/sharedSecrets``).
    public var sharedSecrets: SharedSecrets?
    /// The key the runs' secret digests were made with (``SecretDigestKey``), to check the secrets given again and
    /// to digest a resumed run's secret answers. A journal directory's recovery reads the directory's own key when
    /// this is nil; a ``SinkJournal`` has none but this (a fleet's worker passes its secrets directory's key). A run
    /// whose keyed digests cannot be checked is not resumed with secrets: `--resume` refuses it, saying why.
    public var digestKey: SecretDigestKey?
    /// The directory of the simulated home this recovery acts on (`matterflow recover --state`), nil for any other
    /// hub: a run whose `runStarted` names another (``RunStartedEntry/homeDirectory``) is not settled here, as its
    /// session and devices are in that home; recovery defers it, saying which directory to give.
    public var homeDirectory: String?
    /// The hub this recovery acts on, when it is one reached over the hub protocol (`matterflow recover --hub`); nil
    /// for the simulated home. A run whose `runStarted` names a hub (``RunStartedEntry/remoteHub``) is settled only
    /// against it: recovery defers the run, saying which `--hub` to give, when this is the simulated home or a hub
    /// that gives another name in its handshake.
    public var remoteHub: RemoteHubIdentity?
    /// A fleet's worker: a run that acted on another hub is handed on to a worker on its hub, so its deferral writes
    /// no `recoveryDeferred` record (each worker on another hub would add one).
    package var handsOnOtherHubsRuns = false
    /// Why the journal directory's key is not at hand (no key file, or one that cannot be read): the refusal of a
    /// run whose secrets it would check says so.
    var digestKeyProblem: String?

    /// Options for a recovery; by default it resumes nothing (interrupted runs take their cancel path), has no
    /// secret inputs, and uses a default engine and the system clock. Members without a parameter keep their
    /// defaults.
    public init(
        resume: Bool = false, inputs: JSONObject = [:], engine: WorkflowEngine = WorkflowEngine(),
        clock: any WorkflowClock = SystemClock(), testHook: JournalTestHook? = nil, interrupt: RecoveryInterrupt? = nil
    ) {
        self.resume = resume
        self.inputs = inputs
        self.engine = engine
        self.clock = clock
        self.testHook = testHook
        self.interrupt = interrupt
    }
}
