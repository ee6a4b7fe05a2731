import MatterFlowJSON

/// How far a step's retries had gone when its level's checkpoint was taken: the attempt about to run and the
/// retries each retrier had allowed (``RunCheckpoint/retry``). A resumed run continues from them, so a step's
/// `maxRetries` bounds the whole run, not each process that runs a part of it.
public struct StepRetries: Sendable, Hashable {
    /// The attempt about to run: 2 or more.
    public var attempt: Int
    /// The retries each of the step's retriers had allowed, in the order the step lists them; they add up to
    /// `attempt - 1`.
    public var used: [Int]
    /// The delay before `attempt`, in seconds, as drawn (jitter included): a run resumed in it waits what is left;
    /// nil when it is not known, and the attempt then starts at once.
    public var delaySeconds: Double?

    /// The retries of a step about to run `attempt`, after the retries `used` and a delay of `delaySeconds`.
    public init(attempt: Int, used: [Int], delaySeconds: Double? = nil) {
        self.attempt = attempt
        self.used = used
        self.delaySeconds = delaySeconds
    }

    /// The most retriers a checkpoint may list, far above any workflow's.
    public static let retrierLimit = 1_000

    /// Whether the counts can describe a step's retries at all: attempt 2 or more, each count within
    /// `maxRetries`' range, at most ``retrierLimit`` retriers, the counts adding up to `attempt - 1`, and a delay, if
    /// any, of 0 to one day.
    public var isConsistent: Bool {
        guard attempt >= 2, used.count <= Self.retrierLimit,
            used.allSatisfy({ NumberLimits.retries.contains($0) }),
            delaySeconds.map({ NumberLimits.elapsed.contains($0) }) ?? true
        else { return false }
        return used.reduce(0, +) == attempt - 1
    }

    /// The retries as a checkpoint stores them: `{"attempt", "used", "delaySeconds"}`, the delay left out when it is
    /// not known.
    public var jsonValue: JSONValue {
        var object: JSONObject = ["attempt": .int(attempt), "used": .array(used.map(JSONValue.int))]
        if let delaySeconds { object["delaySeconds"] = .double(delaySeconds) }
        return .object(object)
    }

    /// Reads retries stored with ``jsonValue``; nil when the value is not such an object, has other members, or is
    /// not consistent.
    public init?(json: JSONValue) {
        guard let object = json.objectValue, let attempt = object["attempt"]?.intValue,
            let list = object["used"]?.arrayValue, list.count <= Self.retrierLimit
        else { return nil }
        var delay: Double?
        if let member = object["delaySeconds"] {
            guard let seconds = member.doubleValue else { return nil }
            delay = seconds
        }
        guard object.count == (delay == nil ? 2 : 3) else { return nil }
        var used: [Int] = []
        used.reserveCapacity(list.count)
        for count in list {
            guard let count = count.intValue else { return nil }
            used.append(count)
        }
        self.init(attempt: attempt, used: used, delaySeconds: delay)
        guard isConsistent else { return nil }
    }
}
