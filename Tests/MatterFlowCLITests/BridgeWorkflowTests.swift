import Foundation
import MatterFlow
import MatterFlowCLI
import MatterFlowSimulator
import Testing

/// `matterflow run Workflows/commission-bridge.json` on the example bridge home: every device the bridge brings
/// is read, and what a run leaves in the saved home.
@Suite("commission-bridge from the CLI")
struct BridgeWorkflowTests {
    /// Vendor 0xFFF4, product 0x4242: the bridge product of Examples/bridge-home.json, with three bridged devices.
    static let bridgeQR = "MT:O6PS0C1K01HWUR1VJ00"

    @Test("the bridge and its three devices are commissioned and each is read once, in order")
    func everyDeviceIsRead() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.path + "/state"
        let run = await matterflow([
            "run", Repository.workflow("commission-bridge"), "--home", Repository.root + "/Examples/bridge-home.json",
            "--state", state, "--input", "onboardingPayload=\(Self.bridgeQR)",
        ])
        #expect(run.code == 0, "\(run.stderr)")
        let result = try run.result()
        #expect(result["outcome"] as? String == "succeeded")
        let output = try #require(result["output"] as? [String: Any])
        let deviceIDs = try #require(output["deviceIDs"] as? [String])
        #expect(deviceIDs.count == 4, "the bridge and the three devices behind it")
        let devices = try #require(output["devices"] as? [[String: Any]])
        #expect(devices.map { $0["item"] as? String } == deviceIDs)
        #expect(devices.map { $0["index"] as? Int } == [0, 1, 2, 3])
        #expect(devices.allSatisfy { $0["status"] as? String == "succeeded" })
        #expect(devices.map { ($0["output"] as? [String: Any])?["deviceID"] as? String } == deviceIDs)
        #expect(output["unread"] as? Int == 0)
        #expect(run.stderr.contains("readDevices [map]"), "\(run.stderr)")
        #expect(run.stderr.components(separatedBy: "✓ readBasicInformation").count - 1 == 4, "\(run.stderr)")
        #expect(!run.stderr.contains(Self.bridgeQR), "the onboarding payload is secret")
        let home = try savedHome(in: state)
        #expect(home.activeSession == nil, "no session is left open")
        #expect(Set(deviceIDs).isSubset(of: Set(home.devices.map(\.id))))
    }

    @Test("the shipped bridge workflow validates, and its graph draws the map distinctly")
    func validatesAndDraws() async throws {
        let validate = await matterflow("validate", Repository.workflow("commission-bridge"))
        #expect(validate.code == 0, "\(validate.stdout)\(validate.stderr)")
        let dot = await matterflow("graph", Repository.workflow("commission-bridge"))
        #expect(dot.code == 0)
        #expect(dot.stdout.contains("for each deviceID of ${vars.completion.deviceIDs} (≤ 64, 4 at a time, tolerates 1 failed)"), "\(dot.stdout)")
        #expect(dot.stdout.contains("shape=box3d"), "\(dot.stdout)")
        let mermaid = await matterflow("graph", Repository.workflow("commission-bridge"), "--format", "mermaid")
        #expect(mermaid.code == 0)
        #expect(mermaid.stdout.contains(#"[("readDevices<br/>for each deviceID"#), "\(mermaid.stdout)")
    }
}
