import MatterFlow
import MatterFlowJSON
import ThreadDataset

extension HomeDescription.ThreadSetup {
    /// The `thread` member. Networks are written without their secrets: the dataset without the Network Key and
    /// PSKc TLVs, and the Network Key's SHA-256 digest, which is enough to recognise the network again.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["internetAccessOption"] = .string(internetAccessOption.rawValue)
        object["borderRouters"] = .array(borderRouters.map(\.jsonValue))
        return .object(object)
    }
}

extension HomeDescription.BorderRouter {
    /// A member of `thread.borderRouters`; every default is written out.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["device"] = .string(deviceID)
        object["capabilities"] = [
            "epskcSupported": capabilities.epskcSupported.map(JSONValue.bool) ?? .null,
            "internetAccessOption": capabilities.internetAccessOption.map { .string($0.rawValue) } ?? .null,
        ]
        var traitsObject = JSONObject()
        for trait in traits {
            var members = JSONObject()
            for kind in TraitSupport.MemberKind.allCases where !trait.members(kind).isEmpty {
                members[kind.rawValue] = .array(trait.members(kind).map(JSONValue.string))
            }
            traitsObject[trait.name] = .object(members)
        }
        object["traits"] = .object(traitsObject)
        if let network {
            object["network"] = [
                "dataset": .string(network.publicDataset.hexString),
                "networkKeySHA256": .string(network.networkKeySHA256),
            ]
        } else {
            object["network"] = .null
        }
        if !threadDevices.isEmpty { object["threadDevices"] = .array(threadDevices.map(JSONValue.string)) }
        if !commissioner.isEmpty { object["commissioner"] = .array(commissioner.map(\.jsonValue)) }
        return .object(object)
    }
}

extension HomeDescription.CommissionerStep {
    /// A member of a border router's `commissioner` list; `count` and `sessionSeconds` only where they apply.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["atSeconds"] = .double(atSeconds)
        object["action"] = .string(action.rawValue)
        switch action {
        case .wrongKey: object["count"] = .int(count)
        case .useKey: object["sessionSeconds"] = .double(sessionSeconds)
        case .connect, .deactivate: break
        }
        return .object(object)
    }
}
