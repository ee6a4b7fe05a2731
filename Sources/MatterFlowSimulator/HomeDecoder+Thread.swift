import MatterFlow
import MatterFlowJSON
import ThreadDataset

extension HomeDecoder {
    /// Decodes `thread`: the structure's internet-access option and the border routers, each checked against the
    /// home's devices, with every problem reported at its member.
    func decodeThread(_ reader: ObjectReader, devices: [HomeDescription.Device]) -> HomeDescription.ThreadSetup {
        var setup = HomeDescription.ThreadSetup()
        if let option: InternetAccessOption = choice(reader, "internetAccessOption") { setup.internetAccessOption = option }
        var routers: [(router: HomeDescription.BorderRouter, pointer: String)] = []
        var seen: [String: String] = [:]
        for (index, element) in (reader.array("borderRouters") ?? []).enumerated() {
            let pointer = JSONPointer.appending(index, to: reader.pointer("borderRouters"))
            guard let entry = collector.object(element, at: pointer, what: "a border router"),
                let router = decodeBorderRouter(entry, devices: devices)
            else { continue }
            if let first = seen[router.deviceID] {
                collector.error(
                    HomeDiagnosticCode.duplicateID, at: entry.pointer("device"),
                    "device \"\(router.deviceID)\" is already a border router at \(first); describe each border router once")
                continue
            }
            seen[router.deviceID] = pointer
            routers.append((router, pointer))
        }
        reader.finish()
        setup.borderRouters = checkThreadDevices(routers, devices: devices.map(\.id))
        return setup
    }

    private func decodeBorderRouter(
        _ reader: ObjectReader, devices: [HomeDescription.Device]
    ) -> HomeDescription.BorderRouter? {
        let deviceID = reader.nonEmptyString("device", required: true)
        if let deviceID, !devices.contains(where: { $0.id == deviceID }) {
            let hint = SpellingSuggestion.hint(for: deviceID, among: devices.map(\.id))
            collector.error(
                HomeDiagnosticCode.unknownDevice, at: reader.pointer("device"),
                "no device with ID \"\(deviceID)\" in \"devices\"\(hint); a border router is a device of the home, so list it there too")
        }
        var router = HomeDescription.BorderRouter(deviceID: deviceID ?? "")
        if let capabilities = reader.object("capabilities") {
            router.capabilities = decodeCapabilities(capabilities)
        }
        if let traits = reader.object("traits") {
            router.traits = decodeTraits(traits)
        }
        if let value = reader.value("network"), !value.isNull,
            let network = collector.object(value, at: reader.pointer("network"), what: "\"network\"")
        {
            router.network = decodeNetwork(network)
        }
        router.threadDevices = reader.stringArray("threadDevices") ?? []
        for (index, step) in (reader.array("commissioner") ?? []).enumerated() {
            let pointer = JSONPointer.appending(index, to: reader.pointer("commissioner"))
            guard let step = collector.object(step, at: pointer, what: "a commissioner step") else { continue }
            if let decoded = decodeCommissionerStep(step) { router.commissioner.append(decoded) }
        }
        reader.finish()
        guard let deviceID, devices.contains(where: { $0.id == deviceID }) else { return nil }
        return router
    }

    private func decodeCapabilities(_ reader: ObjectReader) -> ThreadCapabilities {
        var capabilities = HomeDescription.BorderRouter(deviceID: "").capabilities
        if let value = reader.value("epskcSupported") {
            if value.isNull {
                capabilities.epskcSupported = nil
            } else if let flag = value.boolValue {
                capabilities.epskcSupported = flag
            } else {
                collector.error(
                    DiagnosticCode.wrongType, at: reader.pointer("epskcSupported"),
                    "\"epskcSupported\" must be a boolean, or null for \"not reported\", found \(value.typeName)")
            }
        }
        if let value = reader.value("internetAccessOption") {
            capabilities.internetAccessOption = value.isNull ? nil : choice(reader, "internetAccessOption")
        }
        reader.finish()
        return capabilities
    }

