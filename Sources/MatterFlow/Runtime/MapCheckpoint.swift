import MatterFlowJSON

/// How far a map state had got when its level's checkpoint was taken: the next element to start, the results of the
/// elements that had ended, and (for a map that runs elements at once) the elements running. Recovery restores the
/// map from it, so elements that ended are not run again.
public struct MapCheckpoint: Sendable, Hashable {
    /// The element starting (from 0) for a map that runs one element at a time; the next element to start for one
    /// that runs several at once.
    public var index: Int
    /// One result per element that ended, in element order, as the map's result lists them (`index`, `item`,
    /// `status`, and `output` or `error`). Secret values are ``RunOptions/redacted`` unless the run shows secrets.
    public var results: [JSONValue]
    /// The elements running at once, in the order they started; empty for a map that runs one at a time.
    public var running: [Int]

    /// Progress at element `index`, with the results of the elements that ended and the elements running (none by
    /// default).
    public init(index: Int, results: [JSONValue], running: [Int] = []) {
        self.index = index
        self.results = results
        self.running = running
    }

    /// The progress as the journal stores it.
    public var jsonValue: JSONValue {
        var object: JSONObject = ["index": .int(index), "results": .array(results)]
        if !running.isEmpty { object["running"] = .array(running.map(JSONValue.int)) }
        return .object(object)
    }

    /// Reads progress stored with ``jsonValue``; nil when the value is not one (more elements than have started, or
    /// a running element named twice or past `index`).
    public init?(json: JSONValue) {
        guard let index = json["index"]?.intValue, index >= 0, Double(index) < MapIteration.itemLimit.upperBound,
            let results = json["results"]?.arrayValue
        else { return nil }
        var running: [Int] = []
        if let list = json["running"], !list.isNull {
            guard let values = list.arrayValue, values.count <= index else { return nil }
            var seen = Set<Int>()
            for value in values {
                guard let element = value.intValue, element >= 0, element < index, seen.insert(element).inserted else { return nil }
                running.append(element)
            }
        }
        guard results.count + running.count <= index else { return nil }
        self.init(index: index, results: results, running: running)
    }
}
