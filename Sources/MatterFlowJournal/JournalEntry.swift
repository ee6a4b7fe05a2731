import MatterFlow
import MatterFlowJSON

/// What one journal record says, typed: one case per record type, each carrying only that type's members
/// (documented in `docs/journal.md`). ``JournalEntryCodec`` is the one place that turns entries into record
/// payloads and back.
public enum JournalEntry: Sendable, Hashable {
    /// The run began, before any hub call.
    case runStarted(RunStartedEntry)
    /// A workflow level entered a state: what recovery restores the run from.
    case checkpoint(RunCheckpoint)
    /// A hub call is about to be made (flushed before the hub sees it).
    case intent(IntentEntry)
    /// A hub call ended.
    case outcome(OutcomeEntry)
    /// An abandoned call's result arrived after its outcome was recorded.
    case lateResult(LateResultEntry)
    /// The run ended.
    case runFinished(RunFinishedEntry)
    /// One of the run's events (`stateEntered`, `transitionTaken`, ...).
    case event(JournalEventEntry)
    /// A recovery began examining the interrupted run.
    case recoveryStarted(RecoveryStartedEntry)
    /// A torn last record was cut off before recovery appended.
    case tornTailDiscarded(JournalContents.TornTail)
    /// An in-doubt call, reconciled by reading the hub.
    case resolution(ResolutionEntry)
    /// Recovery could not finish; a later recovery tries again.
    case recoveryDeferred(reason: String)
    /// Recovery finished.
    case recoveryFinished(RecoveryFinishedEntry)

    /// The record types other than the run's events, as the `type` member names them.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// One case per ``JournalEntry`` case except ``JournalEntry/event(_:)``, with the same name.
        case runStarted, checkpoint, intent, outcome, lateResult, runFinished, recoveryStarted, tornTailDiscarded,
            resolution, recoveryDeferred, recoveryFinished
    }

    /// The record's `type` member.
    public var type: String {
        switch self {
        case .runStarted: Kind.runStarted.rawValue
        case .checkpoint: Kind.checkpoint.rawValue
        case .intent: Kind.intent.rawValue
        case .outcome: Kind.outcome.rawValue
        case .lateResult: Kind.lateResult.rawValue
        case .runFinished: Kind.runFinished.rawValue
        case .event(let event): event.name.rawValue
        case .recoveryStarted: Kind.recoveryStarted.rawValue
        case .tornTailDiscarded: Kind.tornTailDiscarded.rawValue
        case .resolution: Kind.resolution.rawValue
        case .recoveryDeferred: Kind.recoveryDeferred.rawValue
        case .recoveryFinished: Kind.recoveryFinished.rawValue
        }
    }

    /// Whether the run waits for the record to be durable before it goes on: an `intent`, before the hub sees its
    /// call (the write-ahead rule); `runFinished`, before the run's end is reported; and recovery's records. A file
    /// journal flushes each with `fsync`. A run store starts a batch at once for each but `runFinished`, which the
    /// batch that records the run's final status (or recovery's next flushed record) carries, in the same
    /// transaction.
    ///
    /// The others become durable with the next flushed record: `runStarted` and checkpoints with the first intent,
    /// before any call; an `outcome` or `lateResult` with the run's next intent or its `runFinished`. A file journal
    /// writes them at once, so a killed process loses none of them, only a power loss; a run store keeps them in the
    /// worker's committer until its next batch (at most 50 ms), so a killed worker can lose those of its last
    /// moments too. Either way only records after the run's last durable one are lost: a lost `outcome` leaves its
    /// call in doubt, as a crash during the call would, and recovery reconciles it by reading the hub.
    public var isFlushed: Bool {
        switch self {
        case .checkpoint, .event, .runStarted, .outcome, .lateResult: false
        case .intent, .runFinished, .recoveryStarted, .tornTailDiscarded, .resolution, .recoveryDeferred, .recoveryFinished:
            true
        }
    }
}

/// One decoded record: its place in the journal and what it says.
public struct JournalEntryRecord: Sendable, Hashable {
    /// The record's sequence number, from 1.
    public var sequence: Int
    /// When the record was written, in seconds since the Unix epoch.
    public var wallTime: Double
    /// What the record says.
    public var entry: JournalEntry
}

