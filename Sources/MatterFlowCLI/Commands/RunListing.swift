import MatterFlowStore

/// How many runs `matterflow runs` lists: the newest ``defaultLimit`` unless `--limit` or `--all` says otherwise, so a
/// store that keeps every run is not read whole (and printed whole) by a plain `runs`.
///
/// The store is asked for one run more than are shown: when it has that one, more match, and a note says how to see
/// them.
struct RunListing {
    /// The runs listed when neither `--limit` nor `--all` is given.
    static let defaultLimit = 100

    /// The filter as given (`--status`, `--since`, `--limit`).
    let asked: RunFilter
    /// The number of runs shown at most when the default applies; nil when `--limit` or `--all` was given.
    let cap: Int?
    /// `--since` as a span back from now (`2h`), in seconds, counted back from the store's clock when the listing
    /// reads it (``filter(now:)``); nil for a timestamp, which ``asked`` holds.
    let sinceSpan: Double?

    /// The listing of `filter`'s runs, every one with `every` (`--all`).
    init(filter: RunFilter, every: Bool, sinceSpan: Double? = nil) {
        asked = filter
        cap = filter.limit == nil && !every ? Self.defaultLimit : nil
        self.sinceSpan = sinceSpan
    }

    /// What a store whose clock reads `now` is asked for: ``filter``, with a span of `--since` counted back from it.
    func filter(now: Double) -> RunFilter {
        var filter = self.filter
        if let sinceSpan { filter.since = now - sinceSpan }
        return filter
    }

    /// What the store is asked for: with the default, one run more than are shown.
    var filter: RunFilter {
        var filter = asked
        if let cap { filter.limit = cap + 1 }
        return filter
    }

    /// The runs to show of those read (oldest first): the newest ``cap`` of them.
    func shown<Run>(_ runs: [Run]) -> [Run] {
        guard let cap, runs.count > cap else { return runs }
        return Array(runs.suffix(cap))
    }

    /// Says on standard error that more runs match than were shown, when `read` (as many as the store returned) is
    /// more than the default shows.
    func noteCut(_ read: Int, environment: ToolEnvironment) {
        guard let cap, read > cap else { return }
        environment.standardError.line(
            "note: the newest \(cap) runs are listed, and more match: --limit N lists the newest N, --all every one "
                + "(--status and --since narrow them)")
    }
}