    private func decodeTraits(_ reader: ObjectReader) -> [TraitSupport] {
        var traits: [TraitSupport] = []
        let names = BorderRouterTraits.all.map(\.name)
        for name in reader.object.keys {
            guard let known = BorderRouterTraits.known(name) else {
                reader.allow(name)
                let hint = SpellingSuggestion.hint(for: name, among: names)
                collector.error(
                    DiagnosticCode.unknownKey, at: reader.pointer(name), atKey: true,
                    "unknown trait \"\(name)\"\(hint)" + (hint.isEmpty ? " (border-router traits: \(names.joined(separator: ", ")))" : ""))
                continue
            }
            guard let trait = reader.object(name) else { continue }
            var support = TraitSupport(name: name)
            for kind in TraitSupport.MemberKind.allCases {
                var members: [String] = []
                for (index, member) in (trait.stringArray(kind.rawValue) ?? []).enumerated() {
                    let allowed = known.members(kind)
                    guard allowed.contains(member) else {
                        let hint = SpellingSuggestion.hint(for: member, among: allowed)
                        collector.error(
                            DiagnosticCode.invalidValue, at: JSONPointer.appending(index, to: trait.pointer(kind.rawValue)),
                            "\(name) has no \(kind.singular) \"\(member)\"\(hint)"
                                + (hint.isEmpty ? " (\(kind.rawValue): \(allowed.isEmpty ? "none" : allowed.joined(separator: ", ")))" : ""))
                        continue
                    }
                    if !members.contains(member) { members.append(member) }
                }
                switch kind {
                case .attributes: support.attributes = members
                case .commands: support.commands = members
                case .events: support.events = members
                }
            }
            trait.finish()
            traits.append(support)
        }
        reader.finish()
        return traits
    }