/// `runStarted`: what the run is, so recovery can load it again.
public struct RunStartedEntry: Sendable, Hashable {
    /// The run's ID.
    public var runID: String
    /// The workflow's name.
    public var workflow: String
    /// The workflow's version.
    public var version: Int
    /// The workflow file's absolute path.
    public var file: String
    /// SHA-256 of the workflow file and its sub-workflows' hashes.
    public var contentHash: String
    /// The structure the run works on.
    public var structureID: StructureID
    /// The run's inputs, defaults filled in, secrets ``RunOptions/redacted`` unless shown.
    public var inputs: JSONObject
    /// Whether the run shows secrets (``RunOptions/showSecrets``), so that its records hold them unredacted.
    public var secretsShown: Bool
    /// The process ID of the process that ran the run.
    public var pid: Int
    /// The journal format version the run wrote.
    public var format: Int
    /// Salted digests of the secret inputs; nil when the run had none (or an older MatterFlow wrote the journal).
    var secretDigests: SecretDigests?
    /// The directory the simulated home the run acted on is kept in (`matterflow run --state`), as an absolute
    /// path; nil for any other hub. Recovery settles the run only against that home.
    public var homeDirectory: String?
    /// The hub the run called over the hub protocol (`--hub`); nil for the simulated home. Recovery settles the run
    /// only against that hub (``RemoteHubIdentity``).
    public var remoteHub: RemoteHubIdentity? = nil
}

/// `intent`: a hub call about to be made, with every fact of its operation that recovery reasons with.
public struct IntentEntry: Sendable, Hashable {
    /// The key the hub saw as ``HubCallContext/idempotencyKey``: `<runID>/<n>` for the run's n-th call,
    /// `<runID>/<element>/<n>` for the n-th call of an element of a concurrent map state (``HubCallContext/element``),
    /// `<runID>/recovery-<seq>` for recovery's own calls.
    public var key: String
    /// The workflow path (`commission-device/commission`), or `recovery` for recovery's own calls.
    public var workflow: String
    /// The state that makes the call.
    public var state: String
    /// The operation called.
    public var operation: String
    /// The structure the call is made on.
    public var structureID: StructureID
    /// The state's attempt the call belongs to, from 1 (recovery's own calls are attempt 1).
    public var attempt: Int
    /// The call's arguments, secrets redacted unless shown.
    public var arguments: JSONObject
    /// The operation's effect; nil when the catalog did not know the operation.
    public var effect: OperationDescriptor.Effect?
    /// Whether the operation opens the commissioning session (``OperationDescriptor/acquiresSession``).
    public var acquiresSession: Bool
    /// Whether the operation releases the commissioning session (``OperationDescriptor/releasesSession``).
    public var releasesSession: Bool
    /// The operation's order rules (``OperationDescriptor/requires``); nil in journals written before they were kept.
    public var requires: [OrderRequirement]?
    /// Whether a failed release still ends the duty to release (``OperationDescriptor/releaseAttemptSuffices``);
    /// nil in journals written before it was kept.
    public var releaseAttemptSuffices: Bool?
    /// The argument by which the hub recognises a repeat of the call, and its value as the hub saw it (redacted
    /// when the argument is secret); nil when the operation has none.
    public var idempotencyKey: IdempotencyKey?
    /// The session the call was made in (``HubCallContext/expectedSessionID``), for recovery's release.
    public var sessionID: String?
    /// The custom guard whose check the call was (a read before the state's own work); nil for the state's own call.
    public var guardName: String? = nil

    /// An operation's idempotency argument and the value a call gave it.
    public struct IdempotencyKey: Sendable, Hashable {
        /// The name of the argument.
        public var argument: String
        /// Null when the call did not give the argument.
        public var value: JSONValue
    }

    /// Whether the call works inside the commissioning session without opening one (as
    /// ``OperationDescriptor/usesSession``), from the recorded facts.
    public var usesSession: Bool {
        !acquiresSession && (releasesSession || (requires ?? []).contains { $0.scope == .session })
    }
}

/// `outcome`: how a hub call ended.
public struct OutcomeEntry: Sendable, Hashable {
    /// The key of the call's intent.
    public var key: String
    /// The workflow path, as in the call's intent.
    public var workflow: String
    /// The state, as in the call's intent.
    public var state: String
    /// The operation called.
    public var operation: String
    /// The attempt, as in the call's intent.
    public var attempt: Int
    /// How long the call took on the run's clock; nil for recovery's own calls, which do not record it.
    public var durationSeconds: Double?
    /// The call's result (secret fields redacted) when it succeeded, its error when it failed.
    public var result: Result<JSONValue, FlowError>
    /// The devices a `commissionDevice` created (pending until completion); nil when not recorded.
    public var devices: [String]?

    /// Whether the call succeeded.
    public var succeeded: Bool {
        if case .success = result { return true }
        return false
    }

    /// The result of a successful call; nil for a failed one.
    public var value: JSONValue? {
        if case .success(let value) = result { return value }
        return nil
    }
}

/// `lateResult`: the result of a call abandoned (timed out or cancelled) after its outcome was recorded.
public struct LateResultEntry: Sendable, Hashable {
    /// The key of the abandoned call's intent.
    public var key: String
    /// The operation called.
    public var operation: String
    /// The call's result, secret fields redacted unless the run shows secrets.
    public var result: JSONValue
    /// The devices the call created; nil when not recorded.
    public var devices: [String]?
}

