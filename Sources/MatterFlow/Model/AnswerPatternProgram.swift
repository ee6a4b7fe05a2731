/// An answer pattern compiled to a Thompson NFA, and its matcher: every thread advanced over the text together
/// (a Pike VM without captures), so matching takes at most the program's size times the text's length.
struct AnswerPatternProgram: Sendable {
    /// One step of the program.
    enum Instruction: Sendable {
        /// Consume one scalar of the set, then go on to the next instruction.
        case consume(AnswerPatternSet)
        /// Go on at both targets.
        case split(Int, Int)
        /// Go on at the target.
        case jump(Int)
        /// The pattern has matched everything consumed so far.
        case match
    }

    let instructions: [Instruction]

    /// Compiles a parsed pattern; refuses one whose program would exceed ``AnswerPattern/maxInstructions``.
    init(compiling node: AnswerPatternNode) throws(AnswerPatternError) {
        let limit = AnswerPattern.maxInstructions
        guard Self.size(of: node, limit: limit) < limit else {
            throw AnswerPatternError(
                position: 1,
                "the pattern compiles to more than \(limit) steps (counts such as {m,n} multiply what they repeat, "
                    + "and each other | and quantifier adds steps); use smaller counts, or + and * for no upper bound")
        }
        var instructions: [Instruction] = []
        Self.emit(node, into: &instructions)
        instructions.append(.match)
        self.instructions = instructions
    }

    /// The number of instructions `node` compiles to, or a number of at least `limit` when it is that big or more.
    /// Recursion follows the node's depth, which group nesting bounds.
    private static func size(of node: AnswerPatternNode, limit: Int) -> Int {
        switch node {
        case .empty:
            return 0
        case .one:
            return 1
        case .sequence(let items):
            return items.reduce(0) { min($0 + size(of: $1, limit: limit), limit) }
        case .alternation(let branches):
            let total = branches.reduce(0) { min($0 + size(of: $1, limit: limit), limit) }
            return min(total + 2 * (branches.count - 1), limit)
        case .repetition(let body, let low, let high):
            let each = size(of: body, limit: limit)
            let (required, overflow) = low.multipliedReportingOverflow(by: each)
            guard !overflow, required < limit else { return limit }
            let rest: Int
            if let high {
                let (optional, overflow) = (high - low).multipliedReportingOverflow(by: each + 1)
                guard !overflow else { return limit }
                rest = optional
            } else {
                rest = low == 0 ? each + 2 : 1
            }
            return min(required + rest, limit)
        }
    }

    /// Appends the instructions of `node`. Recursion follows the node's depth, which group nesting bounds.
    private static func emit(_ node: AnswerPatternNode, into program: inout [Instruction]) {
        switch node {
        case .empty:
            break
        case .one(let set):
            program.append(.consume(set))
        case .sequence(let items):
            for item in items { emit(item, into: &program) }
        case .alternation(let branches):
            // split(first, rest); first; jump end; rest: split(second, rest'); ...; last; end:
            var jumps: [Int] = []
            for branch in branches.dropLast() {
                let split = program.count
                program.append(.match)
                emit(branch, into: &program)
                jumps.append(program.count)
                program.append(.match)
                program[split] = .split(split + 1, program.count)
            }
            if let last = branches.last { emit(last, into: &program) }
            for jump in jumps { program[jump] = .jump(program.count) }
        case .repetition(let body, let low, let high):
            switch high {
            case nil where low == 0:
                // loop: split(body, end); body; jump loop; end:
                let loop = program.count
                program.append(.match)
                emit(body, into: &program)
                program.append(.jump(loop))
                program[loop] = .split(loop + 1, program.count)
            case nil:
                // body (low - 1 times); again: body; split(again, end)
                for _ in 0..<(low - 1) { emit(body, into: &program) }
                let again = program.count
                emit(body, into: &program)
                program.append(.split(again, program.count + 1))
            case let high?:
                // body (low times); then (high - low) times: split(body, end); body
                for _ in 0..<low { emit(body, into: &program) }
                var splits: [Int] = []
                for _ in 0..<(high - low) {
                    splits.append(program.count)
                    program.append(.match)
                    emit(body, into: &program)
                }
                for split in splits { program[split] = .split(split + 1, program.count) }
            }
        }
    }

    /// Whether the program matches all of `scalars`.
    func matches(_ scalars: String.UnicodeScalarView) -> Bool {
        var current = ThreadSet(capacity: instructions.count)
        var next = ThreadSet(capacity: instructions.count)
        var pending: [Int] = []
        add(0, to: &current, pending: &pending)
        for scalar in scalars {
            if current.isEmpty { return false }
            next.removeAll()
            for position in 0..<current.count {
                let pc = current[position]
                if case .consume(let set) = instructions[pc], set.contains(scalar) {
                    add(pc + 1, to: &next, pending: &pending)
                }
            }
            swap(&current, &next)
        }
        return current.contains(instructions.count - 1)
    }

    /// Adds the thread at `pc` and every thread it reaches without consuming (through splits and jumps), each once.
    private func add(_ pc: Int, to threads: inout ThreadSet, pending: inout [Int]) {
        pending.append(pc)
        while let pc = pending.popLast() {
            guard threads.insert(pc) else { continue }
            switch instructions[pc] {
            case .split(let first, let second):
                pending.append(second)
                pending.append(first)
            case .jump(let target):
                pending.append(target)
            case .consume, .match:
                break
            }
        }
    }
}

/// The threads at one position of the text: program counters, each at most once, in insertion order; cleared in
/// constant time (a sparse set).
private struct ThreadSet {
    private var dense: [Int]
    private var sparse: [Int]
    private(set) var count = 0

    init(capacity: Int) {
        dense = Array(repeating: 0, count: capacity)
        sparse = Array(repeating: 0, count: capacity)
    }

    var isEmpty: Bool { count == 0 }

    subscript(position: Int) -> Int { dense[position] }

    func contains(_ pc: Int) -> Bool {
        let slot = sparse[pc]
        return slot < count && dense[slot] == pc
    }

    /// Adds `pc`; false when it was there already.
    mutating func insert(_ pc: Int) -> Bool {
        if contains(pc) { return false }
        dense[count] = pc
        sparse[pc] = count
        count += 1
        return true
    }

    mutating func removeAll() { count = 0 }
}
