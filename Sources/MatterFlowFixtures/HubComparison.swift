import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator

/// Compares the simulated home after a run with a fixture's `expect.hub`.
struct HubComparison {
    let expect: FixtureExpectations.HubExpectation
    let observation: RunObservation

    func mismatches() -> [FixtureMismatch] {
        let home = observation.finalHome
        var found: [FixtureMismatch] = []
        if let expected = expect.activeSession {
            let actual = home.activeSession
            let holds: Bool
            switch expected {
            case .none: holds = actual == nil
            case .active(let phase): holds = actual != nil && (phase == nil || phase == actual?.phase)
            }
            if !holds {
                found.append(
                    FixtureMismatch(
                        subject: "hub.activeSession", expected: expected.description,
                        actual: actual.map { "active (\($0.phase.rawValue), \($0.sessionID ?? "no ID"))" } ?? "none"))
            }
        }
        func flag(_ subject: String, _ expected: Bool?, _ actual: Bool) {
            if let expected, expected != actual {
                found.append(FixtureMismatch(subject: "hub.\(subject)", expected: "\(expected)", actual: "\(actual)"))
            }
        }
        flag("online", expect.online, home.hub.online)
        flag("reachable", expect.reachable, home.hub.reachable)
        flag("permissionGranted", expect.permissionGranted, home.permissionGranted)
        if let devices = expect.devices {
            found += Self.compare(devices, home.devices, subject: "hub.devices", redacting: observation.result.redacting)
        }
        if let devices = expect.newDevices {
            found += Self.compare(devices, observation.newDevices, subject: "hub.newDevices", redacting: observation.result.redacting)
        }
        if let option = expect.internetAccessOption, option != home.thread.internetAccessOption {
            found.append(
                FixtureMismatch(
                    subject: "hub.internetAccessOption", expected: option.rawValue,
                    actual: home.thread.internetAccessOption.rawValue))
        }
        for router in expect.borderRouters ?? [] { found += borderRouterMismatches(router) }
        return found
    }

    private func borderRouterMismatches(_ expected: FixtureExpectations.BorderRouterExpectation) -> [FixtureMismatch] {
        let subject = "hub.borderRouters[\(expected.deviceID)]"
        guard let router = observation.finalHome.thread.borderRouter(deviceID: expected.deviceID) else {
            return [FixtureMismatch(subject: subject, expected: "a border router", actual: "no such border router")]
        }
        var found: [FixtureMismatch] = []
        if let phase = expected.epskc {
            let actual = observation.epskcPhases[expected.deviceID]
            if actual != phase {
                found.append(
                    FixtureMismatch(
                        subject: subject + ".epskc", expected: phase.rawValue, actual: actual?.rawValue ?? "unknown"))
            }
        }
        if let network = expected.network {
            let actual = router.network?.summary
            let holds = network.map { wanted in actual.map(wanted.matches) ?? false } ?? (actual == nil)
            if !holds {
                found.append(
                    FixtureMismatch(
                        subject: subject + ".network", expected: network?.description ?? "none",
                        actual: actual.map {
                            "{networkName: \"\($0.networkName)\", extendedPANID: \($0.extendedPANID), panID: \($0.panID), channel: \($0.channel)}"
                        } ?? "none"))
            }
        }
        if let devices = expected.threadDevices, Set(devices) != Set(router.threadDevices) {
            found.append(
                FixtureMismatch(
                    subject: subject + ".threadDevices", expected: devices.sorted().joined(separator: ", "),
                    actual: router.threadDevices.isEmpty
                        ? "none" : router.threadDevices.sorted().joined(separator: ", ")))
        }
        return found
    }

    /// Whether each expected device matches a different actual device, with none left over.
    private static func compare(
        _ expected: [FixtureExpectations.DeviceExpectation], _ actual: [HomeDescription.Device], subject: String,
        redacting: (String) -> String
    ) -> [FixtureMismatch] {
        guard expected.count != actual.count || !assign(expected[...], to: actual) else { return [] }
        let summary = actual.isEmpty ? "none" : "\(actual.count) device\(actual.count == 1 ? "" : "s")"
        // Names and rooms that print alike but are other bytes: said, or the mismatch would show two equal lists.
        var spellings: [String] = []
        for wanted in expected {
            for device in actual {
                for (what, given, had) in [("name", wanted.name, device.name), ("room", wanted.room ?? nil, device.room ?? "")] {
                    guard let given, given == had, !given.utf8.elementsEqual(had.utf8) else { continue }
                    let named = redacting(given) == given && redacting(had) == had
                    let line = "the \(what) expected and \(device.id)'s are \(FixtureFormat.sameCharacters)"
                        + (named ? " (\(given.codePointsOutsideASCII) expected, \(had.codePointsOutsideASCII) here)" : "")
                    if !spellings.contains(line) { spellings.append(line) }
                }
            }
        }
        return [
            FixtureMismatch(
                subject: subject,
                expected: expected.isEmpty ? "none" : expected.map(\.description).joined(separator: ", "),
                actual: summary, details: actual.map(describe) + spellings)
        ]
    }