/// `runFinished`: the run's terminal record.
public struct RunFinishedEntry: Sendable, Hashable {
    /// How the run ended.
    public var outcome: RunResult.Outcome
    /// The run's error; nil when it has none.
    public var error: FlowError?
    /// The run's output, when recovery continued it and it succeeded.
    public var output: JSONValue?
    /// Whether recovery wrote it.
    public var recovered: Bool
    /// Whether the run ended holding its commissioning session (``RunResult/holdsSession``); nil in a record written
    /// by an engine that did not record it, when only the hub can tell.
    public var holdsSession: Bool?

    /// A terminal record with these members.
    public init(outcome: RunResult.Outcome, error: FlowError?, output: JSONValue?, recovered: Bool, holdsSession: Bool?) {
        self.outcome = outcome
        self.error = error
        self.output = output
        self.recovered = recovered
        self.holdsSession = holdsSession
    }

    /// The error as the record keeps it (`code`, `cause`, `message`, `state`); nil when the run has none.
    public var errorJSON: JSONValue? { error.map { JournalEntryCodec.json($0) } }
}

/// One of the run's events, as the journal keeps it.
public struct JournalEventEntry: Sendable, Hashable {
    /// The journaled events, by the run event's name.
    public enum Name: String, Sendable, Hashable, CaseIterable {
        /// The run events the journal records, each named as its record's `type`.
        case stateEntered, guardChecked, retryScheduled, transitionTaken, warning, waitStarted, eventReceived,
            questionAsked, answered, answerRejected, delayStarted, cancelRequested
    }

    /// Which event it is.
    public var name: Name
    /// The workflow path of the level the event happened in.
    public var workflow: String
    /// The state it happened in; nil for transitions, which name `from` and `to` in ``details``.
    public var state: String?
    /// Seconds on the run's clock.
    public var clockTime: Double
    /// The event's other members, as in ``RunEvent/jsonValue``.
    public var details: JSONObject
}

/// `recoveryStarted`.
public struct RecoveryStartedEntry: Sendable, Hashable {
    /// How the recovery settles the run.
    public enum Mode: String, Sendable, Hashable {
        /// `cancel` takes the run's cancel path; `resume` (`--resume`) continues the run where that is safe.
        case cancel, resume
    }

    /// Whether recovery was asked to take the run's cancel path or to resume it.
    public var mode: Mode
    /// The process ID of the recovering process.
    public var pid: Int
    /// The sequence number of the run's last record before recovery.
    public var lastSequence: Int
    /// The innermost state the run was in, qualified by sub-workflow.
    public var interruptedIn: String?
}

/// `resolution`: recovery's verdict on one in-doubt call, with the intent's place.
public struct ResolutionEntry: Sendable, Hashable {
    /// Recovery's verdict on the call, with what it read from the hub.
    public var resolution: Resolution
    /// The workflow path of the call's intent.
    public var workflow: String
    /// The state of the call's intent.
    public var state: String
}

/// `recoveryFinished`.
public struct RecoveryFinishedEntry: Sendable, Hashable {
    /// How the run ended.
    public var outcome: RunResult.Outcome
    /// Whether the run was continued (resumed) instead of taking its cancel path.
    public var resumed: Bool
    /// Whether recovery released a commissioning session the run held.
    public var releasedSession: Bool
    /// How many in-doubt calls recovery reconciled.
    public var resolutions: Int
}

/// What a record says a call did: the one place that knows which records carry a call's result (its outcome, a
/// result that came after the run stopped waiting, recovery's resolution of a call in doubt), so that readers of
/// results, sessions and devices cannot miss one.
struct JournaledCallResult {
    enum Source {
        /// The run's own outcome record: `tookEffect` when the call succeeded.
        case outcome
        /// A result that came late: the call took effect.
        case lateResult
        /// Recovery's resolution: `tookEffect` when it found the call applied.
        case resolution
    }

    var source: Source
    var key: String
    var operation: String
    /// The call's result, when it answered one (a failed outcome has none).
    var result: JSONValue?
    var devices: [String]
    var tookEffect: Bool
}

extension JournalEntry {
    /// The call result the record carries, or nil for a record that carries none.
    var callResult: JournaledCallResult? {
        switch self {
        case .outcome(let outcome):
            JournaledCallResult(
                source: .outcome, key: outcome.key, operation: outcome.operation, result: outcome.value,
                devices: outcome.devices ?? [], tookEffect: outcome.succeeded)
        case .lateResult(let late):
            JournaledCallResult(
                source: .lateResult, key: late.key, operation: late.operation, result: late.result, devices: late.devices ?? [],
                tookEffect: true)
        case .resolution(let entry):
            JournaledCallResult(
                source: .resolution, key: entry.resolution.key, operation: entry.resolution.operation,
                result: entry.resolution.result, devices: entry.resolution.devices, tookEffect: entry.resolution.verdict == .applied)
        case .runStarted, .checkpoint, .intent, .runFinished, .event, .recoveryStarted, .tornTailDiscarded, .recoveryDeferred,
            .recoveryFinished:
            nil
        }
    }
}
