import MatterFlowJSON

extension FixtureMismatch {
    /// `mismatches`, each given the place in the fixture file where its expectation was written.
    static func located(_ mismatches: [FixtureMismatch], in sourceMap: JSONSourceMap) -> [FixtureMismatch] {
        guard !mismatches.isEmpty else { return mismatches }
        let locations = sourceMap.locations()
        return mismatches.map { mismatch in
            var located = mismatch
            var tokens = expectationTokens(of: mismatch.subject)
            while !tokens.isEmpty {
                let pointer = tokens.reduce("") { JSONPointer.appending($1, to: $0) }
                if let location = locations.location(of: pointer) {
                    located.pointer = pointer
                    located.location = location
                    break
                }
                tokens.removeLast()
            }
            return located
        }
    }

    /// The JSON pointer tokens a subject names in a fixture file: `events[2]` is `/events/2` (as are subjects of
    /// `faults`, `mocks` and `answers`); every other subject lies under `expect` (`hub.borderRouters[br-1].epskc` is `/expect/hub/borderRouters/br-1/epskc`, which the
    /// caller shortens to the nearest part the file has).
    static func expectationTokens(of subject: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var inBrackets = false
        for character in subject {
            switch character {
            case "." where !inBrackets, "[" where !inBrackets:
                if !current.isEmpty { tokens.append(current) }
                current = ""
                inBrackets = character == "["
            case "]" where inBrackets:
                tokens.append(current)
                current = ""
                inBrackets = false
            default:
                current.append(character)
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return ["events", "faults", "mocks", "answers"].contains(tokens.first) ? tokens : ["expect"] + tokens
    }
}