    /// Whether every expected device can be matched to a different actual device: a maximum bipartite matching by
    /// augmenting paths (Kuhn's algorithm), in time proportional to expected × pairs that match, where trying every
    /// pairing took factorial time (a bridge of 10 alike devices and one wrong expectation: 14 s).
    static func assign(
        _ expected: ArraySlice<FixtureExpectations.DeviceExpectation>, to actual: [HomeDescription.Device]
    ) -> Bool {
        let candidates = expected.map { wanted in actual.indices.filter { wanted.matches(actual[$0]) } }
        // The expected device each actual one is matched to, by index into `candidates`.
        var matchedTo = [Int?](repeating: nil, count: actual.count)
        for start in candidates.indices {
            // Depth-first search for an augmenting path from expected device `start`, with an explicit stack.
            var visited = [Bool](repeating: false, count: actual.count)
            var stack: [(wanted: Int, next: Int)] = [(start, 0)]
            var path: [(wanted: Int, device: Int)] = []
            var found = false
            while let top = stack.last, !found {
                guard top.next < candidates[top.wanted].count else {
                    stack.removeLast()
                    if !path.isEmpty { path.removeLast() }
                    continue
                }
                stack[stack.count - 1].next += 1
                let device = candidates[top.wanted][top.next]
                guard !visited[device] else { continue }
                visited[device] = true
                path.append((top.wanted, device))
                if let holder = matchedTo[device] {
                    stack.append((holder, 0))
                } else {
                    found = true
                }
            }
            guard found else { return false }
            for step in path { matchedTo[step.device] = step.wanted }
        }
        return true
    }

    static func describe(_ device: HomeDescription.Device) -> String {
        "\(device.id): \"\(device.name)\", " + (device.room.map { "in \($0)" } ?? "no room")
            + ", vendor \(device.vendorID), product \(device.productID)"
    }
}

/// Compares an expected JSON value with an actual one: objects match when every member given matches (other
/// members are ignored), arrays element by element with the same length, numbers numerically, strings byte for byte,
/// anything else exactly.
enum JSONSubset {
    struct Difference {
        var path: String
        var expected: String
        var actual: String
    }

    /// The differences between `expected` and `actual`. `described` is what a difference shows of the actual value:
    /// the same value with its secrets redacted (matching is against the real value, which a report must not hold);
    /// nil describes `actual` itself.
    ///
    /// Strings that are the same characters in other bytes (`é` composed, or `e` and an accent) differ, and say so;
    /// with the code points outside ASCII of each, unless `redacting` (the run's redaction) changes either: a
    /// secret's characters are not named.
    static func differences(
        expected: JSONValue, actual: JSONValue?, described: JSONValue? = nil, at path: String, redacting: (String) -> String = { $0 }
    ) -> [Difference] {
        guard let actual else {
            return [Difference(path: path, expected: JSONWriter.compact(expected), actual: "no such member")]
        }
        switch (expected, actual) {
        case (.object(let wanted), .object(let got)):
            return wanted.members.flatMap { member in
                differences(
                    expected: member.value, actual: got[member.key], described: described.map { $0.objectValue?[member.key] ?? $0 },
                    at: path + "." + member.key, redacting: redacting)
            }
        case (.array(let wanted), .array(let got)) where wanted.count == got.count:
            return zip(wanted, got).enumerated().flatMap { index, pair in
                let element = described.map { twin in twin.arrayValue.flatMap { $0.indices.contains(index) ? $0[index] : nil } ?? twin }
                return differences(expected: pair.0, actual: pair.1, described: element, at: path + "[\(index)]", redacting: redacting)
            }
        case (.string(let wanted), .string(let got)):
            // Byte for byte: a device keeps the bytes it is given (a name's limit is in bytes), where Swift strings
            // compare equal when their characters are (`é` composed, or `e` and an accent).
            if wanted.utf8.elementsEqual(got.utf8) { return [] }
            let shown = JSONWriter.compact(described ?? actual)
            guard wanted == got else { return [Difference(path: path, expected: JSONWriter.compact(expected), actual: shown)] }
            let named = (described == nil || described == actual) && redacting(wanted) == wanted && redacting(got) == got
            return [
                Difference(
                    path: path, expected: JSONWriter.compact(expected) + (named ? " (\(wanted.codePointsOutsideASCII))" : ""),
                    actual: shown + (named ? " (\(got.codePointsOutsideASCII): " : " (") + FixtureFormat.sameCharacters + ")")
            ]
        default:
            if let left = expected.doubleValue, let right = actual.doubleValue, left == right { return [] }
            if expected == actual { return [] }
            return [Difference(path: path, expected: JSONWriter.compact(expected), actual: JSONWriter.compact(described ?? actual))]
        }
    }

}
