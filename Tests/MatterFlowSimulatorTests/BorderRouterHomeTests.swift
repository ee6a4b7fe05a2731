import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// Border routers in home descriptions: the example homes, defaults, round trips without secrets, and a
/// diagnostic for every mistake, at its member.
@Suite struct BorderRouterHomeTests {
    @Test("the example homes decode, and round-trip", arguments: [
        "border-router-home", "border-router-basic-home", "border-router-on-network-home",
    ])
    func exampleHomes(_ name: String) throws {
        let home = try BorderRouterHomes.example(name)
        #expect(home.thread.borderRouters.count == 1)
        let decoded = try HomeDescription.parse(home.jsonText, file: "\(name).json")
        #expect(decoded == home)
        #expect(decoded.jsonText == home.jsonText)
    }

    @Test func theExampleHomesCoverTheThreeKindsOfRouter() throws {
        let full = try #require(try BorderRouterHomes.example("border-router-home").thread.borderRouters.first)
        #expect(full.offersEpskc && full.capabilities.internetAccessOption == .all)
        #expect(full.supports(BorderRouterTraits.management, .commands, BorderRouterTraits.activateEpskcMode))
        let basic = try #require(try BorderRouterHomes.example("border-router-basic-home").thread.borderRouters.first)
        #expect(!basic.offersEpskc && basic.capabilities.internetAccessOption == InternetAccessOption.none)
        #expect(basic.trait(BorderRouterTraits.management) == nil)
        let onNetwork = try #require(try BorderRouterHomes.example("border-router-on-network-home").thread.borderRouters.first)
        #expect(onNetwork.network?.summary.networkName == "OpenThread-5938")
        #expect(onNetwork.threadDevices.count == 2)
    }

    @Test func aMinimalBorderRouterSupportsEverything() throws {
        let text = """
            {"version": 1, "structure": {"id": "h", "name": "H"},
             "devices": [{"id": "br", "name": "Hub", "vendorID": 24582, "productID": 1}],
             "thread": {"borderRouters": [{"device": "br"}]}}
            """
        let home = try HomeDescription.parse(text, file: "home.json")
        #expect(home.thread.internetAccessOption == .unspecified)
        #expect(home.thread.borderRouters == [HomeDescription.BorderRouter(deviceID: "br")])
        #expect(home.thread.borderRouters[0].traits == BorderRouterTraits.all)
    }

    @Test func aHomeWithoutBorderRoutersWritesNoThreadMember() {
        #expect(!HomeDescription.defaultHome.jsonText.contains("\"thread\""))
    }

    @Test func secretsAreDroppedWhenReadAndNeverWritten() throws {
        let text = """
            {"version": 1, "structure": {"id": "h", "name": "H"},
             "devices": [{"id": "br", "name": "Hub", "vendorID": 24582, "productID": 1}],
             "thread": {"borderRouters": [{"device": "br", "network": {"dataset": "\(BorderRouterHomes.network5938)"}}]}}
            """
        let home = try HomeDescription.parse(text, file: "home.json")
        let written = home.jsonText
        #expect(!written.contains(BorderRouterHomes.network5938Key))
        #expect(!written.contains(BorderRouterHomes.network5938PSKc))
        #expect(written.contains("\"networkKeySHA256\""))
        let reread = try HomeDescription.parse(written, file: "saved.json")
        #expect(reread == home)
        #expect(reread.thread.borderRouters[0].network == (try BorderRouterHomes.record(BorderRouterHomes.network5938)))
    }

    // MARK: - Diagnostics

    static func home(_ routers: String, devices: String = #"{"id": "br", "name": "Hub", "vendorID": 24582, "productID": 1}, {"id": "lock", "name": "Lock", "vendorID": 65521, "productID": 2}"#) -> String {
        """
        {"version": 1, "structure": {"id": "h", "name": "H"},
         "devices": [\(devices)],
         "thread": \(routers)}
        """
    }

    static var noKey: String { BorderRouterHomes.network5938.replacingOccurrences(of: "0510" + BorderRouterHomes.network5938Key, with: "") }

    struct Mistake: Sendable, CustomTestStringConvertible {
        var name: String
        var thread: String
        var code: String
        var pointer: String
        var mentioning: String
        var testDescription: String { name }
    }

