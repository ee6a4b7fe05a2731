/// The variables bound on entry to each reachable state of a workflow, on every path there (`intersect`) or on
/// some path, for ``ReferenceChecker``.
///
/// States are numbered in document order and each state's variables are bits of one row of a flat array, over
/// the variables some edge binds: a workflow of thousands of states would otherwise hold a set of strings per
/// state, and building, hashing and comparing those was most of the cost of checking references.
struct BindingFlow {
    /// The number of each variable some edge binds; other variables are bound nowhere.
    private let variables: [String: Int]
    /// Words per state.
    private let width: Int
    /// The bound variables of state `s` are bits of `bits[s * width ..< (s + 1) * width]`.
    private var bits: [UInt64]
    /// Whether a state is reached from the start.
    private var reached: [Bool]
    /// The number of each state.
    let stateIndex: [String: Int]

    /// - Parameters:
    ///   - edges: the workflow's edges to defined states, in order.
    ///   - bindings: what each edge binds (nil for an edge from an undefined state, which is not followed).
    init(workflow: Workflow, stateIndex: [String: Int], edges: [WorkflowEdge], bindings: [[String]?], intersect: Bool) {
        self.stateIndex = stateIndex
        var variables: [String: Int] = [:]
        for bound in bindings {
            for variable in bound ?? [] where variables[variable] == nil { variables[variable] = variables.count }
        }
        self.variables = variables
        let width = max(1, (variables.count + 63) / 64)
        self.width = width
        bits = [UInt64](repeating: 0, count: stateIndex.count * width)
        reached = [Bool](repeating: false, count: stateIndex.count)
        guard let start = stateIndex[workflow.start] else { return }
        // Each edge as numbers: its ends and the bits of what it binds.
        let numbered: [(from: Int, to: Int, bound: [UInt64])?] = zip(edges, bindings).map { edge, bound in
            guard let bound, let from = stateIndex[edge.from], let to = stateIndex[edge.to] else { return nil }
            var row = [UInt64](repeating: 0, count: width)
            for variable in bound {
                let number = variables[variable]!
                row[number / 64] |= 1 << UInt64(number % 64)
            }
            return (from, to, row)
        }
        reached[start] = true
        var changed = true
        while changed {
            changed = false
            for case let (from, to, bound)? in numbered where reached[from] {
                // The start is also entered with nothing bound, so on every path nothing is bound there.
                guard reached[to] else {
                    reached[to] = true
                    if !(intersect && to == start) {
                        for word in 0..<width { bits[to * width + word] = bits[from * width + word] | bound[word] }
                    }
                    changed = true
                    continue
                }
                if intersect && to == start { continue }
                for word in 0..<width {
                    let out = bits[from * width + word] | bound[word]
                    let existing = bits[to * width + word]
                    let updated = intersect ? existing & out : existing | out
                    if updated != existing {
                        bits[to * width + word] = updated
                        changed = true
                    }
                }
            }
        }
    }

    /// The variables bound on entry to a state; nil when the state is not reached.
    func bound(at state: String) -> Bound? {
        guard let index = stateIndex[state], reached[index] else { return nil }
        return Bound(flow: self, row: index * width)
    }

    /// The variables bound on entry to one state.
    struct Bound {
        fileprivate let flow: BindingFlow
        fileprivate let row: Int

        func contains(_ variable: String) -> Bool {
            guard let number = flow.variables[variable] else { return false }
            return flow.bits[row + number / 64] & (1 << UInt64(number % 64)) != 0
        }
    }
}
