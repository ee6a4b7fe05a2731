import MatterFlowJSON

/// The worst-case duration of every path of a workflow, from its start to each way it can end, sub-workflows
/// included (`matterflow validate --budget`).
///
/// A step's worst case is `attempts × (guards × 15 s + call) + delays`: `attempts` is 1 plus the `maxRetries` of
/// every retrier that can match one of its errors; a guard's status check may take its 10 s timeout plus the
/// 5 s a cancelled call may take to wind down; an action's call may take its timeout plus that 5 s wind-down; a
/// sub-workflow's call is the child's worst case; `delays` are every retry delay, capped, without jitter (jitter
/// only shortens them). A wait takes at most its `timeoutSeconds`; other states take no time. A cancelled run
/// adds, where the cancel arrives, the 5 s wind-down of an abandoned call (or the sub-workflow's own cancel
/// tail), then the cancel path.
public struct TimeBudget: Sendable {
    /// One way a run can end, with the longest time it can take to get there.
    public struct End: Sendable, Hashable {
        /// How a run reaches an end.
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            /// A succeed state.
            case succeed
            /// A fail state.
            case fail
            /// An error no route of the state takes ends the workflow there.
            case unroutedError
            /// The run was cancelled in a workflow without a cancel path: it ends at once.
            case cancelled
        }

        /// The end state (or the state the error leaves, or where the cancel arrived).
        public var state: String
        /// How the run reaches this end.
        public var kind: Kind
        /// Reached on the cancel path of a cancelled run.
        public var afterCancel: Bool
        /// The longest a run can take to reach this end, in seconds.
        public var worstSeconds: Double
        /// The states of the longest path, from the start.
        public var path: [String]
    }

    /// A status check of a guard may take this long (its timeout).
    public static let guardTimeoutSeconds = 10.0
    /// A call abandoned at its timeout or by a cancel may take this long to wind down (``StepRace``).
    public static let windDownSeconds = StepRace.gracePeriod.secondsValue

    /// The workflow's name.
    public var workflow: String
    /// Every end, normal runs first, in the order of the states.
    public var ends: [End]
    /// States of a loop that makes the duration unbounded (the first state repeated at the end); nil if none.
    public var loop: [String]?
    /// The workflow's declared deadline.
    public var deadlineSeconds: Double?

    /// The budget of a loaded workflow.
    public init(workflow: Workflow, catalog: OperationCatalog = .standard) {
        self.init(workflow: workflow, context: VerificationContext(catalog: catalog))
    }

    init(workflow: Workflow, context: VerificationContext) {
        let graph = context.budgetGraph(workflow)
        self.workflow = workflow.name
        deadlineSeconds = workflow.contract.deadlineSeconds
        loop = graph.loop
        ends = graph.ends
    }

    /// The longest any run can take, cancelled or not; infinite when a loop makes it unbounded.
    public var worstSeconds: Double {
        loop != nil ? .infinity : ends.map(\.worstSeconds).max() ?? 0
    }

    /// The longest a run that is not cancelled can take.
    public var worstUncancelledSeconds: Double {
        loop != nil ? .infinity : ends.filter { !$0.afterCancel && $0.kind != .cancelled }.map(\.worstSeconds).max() ?? 0
    }

    /// The budget as text, one end per line (what `matterflow validate --budget` prints).
    public var text: String {
        var lines = ["\(workflow): worst-case duration to each end"]
        if let loop {
            lines.append("  unbounded: a run can loop \(loop.joined(separator: " -> "))")
            return lines.joined(separator: "\n")
        }
        let width = max(12, ends.map { Self.label($0).count }.max() ?? 0)
        for end in ends {
            let label = Self.label(end)
            lines.append("  " + label + String(repeating: " ", count: width - label.count + 2) + Self.format(end.worstSeconds))
        }
        if let deadlineSeconds {
            let worst = worstSeconds
            lines.append("  deadline \(Self.format(deadlineSeconds)): " + (worst <= deadlineSeconds ? "met (worst \(Self.format(worst)))" : "NOT met (worst \(Self.format(worst)))"))
        }
        return lines.joined(separator: "\n")
    }

    /// How an end is named in the text: `failed`, `failed (cancelled run)`, `unrouted error in fetch`.
    public static func label(_ end: End) -> String {
        switch end.kind {
        case .succeed, .fail: end.state + (end.afterCancel ? " (cancelled run)" : "")
        case .unroutedError: "unrouted error in \(end.state)" + (end.afterCancel ? " (cancelled run)" : "")
        case .cancelled: "cancelled (no cancel path)"
        }
    }

    /// Seconds as `837 s` or `12.5 s`, with minutes for long ones, `837 s (13 min 57 s)`, and hours and days for
    /// longer ones, leaving out units that are zero: `8641621 s (100 d 27 min 1 s)`.
    public static func format(_ seconds: Double) -> String {
        guard seconds.isFinite else { return "unbounded" }
        // To the millisecond; from 10^15 s on a double holds no milliseconds, and multiplying could overflow.
        let rounded = seconds.magnitude < 1e15 ? (seconds * 1000).rounded() / 1000 : seconds
        // Beyond 2^53 (nested retries multiply) in Swift's exponent form, `1e+27 s`, and without minutes.
        let text = NumberRange.format(rounded) + " s"
        guard rounded >= 120, rounded <= Double(NumberRange.largestExactInteger) else { return text }
        let whole = Int(rounded.rounded(.down))
        guard whole >= 3600 else { return text + " (\(whole / 60) min \(whole % 60) s)" }
        let parts = [(whole / 86400, "d"), (whole % 86400 / 3600, "h"), (whole % 3600 / 60, "min"), (whole % 60, "s")]
        return text + " (" + parts.filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }.joined(separator: " ") + ")"
    }
}

extension TimeBudget {
    /// The budget as JSON (for `matterflow validate --budget --json`).
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["workflow"] = .string(workflow)
        object["ends"] = .array(ends.map { end in
            [
                "state": .string(end.state), "kind": .string(end.kind.rawValue), "afterCancel": .bool(end.afterCancel),
                "worstSeconds": .double(end.worstSeconds), "path": .array(end.path.map(JSONValue.string)),
            ]
        })
        object["loop"] = loop.map { .array($0.map(JSONValue.string)) } ?? .null
        object["deadlineSeconds"] = deadlineSeconds.map(JSONValue.double) ?? .null
        object["worstSeconds"] = worstSeconds.isFinite ? .double(worstSeconds) : .null
        return .object(object)
    }
}
