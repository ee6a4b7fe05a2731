import MatterFlowJSON

/// What became of a map state's elements that ended, by index: one slot per item, so an element's result is kept
/// in place whatever order elements end in, and the map's result lists them in element order without sorting.
struct MapResults: Sendable {
    /// Each element's entry in the map's result (``RunMachine/keepResult(_:index:items:in:_:state:)``); nil
    /// for an element that has not ended.
    private(set) var byIndex: [JSONValue?]
    /// How many of the ended elements failed.
    private(set) var failures = 0
    /// About how many bytes the entries kept take as JSON (``Scope/encodedSize(of:within:)``): at most
    /// ``Scope/valueLimit``, as for any value a state builds.
    private(set) var encodedBytes = 0
    /// The elements whose entries no checkpoint of this map state has recorded yet, in the order they ended (or
    /// were restored: a resumed map's first checkpoint lists every entry again).
    private var unrecorded: [Int] = []
    /// How many entries checkpoints have recorded: the next checkpoint leaves them out.
    private var recordedCount = 0

    init(count: Int) {
        byIndex = Array(repeating: nil, count: count)
    }

    /// Whether the element has ended.
    func hasEnded(_ index: Int) -> Bool { byIndex[index] != nil }

    /// Keeps an ended element's entry; `failed` counts it as a failure. False, and nothing kept, when the entries
    /// would take more than ``Scope/valueLimit`` as JSON: elements each returning a large value (the same list every
    /// time) would otherwise make a result no journal or trace could hold.
    mutating func keep(_ result: JSONValue, at index: Int, failed: Bool) -> Bool {
        guard let size = Scope.encodedSize(of: result, within: Scope.valueLimit - encodedBytes) else { return false }
        encodedBytes += size
        byIndex[index] = result
        unrecorded.append(index)
        if failed { failures += 1 }
        return true
    }

    /// Keeps an entry a checkpoint recorded, a failure when its status says so (kept within the limit when recorded).
    mutating func restore(_ result: JSONValue, at index: Int) {
        encodedBytes += Scope.encodedSize(of: result, within: .max) ?? 0
        byIndex[index] = result
        unrecorded.append(index)
        if result["status"]?.stringValue == "failed" { failures += 1 }
    }

    /// The map's result: every ended element's entry in element order, and how many succeeded and failed.
    var value: JSONValue {
        let results = byIndex.compactMap { $0 }
        return ["elements": .array(results), "succeeded": .int(results.count - failures), "failed": .int(failures)]
    }

    /// The map's progress as a checkpoint records it, secret values redacted by `redact`: the entries no earlier
    /// checkpoint recorded (all of them the first time), which count as recorded from now on. Each entry is
    /// redacted and written once, so a map of N elements journals N entries rather than N²/2.
    mutating func checkpoint(index: Int, running: [Int] = [], _ redact: (JSONValue) -> JSONValue) -> MapCheckpoint {
        let earlier = recordedCount
        unrecorded.sort()
        let new = unrecorded.compactMap { byIndex[$0].map(redact) }
        recordedCount += unrecorded.count
        unrecorded.removeAll(keepingCapacity: true)
        return MapCheckpoint(index: index, results: new, running: running, earlier: earlier)
    }
}
