import MatterFlowJSON

/// The data a state's templates and conditions can read: inputs, variables, the current error and the run.
struct Scope: Sendable {
    var inputs: JSONObject
    /// The level's variables, in the order they were first set: a level binds few, so a search through them costs
    /// less than hashing their names.
    var vars = JSONObject()
    var error: FlowError?
    var run: RunInfo

    /// Binds a variable; the first one makes room for a few, as levels bind several.
    mutating func bind(_ name: String, _ value: JSONValue) {
        if vars.isEmpty { vars.reserveCapacity(4) }
        vars[name] = value
    }

    /// What `${run}` reads; its object is built only when a template reads it.
    struct RunInfo: Sendable {
        var id: String
        var workflow: String
        var structureID: StructureID

        var object: JSONObject {
            ["id": .string(id), "workflow": .string(workflow), "structureID": .string(structureID)]
        }

        /// A member of `${run}`, without building the whole object.
        func member(_ name: String) -> JSONValue? {
            switch name {
            case "id": .string(id)
            case "workflow": .string(workflow)
            case "structureID": .string(structureID)
            default: nil
            }
        }
    }

    /// The value of a reference, or nil when it does not resolve.
    func resolve(_ reference: Reference) -> JSONValue? {
        let path = reference.path
        var value: JSONValue
        var next = path.startIndex
        switch reference.root {
        case .input:
            guard case .member(let name)? = path.first, let input = inputs[name] else { return nil }
            value = input
            next += 1
        case .vars:
            guard case .member(let name)? = path.first, let variable = vars[name] else { return nil }
            value = variable
            next += 1
        case .error:
            guard let error else { return nil }
            value = Self.json(error)
        case .run:
            if case .member(let name)? = path.first {
                guard let member = run.member(name) else { return nil }
                value = member
                next += 1
            } else {
                value = .object(run.object)
            }
        }
        while next < path.endIndex {
            switch path[next] {
            case .member(let name):
                if name == "count", case .array(let elements) = value {
                    value = .int(elements.count)
                } else if case .object(let object) = value, let member = object[name] {
                    value = member
                } else if reference.root == .input, next == path.startIndex + 1, case .string(let text) = value,
                    let fact = OnboardingPayloadFacts.fact(name, of: text)
                {
                    // `${input.NAME.fact}` of an onboarding payload input (the validator admits it for no other
                    // input): one of its non-secret facts, never the passcode.
                    value = fact
                } else {
                    return nil
                }
            case .index(let index):
                guard case .array(let elements) = value, elements.indices.contains(index) else { return nil }
                value = elements[index]
            }
            next += 1
        }
        return value
    }

    /// An error as the value `${error}` reads.
    static func json(_ error: FlowError) -> JSONValue {
        error.jsonValue
    }

    /// Evaluates a template; a reference that does not resolve fails with `unresolvedReference`, and a value built
    /// larger than ``valueLimit`` with `valueTooLarge`.
    func evaluate(_ template: Template) throws(FlowError) -> JSONValue {
        var references = 0
        let value = try build(template, references: &references)
        // A list or object can outgrow what it refers to only by holding two references or more (one value twice, or
        // two strings each put together from one): it alone is walked, once, whatever its depth; a string put
        // together is bounded as it grows.
        switch value {
        case .array, .object:
            guard references < 2 || Self.encodedSize(of: value, within: Self.valueLimit) != nil else {
                throw Self.tooLarge(value.arrayValue != nil ? "a list" : "an object")
            }
        case .null, .bool, .int, .double, .string:
            break
        }
        return value
    }

    private func build(_ template: Template, references: inout Int) throws(FlowError) -> JSONValue {
        switch template {
        case .literal(let value):
            return value
        case .reference(let reference):
            guard let value = resolve(reference) else { throw unresolved(reference) }
            references += 1
            return value
        case .interpolation(let parts):
            // Bounded as it grows, by the length the string will take as JSON (its escapes counted); counted as a
            // reference, since a list of two such strings may hold twice as much.
            references += 1
            var text = ""
            var escaped = 0
            func append(_ part: String) throws(FlowError) {
                escaped += JSONWriter.escapedLength(of: part)
                guard escaped <= Self.valueLimit else { throw Self.tooLarge("a string") }
                text += part
            }
            for part in parts {
                switch part {
                case .text(let literal): try append(literal)
                case .reference(let reference):
                    guard let value = resolve(reference) else { throw unresolved(reference) }
                    if let string = value.stringValue {
                        try append(string)
                    } else {
                        guard Self.encodedSize(of: value, within: Self.valueLimit - escaped) != nil else {
                            throw Self.tooLarge("a string")
                        }
                        try append(JSONWriter.compact(value))
                    }
                }
            }
            return .string(text)
        case .array(let elements):
            var values: [JSONValue] = []
            values.reserveCapacity(elements.count)
            for element in elements { values.append(try build(element, references: &references)) }
            return .array(values)
        case .object(let members):
            var object = JSONObject()
            object.reserveCapacity(members.count)
            for member in members { object[member.key] = try build(member.value, references: &references) }
            return .object(object)
        }
    }

    private func unresolved(_ reference: Reference) -> FlowError {
        FlowError(.unresolvedReference, "${\(reference)} has no value here")
    }

    /// The most bytes a value a template builds may take as JSON (16 MiB): a string that doubles at each of a few
    /// dozen states, or a list holding a list twice at each, would otherwise take all the memory there is, or more
    /// time than there is to write into a journal.
    static let valueLimit = 16 << 20

