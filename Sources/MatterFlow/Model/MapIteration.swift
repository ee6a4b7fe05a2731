import MatterFlowJSON

/// What makes a sub-workflow state a `map` state: its body (the state's sub-workflow) runs once per element of a
/// list, with the element bound as a variable while the body's inputs are evaluated.
///
/// Up to `concurrency` elements run at once (one after another, in list order, with the default 1), each element's
/// calls one at a time under a call context of its own (see ``HubCallContext/element``); the results are in list
/// order whatever order the elements end in. The verifier refuses a `concurrency` above 1 when the body works in the
/// commissioning session (one per structure), and bounds a map's time as `ceil(maxItems / concurrency)` runs of its
/// body. A failed element is recorded in the result; once more than `tolerateFailures` elements have failed, no
/// further element starts, the elements still running are cancelled (their cancel paths run), and the map fails
/// with `mapElementsFailed` once they have ended.
public struct MapIteration: Sendable {
    /// The list to iterate over, evaluated when the state is entered (for example `${vars.completion.deviceIDs}`).
    public var items: Template
    /// The variable the element is bound to while the body's inputs are evaluated (`${vars.<as>}`).
    public var elementName: String
    /// The longest list the state accepts; a longer one fails the state with `mapTooManyItems`. The verifier's
    /// bound on how often the body runs.
    public var maxItems: Int
    /// How many elements may run at once (1 to `maxItems`; 1 runs them one after another).
    public var concurrency: Int
    /// How many elements may fail while the map still succeeds; 0 stops at the first failure.
    public var tolerateFailures: Int

    /// A map over `items`, each bound as `elementName`; the defaults run elements one after another and stop at the
    /// first failure.
    public init(items: Template, elementName: String, maxItems: Int, concurrency: Int = 1, tolerateFailures: Int = 0) {
        self.items = items
        self.elementName = elementName
        self.maxItems = maxItems
        self.concurrency = concurrency
        self.tolerateFailures = tolerateFailures
    }

    /// Whether elements may run at once.
    public var isConcurrent: Bool { concurrency > 1 }

    /// How many elements a map may declare: `maxItems` and `concurrency` lie in this range (and within
    /// `maxItems`), `tolerateFailures` in ``failureLimit``.
    public static let itemLimit = NumberRange(integers: 1...10_000, unit: "elements")
    /// The range of `tolerateFailures` (and within `maxItems`).
    public static let failureLimit = NumberRange(integers: 0...10_000, unit: "elements")
}

extension SubworkflowState {
    /// The `type` name the state has in workflow files: `map`, `repeat`, or `workflow`.
    public var typeName: String { map != nil ? "map" : repeating != nil ? "repeat" : "workflow" }
}
