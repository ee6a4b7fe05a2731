import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator

/// Decoding of `expect`.
extension FixtureDecoder {
    /// Vendor and product IDs, PAN IDs and channels: 16-bit numbers.
    private static var sixteenBits: NumberRange { NumberRange(integers: 0...0xFFFF) }

    typealias Expectations = FixtureExpectations

    func decodeExpectations(_ reader: ObjectReader) -> Expectations {
        var expect = Expectations()
        expect.inputRefused = reader.object("inputRefused").map(decodeInputRefusal)
        if expect.inputRefused != nil {
            for key in reader.object.keys.sorted() where key != "inputRefused" {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer(key),
                    "no run starts when the inputs are refused, so \"\(key)\" cannot be checked; remove it (or \"inputRefused\")")
            }
        }
        if let outcome = reader.string("outcome", required: expect.inputRefused == nil) {
            expect.outcome = RunResult.Outcome(rawValue: outcome)
            if expect.outcome == nil {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("outcome"),
                    "\"outcome\" must be succeeded, failed or cancelled, found \"\(outcome)\"")
            }
        }
        if let value = reader.value("error") {
            if value.isNull {
                expect.error = .some(nil)
            } else if let error = collector.object(value, at: reader.pointer("error"), what: "\"error\"") {
                expect.error = .some(decodeErrorExpectation(error))
            }
        }
        if expect.outcome == .succeeded, case .some(.some) = expect.error {
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer("error"),
                "a succeeded run has no error; expect \"error\": null or another outcome")
        }
        expect.path = states(reader, "path")
        expect.pathIncludes = states(reader, "pathIncludes")
        expect.pathExcludes = states(reader, "pathExcludes")
        if let calls = reader.object("calls") { (expect.calls, expect.customCalls) = decodeCalls(calls) }
        if let names = reader.stringArray("callsInOrder") {
            let pointer = reader.pointer("callsInOrder")
            expect.callsInOrder = names.enumerated().compactMap { index, name in
                // A custom operation its catalog declares, or a standard one (reported when it is neither).
                if isCustomOperation(name) { return name }
                return operation(name, at: JSONPointer.appending(index, to: pointer))?.rawValue
            }
        }
        expect.output = reader.value("output")
        expect.warnings = reader.stringArray("warnings")
        expect.shown = reader.array("shown")
        expect.hub = reader.object("hub").map(decodeHubExpectation)
        if let seconds = reader.number("elapsedSeconds", in: NumberLimits.elapsed) { expect.elapsedSeconds = seconds }
        reader.finish()
        return expect
    }

    /// `{"input", "code", "messageContains"}`; an input the workflow does not declare is reported.
    private func decodeInputRefusal(_ reader: ObjectReader) -> Expectations.InputRefusal {
        var refusal = Expectations.InputRefusal()
        refusal.input = reader.nonEmptyString("input")
        if let input = refusal.input, let workflow, workflow.input(named: input) == nil {
            let declared = workflow.inputs.map(\.name)
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer("input"),
                "the workflow has no input \"\(input)\"; "
                    + (declared.isEmpty ? "it declares none" : "it declares " + declared.map { "\"\($0)\"" }.joined(separator: ", ")))
        }
        refusal.code = reader.nonEmptyString("code")
        refusal.messageContains = reader.string("messageContains")
        reader.finish()
        return refusal
    }

    private func decodeErrorExpectation(_ reader: ObjectReader) -> Expectations.ErrorExpectation {
        var error = Expectations.ErrorExpectation()
        error.code = reader.string("code").flatMap { canonicalCode($0, at: reader.pointer("code")) }
        error.cause = reader.nonEmptyString("cause")
        error.state = reader.string("state").flatMap { state($0, at: reader.pointer("state")) }
        error.message = reader.string("message")
        error.messageContains = reader.string("messageContains")
        reader.finish()
        return error
    }

    /// `{"operation": count}` or `{"operation": {"count", "atLeast", "atMost", "succeeded", "failed"}}`.
    private func decodeCalls(_ reader: ObjectReader)
        -> ([SimulatedOperation: Expectations.CallExpectation], [String: Expectations.CallExpectation])
    {
        var calls: [SimulatedOperation: Expectations.CallExpectation] = [:]
        var custom: [String: Expectations.CallExpectation] = [:]
        for key in reader.object.keys {
            reader.allow(key)
            let pointer = reader.pointer(key)
            if isCustomOperation(key) {
                if let expectation = decodeCallExpectation(reader, key, at: pointer) { custom[key] = expectation }
                continue
            }
            guard let operation = operation(key, at: pointer) else { continue }
            if let expectation = decodeCallExpectation(reader, key, at: pointer) { calls[operation] = expectation }
        }
        return (calls, custom)
    }

    /// Whether `name` is an operation a catalog file declares (the simulated home implements only standard ones).
    private func isCustomOperation(_ name: String) -> Bool {
        OperationCatalog.standard[name] == nil && catalog[name] != nil
    }

    /// Why no number of calls meets a call expectation's bounds; nil when some number does.
    static func impossibility(of expectation: Expectations.CallExpectation) -> String? {
        if case .each(let calls) = expectation.arguments {
            // One entry per call: the entries are a count of their own.
            if let count = expectation.count, count != calls.count { return "\(count) in all, but arguments for \(calls.count)" }
            var counted = expectation
            counted.count = calls.count
            counted.arguments = nil
            return impossibility(of: counted)
        }
        let least = max(expectation.atLeast ?? 0, (expectation.succeeded ?? 0) + (expectation.failed ?? 0))
        let most = expectation.atMost ?? Int.max
        if least > most { return "at least \(least) and at most \(most)" }
        // Every call either succeeded or failed: given both, they are all the calls there are.
        let known = expectation.succeeded.flatMap { succeeded in expectation.failed.map { succeeded + $0 } }
        if let known, let atLeast = expectation.atLeast, atLeast > known { return "\(known) that succeeded or failed, but at least \(atLeast)" }
        guard let count = expectation.count else { return nil }
        if count < least { return "\(count) in all, but at least \(least)" }
        if count > most { return "\(count) in all, but at most \(most)" }
        if let known, count != known { return "\(count) in all, but \(known) that succeeded or failed" }
        return nil
    }

    /// One operation's call expectation: a count, or an object of bounds; nil (reported) when it is neither.
    private func decodeCallExpectation(_ reader: ObjectReader, _ key: String, at pointer: String)
        -> Expectations.CallExpectation?
    {
        switch reader.object[key] {
        case let number? where number.doubleValue != nil:
            guard let count = collector.integer(number, at: pointer, in: NumberLimits.count, what: "the call count")
            else { return nil }
            return Expectations.CallExpectation(count: count)
        case .object(let object)?:
            let counts = ObjectReader(object: object, pointer: pointer, collector: collector)
            func count(_ name: String) -> Int? {
                counts.int(name, in: NumberLimits.count)
            }
            defer { counts.finish() }
            let expectation = Expectations.CallExpectation(
                count: count("count"), atLeast: count("atLeast"), atMost: count("atMost"),
                succeeded: count("succeeded"), failed: count("failed"),
                arguments: counts.value("arguments").flatMap { decodeArguments($0, at: counts.pointer("arguments")) })
            if let problem = Self.impossibility(of: expectation) {
                collector.error(DiagnosticCode.invalidValue, at: pointer, "no run can make these \(key) calls: \(problem); fix the bounds")
                return nil
            }
            return expectation
        case let other?:
            collector.error(
                other.intValue == nil ? DiagnosticCode.wrongType : DiagnosticCode.invalidValue, at: pointer,
                "a call expectation is a count (0 or more) or an object with count, atLeast, atMost, succeeded, failed, arguments; found \(other.typeName)"
            )
            return nil
        case nil:
            return nil
        }
    }

    /// `"arguments"`: an object (every call's) or an array of objects (each call's, in order); nil (reported) when it
    /// is neither.
    private func decodeArguments(_ value: JSONValue, at pointer: String) -> Expectations.ArgumentsExpectation? {
        switch value {
        case .object(let every):
            return .every(every)
        case .array(let calls):
            var each: [JSONObject] = []
            for (index, call) in calls.enumerated() {
                guard case .object(let arguments) = call else {
                    collector.error(
                        DiagnosticCode.wrongType, at: JSONPointer.appending(index, to: pointer),
                        "each entry of \"arguments\" is the arguments of one call, an object; found \(call.typeName)")
                    return nil
                }
                each.append(arguments)
            }
            return .each(each)
        default:
            collector.error(
                DiagnosticCode.wrongType, at: pointer,
                "\"arguments\" is an object (what every call was made with) or an array of objects (each call's, in order); found \(value.typeName)"
            )
            return nil
        }
    }

    private func decodeHubExpectation(_ reader: ObjectReader) -> Expectations.HubExpectation {
        var hub = Expectations.HubExpectation()
        if let value = reader.value("activeSession") {
            if value.isNull {
                hub.activeSession = Expectations.SessionExpectation.none
            } else if let session = collector.object(
                value, at: reader.pointer("activeSession"), what: "\"activeSession\"")
            {
                var phase: CommissioningSession.Phase?
                if let name = session.string("phase") {
                    phase = CommissioningSession.Phase(rawValue: name)
                    let active: [CommissioningSession.Phase] = [
                        .prepared, .requested, .commissioning, .commissioned, .configured,
                    ]
                    if phase.map(active.contains) != true {
                        collector.error(
                            DiagnosticCode.invalidValue, at: session.pointer("phase"),
                            "an active session's phase is one of \(active.map(\.rawValue).joined(separator: ", ")); found \"\(name)\" (expect null for no session)"
                        )
                    }
                }
                session.finish()
                hub.activeSession = .active(phase)
            }
        }
        hub.online = reader.bool("online")
        hub.reachable = reader.bool("reachable")
        hub.permissionGranted = reader.bool("permissionGranted")
        hub.devices = reader.array("devices").map { decodeDevices($0, at: reader.pointer("devices")) }
        hub.newDevices = reader.array("newDevices").map { decodeDevices($0, at: reader.pointer("newDevices")) }
        if let name = reader.string("internetAccessOption") {
            hub.internetAccessOption = InternetAccessOption(rawValue: name)
            if hub.internetAccessOption == nil {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("internetAccessOption"),
                    "\"internetAccessOption\" is one of \(InternetAccessOption.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(name)\""
                )
            }
        }
        if let routers = reader.array("borderRouters") {
            hub.borderRouters = routers.enumerated().compactMap { index, element in
                collector.object(
                    element, at: JSONPointer.appending(index, to: reader.pointer("borderRouters")),
                    what: "a border router"
                )
                .flatMap(decodeBorderRouterExpectation)
            }
        }
        reader.finish()
        return hub
    }

    private func decodeBorderRouterExpectation(_ reader: ObjectReader) -> Expectations.BorderRouterExpectation? {
        let deviceID = reader.nonEmptyString("deviceID", required: true).flatMap {
            borderRouterID($0, at: reader.pointer("deviceID"))
        }
        var epskc: EpskcSession.Phase?
        if let name = reader.string("epskc") {
            epskc = EpskcSession.Phase(rawValue: name)
            if epskc == nil {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("epskc"),
                    "\"epskc\" is one of \(EpskcSession.Phase.allCases.map(\.rawValue).joined(separator: ", ")), found \"\(name)\""
                )
            }
        }
        var network: Expectations.NetworkExpectation??
        if let value = reader.value("network") {
            if value.isNull {
                network = .some(nil)
            } else if let fields = collector.object(value, at: reader.pointer("network"), what: "\"network\"") {
                network = .some(
                    Expectations.NetworkExpectation(
                        networkName: fields.string("networkName"), extendedPANID: fields.string("extendedPANID"),
                        panID: fields.int("panID", in: Self.sixteenBits),
                        channel: fields.int("channel", in: Self.sixteenBits)))
                fields.finish()
            }
        }
        let threadDevices = reader.stringArray("threadDevices")
        reader.finish()
        guard let deviceID else { return nil }
        return Expectations.BorderRouterExpectation(
            deviceID: deviceID, epskc: epskc, network: network, threadDevices: threadDevices)
    }

    private func decodeDevices(_ elements: [JSONValue], at pointer: String) -> [Expectations.DeviceExpectation] {
        var devices: [Expectations.DeviceExpectation] = []
        for (index, element) in elements.enumerated() {
            let elementPointer = JSONPointer.appending(index, to: pointer)
            guard let reader = collector.object(element, at: elementPointer, what: "a device") else { continue }
            var device = Expectations.DeviceExpectation()
            device.id = reader.string("id")
            device.name = reader.string("name")
            if let room = reader.value("room") {
                if room.isNull {
                    device.room = .some(nil)
                } else if let name = reader.string("room") {
                    device.room = .some(name)
                    if let home, home.room(named: name) == nil {
                        let names = home.rooms.map(\.name)
                        collector.error(
                            HomeDiagnosticCode.unknownRoom, at: reader.pointer("room"),
                            "the home has no room named \"\(name)\"\(SpellingSuggestion.hint(for: name, among: names)) (rooms: \(names.isEmpty ? "none" : names.joined(separator: ", ")))"
                        )
                    }
                }
            }
            device.vendorID = reader.int("vendorID", in: Self.sixteenBits)
            device.productID = reader.int("productID", in: Self.sixteenBits)
            reader.finish()
            devices.append(device)
        }
        return devices
    }
}
