/// The variables bound on entry to each reachable state of a workflow, on every path there (`intersect`) or on
/// some path, for ``ReferenceChecker``.
///
/// States are numbered (``CompiledWorkflow``) and each state's variables are bits of one row of a flat array,
/// over the variables some edge binds: a workflow of thousands of states would otherwise hold a set of strings
/// per state, and building, hashing and comparing those was most of the cost of checking references. What each
/// edge binds is a row of bits too, in one flat array.
struct BindingFlow {
    /// The number of each variable some edge binds; other variables are bound nowhere.
    private let variables: [String: Int]
    /// Words per state.
    private let width: Int
    /// The bound variables of state `s` are bits of `bits[s * width ..< (s + 1) * width]`.
    private var bits: [UInt64]
    /// Whether a state is reached from the start.
    private var reached: [Bool]

    /// - Parameter bindings: calls its last argument with each variable an edge binds.
    init(
        model: CompiledWorkflow, intersect: Bool,
        bindings: (CompiledWorkflow.Edge, (String) -> Void) -> Void
    ) {
        // The edges followed (those to defined states), and the numbers of what each binds.
        var followed: [(from: Int, to: Int)] = []
        var bound: [Int] = []
        var boundEnds: [Int] = []
        var variables: [String: Int] = [:]
        followed.reserveCapacity(model.edges.count)
        boundEnds.reserveCapacity(model.edges.count)
        for edge in model.edges {
            guard let to = edge.to else { continue }
            followed.append((edge.from, to))
            bindings(edge) { variable in
                let number: Int
                if let known = variables[variable] {
                    number = known
                } else {
                    number = variables.count
                    variables[variable] = number
                }
                bound.append(number)
            }
            boundEnds.append(bound.count)
        }
        self.variables = variables
        let width = max(1, (variables.count + 63) / 64)
        self.width = width
        let count = model.count
        bits = [UInt64](repeating: 0, count: count * width)
        reached = [Bool](repeating: false, count: count)
        guard let start = model.start else { return }
        var edgeBits = [UInt64](repeating: 0, count: followed.count * width)
        var begin = 0
        for (edge, end) in boundEnds.enumerated() {
            for number in bound[begin..<end] { edgeBits[edge * width + number / 64] |= 1 << UInt64(number % 64) }
            begin = end
        }
        reached[start] = true
        var changed = true
        while changed {
            changed = false
            for (edge, (from, to)) in followed.enumerated() where reached[from] {
                // The start is also entered with nothing bound, so on every path nothing is bound there.
                guard reached[to] else {
                    reached[to] = true
                    if !(intersect && to == start) {
                        for word in 0..<width { bits[to * width + word] = bits[from * width + word] | edgeBits[edge * width + word] }
                    }
                    changed = true
                    continue
                }
                if intersect && to == start { continue }
                for word in 0..<width {
                    let out = bits[from * width + word] | edgeBits[edge * width + word]
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

    /// The variables bound on entry to a state (by number); nil when the state is not reached.
    func bound(at state: Int) -> Bound? {
        guard reached[state] else { return nil }
        return Bound(flow: self, row: state * width)
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