    /// `network`: a dataset as hex, with its Network Key, or without it (as saved state writes it) together with the
    /// key's SHA-256 digest. Either way, the home keeps only the dataset without secrets and the digest.
    private func decodeNetwork(_ reader: ObjectReader) -> ThreadNetworkRecord? {
        let hex = reader.string("dataset", required: true)
        let digest = reader.string("networkKeySHA256")
        reader.finish()
        guard let hex else { return nil }
        let dataset: OperationalDataset
        do {
            dataset = try OperationalDataset(hex: hex)
        } catch {
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer("dataset"),
                "\"dataset\" is not a well-formed Thread Operational Dataset: \(error.message)")
            return nil
        }
        // What a network should not have, though it can be joined: warned of as `matterflow dataset` does, with its
        // codes (never a secret: the checks name TLVs and public values).
        for warning in OperationalDataset.diagnose(hex: hex).validation?.warnings ?? [] {
            collector.warning(warning.code.rawValue, at: reader.pointer("dataset"), "\(warning.message); the simulated border routers use it all the same")
        }
        if let key = dataset.networkKey, let digest, digest.lowercased() != key.sha256Hex {
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer("networkKeySHA256"),
                "\"networkKeySHA256\" is not the digest of the dataset's Network Key; remove it (the dataset's key is enough)")
            return nil
        }
        do throws(FlowError) {
            if dataset.networkKey != nil { return try ThreadNetworkRecord(dataset: dataset) }
            guard let digest else {
                collector.error(
                    DiagnosticCode.missingKey, at: reader.pointer,
                    "the dataset has no Network Key, so \"networkKeySHA256\" (its SHA-256 digest, as saved state writes it) is needed; or put the Network Key in the dataset")
                // What else the dataset lacks is said now too, not after the digest is added.
                let others = ThreadNetworkRecord.problemsBesideSecrets(dataset)
                if !others.isEmpty {
                    collector.error(
                        DiagnosticCode.invalidValue, at: reader.pointer("dataset"),
                        "the Thread network is incomplete: \(others.map(\.message).joined(separator: "; "))")
                }
                return nil
            }
            return try ThreadNetworkRecord(publicDataset: dataset, networkKeySHA256: digest)
        } catch {
            collector.error(DiagnosticCode.invalidValue, at: reader.pointer("dataset"), error.message)
            return nil
        }
    }

    private func decodeCommissionerStep(_ reader: ObjectReader) -> HomeDescription.CommissionerStep? {
        let seconds = reader.value("atSeconds", required: true, what: "seconds after the activation") == nil
            ? nil : reader.number("atSeconds", in: NumberLimits.elapsed)
        let action: HomeDescription.CommissionerStep.Action? = choice(reader, "action", required: true)
        var step = HomeDescription.CommissionerStep(atSeconds: seconds ?? 0, action: action ?? .useKey)
        if reader.has("count") {
            if action != .wrongKey {
                collector.error(DiagnosticCode.invalidValue, at: reader.pointer("count"), "\"count\" applies to the action wrongKey only")
            } else if let count = boundedInt(reader, "count", 1...100) {
                step.count = count
            }
        }
        if reader.has("sessionSeconds") {
            if action != .useKey {
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("sessionSeconds"),
                    "\"sessionSeconds\" applies to the action useKey only")
            } else if let sessionSeconds = reader.number("sessionSeconds", in: NumberLimits.elapsed) {
                step.sessionSeconds = sessionSeconds
            }
        }
        reader.finish()
        guard seconds != nil, action != nil else { return nil }
        return step
    }

    /// Checks that each attached Thread device is a device of the home, not a border router, and attached to one
    /// border router only; keeps the routers with their valid devices.
    private func checkThreadDevices(
        _ routers: [(router: HomeDescription.BorderRouter, pointer: String)], devices: [String]
    ) -> [HomeDescription.BorderRouter] {
        let routerIDs = Set(routers.map(\.router.deviceID))
        var attachedTo: [String: String] = [:]
        var result: [HomeDescription.BorderRouter] = []
        for (router, pointer) in routers {
            var kept = router
            kept.threadDevices = []
            for (index, device) in router.threadDevices.enumerated() {
                let devicePointer = JSONPointer.appending(index, to: JSONPointer.appending("threadDevices", to: pointer))
                if !devices.contains(device) {
                    let hint = SpellingSuggestion.hint(for: device, among: devices)
                    collector.error(
                        HomeDiagnosticCode.unknownDevice, at: devicePointer,
                        "no device with ID \"\(device)\" in \"devices\"\(hint); an attached Thread device must be listed there")
                } else if routerIDs.contains(device) {
                    collector.error(
                        DiagnosticCode.invalidValue, at: devicePointer,
                        "\"\(device)\" is a border router; list only the Thread devices attached to this one")
                } else if let other = attachedTo[device] {
                    collector.error(
                        DiagnosticCode.invalidValue, at: devicePointer,
                        "\"\(device)\" is already attached to border router \"\(other)\"; a device is attached to one border router")
                } else {
                    attachedTo[device] = router.deviceID
                    kept.threadDevices.append(device)
                }
            }
            result.append(kept)
        }
        return result
    }

    /// A member naming one case of `T` (absent or null: nil). A wrong type or an unknown name is reported, with a
    /// suggestion.
    func choice<T: RawRepresentable & CaseIterable>(
        _ reader: ObjectReader, _ key: String, required: Bool = false
    ) -> T? where T.RawValue == String {
        let names = T.allCases.map(\.rawValue)
        guard let value = reader.value(key, required: required, what: "one of \(names.joined(separator: ", "))"),
            !value.isNull
        else { return nil }
        guard let text = value.stringValue else {
            collector.error(
                DiagnosticCode.wrongType, at: reader.pointer(key), "\"\(key)\" must be a string, found \(value.typeName)")
            return nil
        }
        guard let known = T(rawValue: text) else {
            let hint = SpellingSuggestion.hint(for: text, among: names)
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer(key),
                "\"\(key)\" must be one of \(names.joined(separator: ", ")), found \"\(text)\"\(hint)")
            return nil
        }
        return known
    }
}
