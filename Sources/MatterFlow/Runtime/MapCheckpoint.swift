import MatterFlowJSON

/// How far a map state had got when its level's checkpoint was taken: the element that was starting, and what
/// became of the elements before it. Recovery restores the map from it, so elements that ended are not run again.
public struct MapCheckpoint: Sendable, Hashable {
    /// The element starting (from 0).
    public var index: Int
    /// One result per element before it, as the map's result lists them (`index`, `item`, `status`, and `output`
    /// or `error`). Secret values are ``RunOptions/redacted`` unless the run shows secrets.
    public var results: [JSONValue]

    public init(index: Int, results: [JSONValue]) {
        self.index = index
        self.results = results
    }

    /// The progress as the journal stores it.
    public var jsonValue: JSONValue {
        ["index": .int(index), "results": .array(results)]
    }

    /// Reads progress stored with ``jsonValue``; nil when the value is not one.
    public init?(json: JSONValue) {
        guard let index = json["index"]?.intValue, index >= 0, Double(index) < MapIteration.itemLimit.upperBound,
            let results = json["results"]?.arrayValue, results.count == index
        else { return nil }
        self.init(index: index, results: results)
    }
}
