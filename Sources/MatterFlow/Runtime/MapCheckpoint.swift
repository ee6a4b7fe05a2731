import MatterFlowJSON

/// How far a map state had got when its level's checkpoint was taken: the next element to start, the results of the
/// elements that had ended, and (for a map that runs elements at once) the elements running. Recovery restores the
/// map from it, so elements that ended are not run again.
///
/// A map records each element's result once: after its first checkpoint, a map state's checkpoint lists only the
/// results of the elements that ended since its previous one (``earlier`` counts the others). Fold such a checkpoint
/// onto the level's previous one with ``folded(onto:)`` (``RunCheckpoint/folded(onto:)`` for a whole level) before
/// resuming from it; the journal's reader does.
public struct MapCheckpoint: Sendable, Hashable {
    /// The element starting (from 0) for a map that runs one element at a time; the next element to start for one
    /// that runs several at once.
    public var index: Int
    /// One result per element that ended (with ``earlier`` above 0: per element that ended since the map's previous
    /// checkpoint), in element order, as the map's result lists them (`index`, `item`, `status`, and `output` or
    /// `error`). Secret values are ``RunOptions/redacted`` unless the run shows secrets.
    public var results: [JSONValue]
    /// The elements running at once, in the order they started; empty for a map that runs one at a time.
    public var running: [Int]
    /// How many results of ended elements the map's previous checkpoints hold and this one leaves out; 0 when
    /// ``results`` lists every element that ended.
    public var earlier: Int
    /// For a map that runs elements at once: the map's error, once it has failed (more elements failed than it
    /// tolerates, or its results grew too large) while its running elements are being cancelled. A map resumed
    /// from it starts no more elements and fails with it.
    public var failure: FlowError? {
        get { if case .error(let error)? = storedFailure { error } else { nil } }
        set { storedFailure = newValue.map(StoredFailure.error) }
    }
    /// The failure, kept out of line: a checkpoint (passed to every state entry, mostly as nil) stays small.
    private var storedFailure: StoredFailure?

    private indirect enum StoredFailure: Sendable, Hashable {
        case error(FlowError)
    }

    /// Progress at element `index`, with the results of the elements that ended and the elements running (none by
    /// default); `earlier` results left out, as the map's previous checkpoints hold them (none by default); the
    /// map's error once it has failed.
    public init(index: Int, results: [JSONValue], running: [Int] = [], earlier: Int = 0, failure: FlowError? = nil) {
        self.index = index
        self.results = results
        self.running = running
        self.earlier = earlier
        self.storedFailure = failure.map(StoredFailure.error)
    }

    /// The progress as the journal stores it: `results` when it lists every result, else `earlier` and `newResults`
    /// (a key a reader that cannot fold checkpoints refuses, rather than take the new results for all of them).
    public var jsonValue: JSONValue {
        var object: JSONObject = ["index": .int(index)]
        if earlier > 0 {
            object["earlier"] = .int(earlier)
            object["newResults"] = .array(results)
        } else {
            object["results"] = .array(results)
        }
        if !running.isEmpty { object["running"] = .array(running.map(JSONValue.int)) }
        if let failure { object["failure"] = failure.jsonValue }
        return .object(object)
    }

    /// Reads progress stored with ``jsonValue``; nil when the value is not one (more elements than have started, a
    /// running element named twice or past `index`, or both or neither of `results` and `newResults`).
    public init?(json: JSONValue) {
        guard let index = json["index"]?.intValue, index >= 0, Double(index) < MapIteration.itemLimit.upperBound else { return nil }
        let results: [JSONValue]
        var earlier = 0
        switch (json["results"], json["newResults"]) {
        case (let listed?, nil):
            guard let all = listed.arrayValue, json["earlier"] == nil else { return nil }
            results = all
        case (nil, let listed?):
            guard let new = listed.arrayValue, let count = json["earlier"]?.intValue, count >= 1 else { return nil }
            results = new
            earlier = count
        case (nil, nil), (_?, _?):
            return nil
        }
        var running: [Int] = []
        if let list = json["running"], !list.isNull {
            guard let values = list.arrayValue, values.count <= index else { return nil }
            var seen = Set<Int>()
            for value in values {
                guard let element = value.intValue, element >= 0, element < index, seen.insert(element).inserted else { return nil }
                running.append(element)
            }
        }
        guard earlier <= index - running.count, results.count <= index - running.count - earlier else { return nil }
        var failure: FlowError?
        if let error = json["failure"], !error.isNull {
            guard let read = FlowError(checkpointJSON: error) else { return nil }
            failure = read
        }
        self.init(index: index, results: results, running: running, earlier: earlier, failure: failure)
    }

    /// This checkpoint with the results of `previous` (the same map state's checkpoint before it, folded) put back:
    /// every result in element order, ``earlier`` 0. Itself when it leaves nothing out; nil when `previous` does not
    /// hold the ``earlier`` results it leaves out (another number of them, or an element's result twice).
    public func folded(onto previous: MapCheckpoint) -> MapCheckpoint? {
        guard earlier > 0 else { return self }
        guard previous.earlier == 0, previous.results.count == earlier else { return nil }
        var byIndex: [Int: JSONValue] = [:]
        for result in previous.results + results {
            guard let element = result["index"]?.intValue, element >= 0, element < index, !running.contains(element),
                byIndex.updateValue(result, forKey: element) == nil
            else { return nil }
        }
        return MapCheckpoint(index: index, results: byIndex.keys.sorted().compactMap { byIndex[$0] }, running: running, failure: failure)
    }
}