    static let mistakes: [Mistake] = [
        Mistake(
            name: "a router that is not a device", thread: #"{"borderRouters": [{"device": "bt"}]}"#,
            code: HomeDiagnosticCode.unknownDevice, pointer: "/thread/borderRouters/0/device", mentioning: #"did you mean "br""#),
        Mistake(
            name: "a router described twice", thread: #"{"borderRouters": [{"device": "br"}, {"device": "br"}]}"#,
            code: HomeDiagnosticCode.duplicateID, pointer: "/thread/borderRouters/1/device", mentioning: "/thread/borderRouters/0"),
        Mistake(
            name: "an unknown trait", thread: #"{"borderRouters": [{"device": "br", "traits": {"ThreadNetworkManagment": {}}}]}"#,
            code: DiagnosticCode.unknownKey, pointer: "/thread/borderRouters/0/traits/ThreadNetworkManagment",
            mentioning: #"did you mean "ThreadNetworkManagement""#),
        Mistake(
            name: "an unknown command",
            thread: #"{"borderRouters": [{"device": "br", "traits": {"ThreadNetworkManagement": {"commands": ["joinNetwork", "activateEpskc"]}}}]}"#,
            code: DiagnosticCode.invalidValue, pointer: "/thread/borderRouters/0/traits/ThreadNetworkManagement/commands/1",
            mentioning: #"did you mean "activateEpskcMode""#),
        Mistake(
            name: "an attribute on the wrong trait",
            thread: #"{"borderRouters": [{"device": "br", "traits": {"ThreadNetworkManagement": {"attributes": ["epskcSupported"]}}}]}"#,
            code: DiagnosticCode.invalidValue, pointer: "/thread/borderRouters/0/traits/ThreadNetworkManagement/attributes/0",
            mentioning: "attributes: none"),
        Mistake(
            name: "an unknown internet access option",
            thread: #"{"borderRouters": [{"device": "br", "capabilities": {"internetAccessOption": "nat64"}}]}"#,
            code: DiagnosticCode.invalidValue, pointer: "/thread/borderRouters/0/capabilities/internetAccessOption",
            mentioning: "unspecified, none, all, nat64Only, dhcpv6PdOnly"),
        Mistake(
            name: "a structure option that is not a string", thread: #"{"internetAccessOption": 3}"#,
            code: DiagnosticCode.wrongType, pointer: "/thread/internetAccessOption", mentioning: "must be a string"),
        Mistake(
            name: "epskcSupported that is not a boolean",
            thread: #"{"borderRouters": [{"device": "br", "capabilities": {"epskcSupported": "yes"}}]}"#,
            code: DiagnosticCode.wrongType, pointer: "/thread/borderRouters/0/capabilities/epskcSupported",
            mentioning: "or null"),
        Mistake(
            name: "a malformed dataset", thread: #"{"borderRouters": [{"device": "br", "network": {"dataset": "0e08"}}]}"#,
            code: DiagnosticCode.invalidValue, pointer: "/thread/borderRouters/0/network/dataset",
            mentioning: "not a well-formed Thread Operational Dataset"),
        Mistake(
            name: "an incomplete dataset",
            thread: #"{"borderRouters": [{"device": "br", "network": {"dataset": "\#(BorderRouterHomes.network5938.replacingOccurrences(of: "0c0402a0f7f8", with: ""))"}}]}"#,
            code: DiagnosticCode.invalidValue, pointer: "/thread/borderRouters/0/network/dataset",
            mentioning: "Security Policy (type 12) is missing"),
        Mistake(
            name: "a dataset without its key and without a digest",
            thread: #"{"borderRouters": [{"device": "br", "network": {"dataset": "\#(noKey)"}}]}"#,
            code: DiagnosticCode.missingKey, pointer: "/thread/borderRouters/0/network", mentioning: "networkKeySHA256"),
        Mistake(
            name: "a digest that is not the key's",
            thread: #"{"borderRouters": [{"device": "br", "network": {"dataset": "\#(BorderRouterHomes.network5938)", "networkKeySHA256": "\#(String(repeating: "0", count: 64))"}}]}"#,
            code: DiagnosticCode.invalidValue, pointer: "/thread/borderRouters/0/network/networkKeySHA256",
            mentioning: "not the digest"),
        Mistake(
            name: "an attached device that does not exist",
            thread: #"{"borderRouters": [{"device": "br", "threadDevices": ["lok"]}]}"#,
            code: HomeDiagnosticCode.unknownDevice, pointer: "/thread/borderRouters/0/threadDevices/0", mentioning: #"did you mean "lock""#),
        Mistake(
            name: "a border router attached to itself",
            thread: #"{"borderRouters": [{"device": "br", "threadDevices": ["br"]}]}"#,
            code: DiagnosticCode.invalidValue, pointer: "/thread/borderRouters/0/threadDevices/0", mentioning: "is a border router"),
        Mistake(
            name: "a device attached to two routers",
            thread: #"{"borderRouters": [{"device": "br", "threadDevices": ["lock"]}, {"device": "lock2", "threadDevices": ["lock"]}]}"#,
            code: DiagnosticCode.invalidValue, pointer: "/thread/borderRouters/1/threadDevices/0", mentioning: "already attached"),
        Mistake(
            name: "an unknown commissioner action",
            thread: #"{"borderRouters": [{"device": "br", "commissioner": [{"atSeconds": 3, "action": "useKeys"}]}]}"#,
            code: DiagnosticCode.invalidValue, pointer: "/thread/borderRouters/0/commissioner/0/action", mentioning: #"did you mean "useKey""#),
        Mistake(
            name: "a count on the wrong action",
            thread: #"{"borderRouters": [{"device": "br", "commissioner": [{"atSeconds": 3, "action": "useKey", "count": 2}]}]}"#,
            code: DiagnosticCode.invalidValue, pointer: "/thread/borderRouters/0/commissioner/0/count", mentioning: "wrongKey only"),
        Mistake(
            name: "a commissioner step without its time",
            thread: #"{"borderRouters": [{"device": "br", "commissioner": [{"action": "connect"}]}]}"#,
            code: DiagnosticCode.missingKey, pointer: "/thread/borderRouters/0/commissioner/0", mentioning: "atSeconds"),
        Mistake(
            name: "a misspelt member", thread: #"{"borderRouters": [{"device": "br", "netwrok": null}]}"#,
            code: DiagnosticCode.unknownKey, pointer: "/thread/borderRouters/0/netwrok", mentioning: #"did you mean "network""#),
    ]

    @Test("each mistake gets one diagnostic at its member", arguments: mistakes)
    func diagnostic(_ mistake: Mistake) throws {
        let devices = mistake.name == "a device attached to two routers"
            ? #"{"id": "br", "name": "Hub", "vendorID": 24582, "productID": 1}, {"id": "lock2", "name": "Hub 2", "vendorID": 24582, "productID": 1}, {"id": "lock", "name": "Lock", "vendorID": 65521, "productID": 2}"#
            : #"{"id": "br", "name": "Hub", "vendorID": 24582, "productID": 1}, {"id": "lock", "name": "Lock", "vendorID": 65521, "productID": 2}"#
        let text = Self.home(mistake.thread, devices: devices)
        let diagnostics = HomeDescription.decode(try JSONDocument.parse(text, file: "home.json")).diagnostics
        #expect(diagnostics.count == 1, "\(diagnostics)")
        let first = try #require(diagnostics.first)
        #expect(first.code == mistake.code, "\(first)")
        #expect(first.pointer == mistake.pointer, "\(first)")
        #expect(first.message.contains(mistake.mentioning), "\(first)")
        #expect(first.location != nil)
        // No message ever repeats a secret.
        #expect(!first.message.contains(BorderRouterHomes.network5938Key))
        #expect(!first.message.contains(BorderRouterHomes.network5938PSKc))
    }

    @Test("a dataset without its key, its digest and more is told everything it lacks at once, not the digest first and the rest after it is added")
    func incompleteDatasetWithoutKeyIsToldAllAtOnce() throws {
        // The key and the Security Policy left out, no digest.
        let lacking = Self.noKey.replacingOccurrences(of: "0c0402a0f7f8", with: "")
        let text = Self.home(#"{"borderRouters": [{"device": "br", "network": {"dataset": "\#(lacking)"}}]}"#)
        let diagnostics = HomeDescription.decode(try JSONDocument.parse(text, file: "home.json")).diagnostics
        #expect(diagnostics.map(\.code) == [DiagnosticCode.missingKey, DiagnosticCode.invalidValue], "\(diagnostics)")
        #expect(diagnostics.first?.message.contains("networkKeySHA256") == true)
        #expect(diagnostics.last?.pointer == "/thread/borderRouters/0/network/dataset")
        #expect(diagnostics.last?.message.contains("Security Policy (type 12) is missing") == true, "\(diagnostics)")
        #expect(diagnostics.last?.message.contains("Network Key") == false, "the key's absence is the first finding's")
    }
}