    private static func tooLarge(_ what: String) -> FlowError {
        FlowError(
            .valueTooLarge,
            "the state builds \(what) larger than \(valueLimit >> 20) MiB as JSON; a value that grows at each step (a string holding itself twice) is bounded")
    }

    /// About how many bytes `value` takes as compact JSON (strings and keys escaped, a float at its longest), or nil once
    /// that passes `budget`: a value holding one list many times over is counted as written, each time, and the walk
    /// stops at the budget, so it costs at most that many steps.
    static func encodedSize(of value: JSONValue, within budget: Int) -> Int? {
        var left = budget
        func walk(_ value: JSONValue) -> Bool {
            switch value {
            case .string(let text): left -= JSONWriter.escapedLength(of: text) + 2
            case .int(let number): left -= Self.decimalLength(of: number)
            case .double: left -= 24  // the longest a Double is written in
            case .null, .bool(true): left -= 4
            case .bool(false): left -= 5
            case .array(let elements):
                // The brackets and a comma between elements.
                left -= 2 + max(0, elements.count - 1)
                for element in elements {
                    guard left >= 0, walk(element) else { return false }
                }
            case .object(let object):
                left -= 2 + max(0, object.members.count - 1)
                for member in object.members {
                    // The key's quotes and colon.
                    left -= JSONWriter.escapedLength(of: member.key) + 3
                    guard left >= 0, walk(member.value) else { return false }
                }
            }
            return left >= 0
        }
        return walk(value) ? budget - left : nil
    }

    /// How many characters JSON writes `number` in.
    static func decimalLength(of number: Int) -> Int {
        var length = number < 0 ? 2 : 1
        var rest = number.magnitude / 10
        while rest > 0 {
            length += 1
            rest /= 10
        }
        return length
    }

    /// Evaluates a choice condition. Type mismatches are false; unresolved references make `exists` false and
    /// `isEmpty` true, and fail the state otherwise.
    func holds(_ condition: Condition) throws(FlowError) -> Bool {
        switch condition {
        case .compare(let comparison, let lhs, let rhs):
            return Self.compare(comparison, try evaluate(lhs), try evaluate(rhs))
        case .exists(let template):
            guard let value = try? evaluate(template) else { return false }
            return !value.isNull
        case .isEmpty(let template):
            guard let value = try? evaluate(template) else { return true }
            switch value {
            case .null: return true
            case .string(let text): return text.isEmpty
            case .array(let elements): return elements.isEmpty
            case .object(let object): return object.isEmpty
            case .bool, .int, .double: return false
            }
        case .contains(let haystack, let needle):
            switch (try evaluate(haystack), try evaluate(needle)) {
            case (.array(let elements), let element): return elements.contains { Self.equal($0, element) }
            case (.string(let text), .string(let part)): return text.contains(part)
            default: return false
            }
        case .and(let conditions):
            for condition in conditions where !(try holds(condition)) { return false }
            return true
        case .or(let conditions):
            for condition in conditions where try holds(condition) { return true }
            return false
        case .not(let condition):
            return !(try holds(condition))
        }
    }

    /// JSON equality: numbers by value, exactly (1 equals 1.0; 2^53 + 1 is not 2^53), arrays element by element,
    /// objects by members in any order.
    static func equal(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { equal($0, $1) }
        case (.object(let left), .object(let right)):
            return left.count == right.count
                && left.members.allSatisfy { member in right[member.key].map { equal(member.value, $0) } ?? false }
        default:
            if let order = numericOrder(lhs, rhs) { return order == 0 }
            return lhs == rhs
        }
    }

    /// The order of two numbers (-1, 0 or 1), exact whatever their kinds; nil unless both are numbers.
    static func numericOrder(_ lhs: JSONValue, _ rhs: JSONValue) -> Int? {
        func order<T: Comparable>(_ left: T, _ right: T) -> Int { left < right ? -1 : (left > right ? 1 : 0) }
        // An integer against a double: whole parts as integers (a double beyond 64 bits is beyond every integer),
        // then the double's fraction.
        func mixed(_ left: Int, _ right: Double) -> Int {
            if right >= 0x1p63 { return -1 }
            if right < -0x1p63 { return 1 }
            let whole = right.rounded(.down)
            let wholeOrder = order(left, Int(whole))
            return wholeOrder != 0 ? wholeOrder : (right > whole ? -1 : 0)
        }
        switch (lhs, rhs) {
        case (.int(let left), .int(let right)): return order(left, right)
        case (.double(let left), .double(let right)): return order(left, right)
        case (.int(let left), .double(let right)): return mixed(left, right)
        case (.double(let left), .int(let right)): return -mixed(right, left)
        default: return nil
        }
    }

    static func compare(_ comparison: Condition.Comparison, _ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch comparison {
        case .equals: return equal(lhs, rhs)
        case .notEquals: return !equal(lhs, rhs)
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual:
            let order: Int
            if let numeric = numericOrder(lhs, rhs) {
                order = numeric
            } else if let left = lhs.stringValue, let right = rhs.stringValue {
                order = left < right ? -1 : (left > right ? 1 : 0)
            } else {
                return false
            }
            switch comparison {
            case .lessThan: return order < 0
            case .lessThanOrEqual: return order <= 0
            case .greaterThan: return order > 0
            case .greaterThanOrEqual: return order >= 0
            case .equals, .notEquals: return false
            }
        }
    }
}
