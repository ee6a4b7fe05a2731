import MatterFlowJSON

/// Something the hub reports on its own, such as an ePSKc session ending; wait states wait for these.
public struct HubEvent: Sendable, Hashable {
    /// The event's name, as in ``EventDescriptor/name`` (for example `epskcModeDeactivated`).
    public var name: String
    /// The structure the event was reported for.
    public var structureID: StructureID
    /// The value wait states branch on (for `epskcModeDeactivated`, the reason: `keyUsed`, `expired`, `cancelled`).
    public var value: String
    /// The event's payload, as a wait state's `result` variable sees it.
    public var fields: JSONObject
    /// When it happened, on the hub's clock.
    public var time: Duration

    /// An event with these members.
    public init(name: String, structureID: StructureID, value: String, fields: JSONObject, time: Duration) {
        self.name = name
        self.structureID = structureID
        self.value = value
        self.fields = fields
        self.time = time
    }
}

/// A subscription to a hub's events; events stop arriving once it is cancelled.
public protocol HubEventSubscription: Sendable {
    /// Stops the delivery of the subscription's events.
    func cancel()
    /// Why the hub delivers no events for this subscription, when it refused or failed it (nil by default): a run
    /// then warns at its first wait for an event, which can only time out.
    var failure: String? { get }
    /// Calls `handler` once, with why, if the subscription stops delivering events before it is cancelled (the
    /// connection to the hub was lost); at once if it already has. A run's waits then end by their timeout paths
    /// rather than wait for events that can no longer come.
    func whenLost(_ handler: @escaping @Sendable (String) -> Void)
}

extension HubEventSubscription {
    /// A subscription delivers its events unless it says otherwise.
    public var failure: String? { nil }

    /// Never calls `handler`: a hub in this process loses no connection.
    public func whenLost(_ handler: @escaping @Sendable (String) -> Void) {}
}

/// A subscription the hub refused or failed: it delivers nothing, and says why.
public struct FailedSubscription: HubEventSubscription {
    /// Why the hub delivers no events.
    public let failure: String?

    /// A subscription that failed for `reason` (a sentence naming the hub's error).
    public init(_ reason: String) { failure = reason }

    /// Does nothing: there is nothing to stop.
    public func cancel() {}
}

/// A subscription that delivers nothing, for hubs that report no events.
public struct NoEvents: HubEventSubscription {
    /// A subscription that delivers nothing.
    public init() {}
    /// Does nothing: there is nothing to stop.
    public func cancel() {}
}

/// An event a hub may report, with the values wait states can branch on.
public struct EventDescriptor: Sendable {
    /// The event's name, as wait states give it in `event`.
    public var name: String
    /// One line for `matterflow operations`.
    public var summary: String
    /// The payload field holding the value wait states branch on.
    public var valueField: String
    /// Every value the event may carry.
    public var values: [String]
    /// The payload's shape (what `${vars.<result>.field}` may read, and what `match` may compare).
    public var payload: ValueShape
    /// Payload fields holding secrets (a credential a hub hands over in an event): redacted wherever they appear, as
    /// secret result fields are.
    public var secretFields: Set<String>

    /// A descriptor with these members; no payload field is secret unless given.
    public init(
        name: String, summary: String, valueField: String, values: [String], payload: ValueShape, secretFields: Set<String> = []
    ) {
        self.secretFields = secretFields
        self.name = name
        self.summary = summary
        self.valueField = valueField
        self.values = values
        self.payload = payload
    }

    /// The payload's field names.
    public var fieldNames: [String] {
        if case .object(let fields) = payload { return fields.map(\.name) }
        return []
    }

    /// The descriptor as JSON, for `matterflow operations --json`.
    public var jsonValue: JSONValue {
        [
            "name": .string(name), "summary": .string(summary), "valueField": .string(valueField),
            "values": .array(values.map(JSONValue.string)), "payload": payload.jsonValue,
            "secretFields": .array(secretFields.sorted().map(JSONValue.string)),
        ]
    }
}
