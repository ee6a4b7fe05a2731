/// Numbered states' neighbours in one flat array (each state's are `targets[offsets[s] ..< offsets[s + 1]]`),
/// instead of an array per state.
struct Adjacency {
    private var offsets: [Int]
    private var targets: [Int]

    /// The neighbours of `count` states, from pairs (state, neighbour), in the order given.
    init(count: Int, _ pairs: [(Int, Int)]) {
        var offsets = [Int](repeating: 0, count: count + 1)
        for (from, _) in pairs { offsets[from + 1] += 1 }
        for index in 0..<count { offsets[index + 1] += offsets[index] }
        var fill = offsets
        var targets = [Int](repeating: 0, count: pairs.count)
        for (from, to) in pairs {
            targets[fill[from]] = to
            fill[from] += 1
        }
        self.offsets = offsets
        self.targets = targets
    }

    /// The neighbours of state `state`.
    subscript(state: Int) -> ArraySlice<Int> { targets[offsets[state]..<offsets[state + 1]] }

    /// The states reachable from `roots` (themselves included), as one flag per state.
    func closure(from roots: [Int]) -> [Bool] {
        var seen = [Bool](repeating: false, count: offsets.count - 1)
        var queue: [Int] = []
        for root in roots where !seen[root] {
            seen[root] = true
            queue.append(root)
        }
        while let next = queue.popLast() {
            for neighbour in self[next] where !seen[neighbour] {
                seen[neighbour] = true
                queue.append(neighbour)
            }
        }
        return seen
    }
}
