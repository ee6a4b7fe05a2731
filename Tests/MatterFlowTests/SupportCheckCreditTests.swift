import Foundation
import MatterFlowJSON
import Testing

@testable import MatterFlow

/// What the protocol-order proof counts as a support check before `joinThreadNetwork`: a choice branch that compares,
/// or looks in, a value the border router's description declares. A test of existence or emptiness looks at no
/// support flag, and a member the description lacks (misspelt, say) holds no value: neither counts, and the second
/// is `unknownSupportField`.
@Suite struct SupportCheckCreditTests {
    /// Finds a border router with find-border-router.json (its output: one router's description), checks it with
    /// `condition`, then joins its network.
    static func joining(after condition: String) -> String {
        #"""
        {"workflow": "t", "version": 1, "start": "find", "states": {
          "find": {"type": "workflow", "path": "find-border-router.json", "result": "router", "next": "check", "onError": [{"errors": ["*"], "next": "failed"}]},
          "check": {"type": "choice", "choices": [{"if": \#(condition), "next": "join"}], "default": "done"},
          "join": {"type": "action", "operation": "joinThreadNetwork",
                   "arguments": {"deviceID": "${vars.router.deviceID}", "operationalDataset": "00"}, "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed"},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#
    }

    static let supported = #"{"contains": ["${vars.router.commands}", "ThreadNetworkManagement.joinNetwork"]}"#

    @Test("the shipped form, a look in the router's commands, is a support check")
    func theShippedFormCounts() {
        let diagnostics = diagnose(Self.joining(after: Self.supported))
        #expect(diagnostics.isEmpty, "\(diagnostics)")
        let negated = diagnose(Self.joining(after: #"{"not": {"not": \#(Self.supported)}}"#))
        #expect(negated.isEmpty, "\(negated)")
    }

    @Test("a misspelt member of the router is no support check, and is unknownSupportField with the member meant")
    func aMisspeltMemberDoesNotCount() throws {
        let diagnostics = diagnose(Self.joining(after: Self.supported.replacingOccurrences(of: "commands", with: "comands")))
        #expect(diagnostics.map(\.code).sorted() == ["operationOutOfOrder", "unknownSupportField"], "\(diagnostics)")
        let order = try #require(diagnostics.first { $0.code == "operationOutOfOrder" })
        #expect(order.severity == .error)
        #expect(order.pointer == "/states/join/operation")
        #expect(order.message.contains("without a choice testing the result of listBorderRouters or readBorderRouter"), "\(order.message)")
        let unknown = try #require(diagnostics.first { $0.code == "unknownSupportField" })
        #expect(unknown.severity == .warning)
        #expect(unknown.pointer == "/states/check/choices/0/if")
        #expect(unknown.location != nil)
        #expect(unknown.message.hasPrefix(#"${vars.router.comands} reads "comands", which the result of readBorderRouter held in "router" does not declare (did you mean "commands"?) (fields: deviceID, name, deviceType, vendorName, productName, traits, attributes, commands, events, network): a run finds no value there, and the protocol-order proof does not count this branch as a support check of readBorderRouter"#), "\(unknown.message)")
    }

    @Test("a member the router's description has nowhere, deeper down too, does not count either")
    func aMemberTheResultLacksDoesNotCount() {
        for condition in [
            #"{"equals": ["${vars.router.epskcSupported}", true]}"#,
            #"{"equals": ["${vars.router.network.nam}", "home"]}"#,
            #"{"equals": ["${vars.router.name.first}", "a"]}"#,
        ] {
            let codes = diagnose(Self.joining(after: condition)).map(\.code).sorted()
            #expect(codes == ["operationOutOfOrder", "unknownSupportField"], "\(condition)")
        }
    }

    @Test("a test of existence or emptiness is no support check: only the finding of a call without one")
    func anExistenceTestDoesNotCount() {
        for condition in [
            #"{"exists": "${vars.router.commands}"}"#,
            #"{"not": {"isEmpty": "${vars.router.commands}"}}"#,
            #"{"exists": "${vars.router}"}"#,
            #"{"and": [{"exists": "${vars.router.commands}"}, {"equals": ["${input.force}", true]}]}"#,
        ] {
            let text = Self.joining(after: condition)
                .replacingOccurrences(of: #""start": "find","#, with: #""start": "find", "inputs": {"force": {"type": "boolean"}},"#)
            let diagnostics = diagnose(text)
            #expect(diagnostics.map(\.code) == ["operationOutOfOrder"], "\(condition): \(diagnostics)")
        }
    }

    @Test("an existence test of the result read by the action itself does not count either")
    func anExistenceTestOfAnActionsResultDoesNotCount() {
        let text = #"""
            {"workflow": "t", "version": 1, "start": "read", "states": {
              "read": {"type": "action", "operation": "readBorderRouter", "arguments": {"deviceID": "br-1"}, "result": "router", "next": "check", "onError": [{"errors": ["*"], "next": "failed"}]},
              "check": {"type": "choice", "choices": [{"if": {"not": {"isEmpty": "${vars.router.commands}"}}, "next": "join"}], "default": "done"},
              "join": {"type": "action", "operation": "joinThreadNetwork",
                       "arguments": {"deviceID": "${vars.router.deviceID}", "operationalDataset": "00"}, "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#
        #expect(diagnose(text).map(\.code) == ["operationOutOfOrder"], "\(diagnose(text))")
        let checked = text.replacingOccurrences(of: #"{"not": {"isEmpty": "${vars.router.commands}"}}"#, with: Self.supported)
        #expect(diagnose(checked).isEmpty, "\(diagnose(checked))")
    }

    @Test("a misspelt member beside a real check is still reported, and the real check still counts")
    func aMisspeltMemberBesideARealCheck() {
        let diagnostics = diagnose(Self.joining(after: #"{"and": [\#(Self.supported), {"equals": ["${vars.router.nmae}", "kitchen"]}]}"#))
        #expect(diagnostics.map(\.code) == ["unknownSupportField"], "\(diagnostics)")
        #expect(diagnostics.first?.message.contains(#"did you mean "name"?"#) == true, "\(diagnostics)")
    }
}
