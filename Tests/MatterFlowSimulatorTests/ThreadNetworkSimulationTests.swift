import Foundation
import MatterFlow
import MatterFlowSimulator
import Testing
import ThreadDataset

/// Border routers on the simulated hub, ePSKc aside: descriptions and support checks, capabilities, joining,
/// migrating and leaving networks (persisted without secrets), and the structure's internet-access policy.
@Suite struct ThreadNetworkSimulationTests {
    let structure = BorderRouterHomes.structureID
    let router = BorderRouterHomes.routerID

    @Test func borderRoutersAreDescribedWithTheirSupportedMembers() async throws {
        let (hub, _) = try TestHomes.hub(BorderRouterHomes.home(try BorderRouterHomes.routerOnNetwork()))
        let routers = try await hub.borderRouters(structure: structure)
        #expect(routers.map(\.deviceID) == [router])
        let description = try await hub.borderRouter(structure: structure, deviceID: router)
        #expect(description == routers[0])
        #expect(description.name == "Hall Hub")
        #expect(description.deviceType == borderRouterDeviceType)
        #expect(description.basicInformation.vendorName == "Google")
        #expect(description.supportedMembers.commands.contains("ThreadNetworkManagement.activateEpskcMode"))
        #expect(description.supportedMembers.attributes == [
            "ThreadNetworkCapabilities.epskcSupported", "ThreadNetworkCapabilities.internetAccessOption",
        ])
        #expect(description.network?.networkName == "OpenThread-5938")
        let notRouter = await expectFailure(.notBorderRouter) {
            try await hub.borderRouter(structure: structure, deviceID: BorderRouterHomes.lockID)
        }
        #expect(notRouter?.message.contains("border routers: \(router)") == true)
        let unknown = await expectFailure(.deviceNotFound) { try await hub.borderRouter(structure: structure, deviceID: "device-routerr") }
        #expect(unknown?.message.contains("did you mean \"\(router)\"") == true)
        await expectFailure(.structureNotFound) { try await hub.borderRouters(structure: "elsewhere") }
    }

    @Test func capabilitiesAreReadOnlyThroughTheTrait() async throws {
        var partial = HomeDescription.BorderRouter(deviceID: router)
        partial.traits = [TraitSupport(name: BorderRouterTraits.capabilities, attributes: [BorderRouterTraits.epskcSupported])]
        let (hub, _) = try TestHomes.hub(BorderRouterHomes.home(partial))
        // An attribute the trait lacks reads as not reported.
        #expect(try await hub.threadCapabilities(structure: structure, deviceID: router)
            == ThreadCapabilities(epskcSupported: true, internetAccessOption: nil))
        var none = HomeDescription.BorderRouter(deviceID: router)
        none.traits = []
        let (bare, _) = try TestHomes.hub(BorderRouterHomes.home(none))
        let error = await expectFailure(.notSupported) { try await bare.threadCapabilities(structure: structure, deviceID: router) }
        #expect(error?.message.contains("ThreadNetworkCapabilities.epskcSupported") == true)
        #expect(error?.message.contains("lacks the ThreadNetworkCapabilities trait") == true)
    }

    @Test("joining the same network with a newer dataset keeps the router there and takes the dataset's other fields")
    func aNewerDatasetOfTheSameNetworkIsKept() async throws {
        let (hub, _) = try TestHomes.hub(BorderRouterHomes.home(try BorderRouterHomes.routerOnNetwork()))
        // The same Extended PAN ID, channel and Network Key; a later timestamp and another name.
        let renamed = BorderRouterHomes.network5938
            .replacingOccurrences(of: "0e080000000000010000", with: "0e080000000000020000")
            .replacingOccurrences(of: "030f4f70656e5468726561642d35393338", with: "0307" + "4e65774e616d65")
        let result = try await hub.joinThreadNetwork(structure: structure, deviceID: router, operationalDataset: try BorderRouterHomes.bytes(renamed))
        #expect(result.status == .alreadyJoined)
        #expect(result.network?.networkName == "NewName")
        let after = try await hub.snapshot(structure: structure)
        #expect(after.thread.borderRouters.first?.network?.summary.networkName == "NewName")
        #expect(after.thread.borderRouters.first?.threadDevices == [BorderRouterHomes.lockID], "the devices stay attached")
    }

    @Test func joiningTheSameNetworkChangesNothingAndAnotherMigratesTheAttachedDevices() async throws {
        let (hub, _) = try TestHomes.hub(BorderRouterHomes.home(try BorderRouterHomes.routerOnNetwork()))
        let before = try await hub.snapshot(structure: structure)
        let same = try await hub.joinThreadNetwork(
            structure: structure, deviceID: router, operationalDataset: try BorderRouterHomes.bytes(BorderRouterHomes.network5938))
        #expect(same.status == .alreadyJoined)
        #expect(same.migratedDevices.isEmpty)
        #expect(try await hub.snapshot(structure: structure) == before)

        let other = try await hub.joinThreadNetwork(
            structure: structure, deviceID: router, operationalDataset: try BorderRouterHomes.bytes(BorderRouterHomes.networkDe2b))
        #expect(other.status == .migrated)
        #expect(other.migratedDevices == [BorderRouterHomes.lockID])
        #expect(other.network?.networkName == "OpenThread-de2b")
        let after = try await hub.snapshot(structure: structure)
        #expect(after.thread.borderRouters[0].threadDevices == [BorderRouterHomes.lockID])
        #expect(after.thread.borderRouters[0].network?.summary.channel == 22)
    }

    @Test func leavingForgetsTheDatasetAndLeavingAgainIsANoOp() async throws {
        let (hub, _) = try TestHomes.hub(BorderRouterHomes.home(try BorderRouterHomes.routerOnNetwork()))
        let left = try await hub.leaveThreadNetwork(structure: structure, deviceID: router)
        #expect(left.status == .left)
        #expect(left.network == nil)
        let home = try await hub.snapshot(structure: structure)
        #expect(home.thread.borderRouters[0].network == nil)
        #expect(home.thread.borderRouters[0].threadDevices.isEmpty)
        #expect(try await hub.leaveThreadNetwork(structure: structure, deviceID: router).status == .notOnNetwork)
        #expect(try await hub.snapshot(structure: structure) == home)
        let joined = try await hub.joinThreadNetwork(
            structure: structure, deviceID: router, operationalDataset: try BorderRouterHomes.bytes(BorderRouterHomes.network5938))
        #expect(joined.status == .joined)
    }

    @Test func badDatasetsAreRefusedNamingTheProblem() async throws {
        let (hub, _) = try TestHomes.hub(BorderRouterHomes.home())
        var noKey = try OperationalDataset(hex: BorderRouterHomes.network5938)
        noKey.removeTLV(.networkKey)
        let missing = await expectFailure(.invalidDataset) {
            try await hub.joinThreadNetwork(structure: structure, deviceID: router, operationalDataset: noKey.encode())
        }
        #expect(missing?.message.contains("Network Key (type 5) is missing") == true)
        await expectFailure(.invalidDataset) {
            try await hub.joinThreadNetwork(structure: structure, deviceID: router, operationalDataset: [0x0e, 0x08, 0x00])
        }
        #expect(try await hub.snapshot(structure: structure).thread.borderRouters[0].network == nil)
    }

    @Test func aRouterWithoutTheManagementTraitCannotJoinOrLeave() async throws {
        var lite = HomeDescription.BorderRouter(deviceID: router)
        lite.traits = [BorderRouterTraits.all[0]]
        let (hub, _) = try TestHomes.hub(BorderRouterHomes.home(lite))
        let join = await expectFailure(.notSupported) {
            try await hub.joinThreadNetwork(
                structure: structure, deviceID: router, operationalDataset: try BorderRouterHomes.bytes(BorderRouterHomes.network5938))
        }
        #expect(join?.message.contains("ThreadNetworkManagement.joinNetwork") == true)
        let leave = await expectFailure(.notSupported) { try await hub.leaveThreadNetwork(structure: structure, deviceID: router) }
        #expect(leave?.message.contains("ThreadNetworkManagement.leaveNetwork") == true)
    }

    @Test func membershipIsSavedWithoutSecretsAndStillRecognised() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let store = try HomeStateStore(directory: directory, startingFrom: BorderRouterHomes.home())
        let hub = try SimulatedHub(stateStore: store, clock: ManualClock())
        _ = try await hub.joinThreadNetwork(
            structure: structure, deviceID: router, operationalDataset: try BorderRouterHomes.bytes(BorderRouterHomes.network5938))
        let saved = try String(contentsOfFile: store.path, encoding: .utf8).lowercased()
        #expect(!saved.contains(BorderRouterHomes.network5938Key))
        #expect(!saved.contains(BorderRouterHomes.network5938PSKc))
        #expect(saved.contains("networkkeysha256"))
        // The next process recognises the network from the digest alone.
        let reopened = try SimulatedHub(
            stateStore: try HomeStateStore(directory: directory, startingFrom: BorderRouterHomes.home()), clock: ManualClock())
        let again = try await reopened.joinThreadNetwork(
            structure: structure, deviceID: router, operationalDataset: try BorderRouterHomes.bytes(BorderRouterHomes.network5938))
        #expect(again.status == .alreadyJoined)
    }

    @Test func theInternetAccessPolicyAppliesToRoutersThatSupportIt() async throws {
        var home = BorderRouterHomes.home(try BorderRouterHomes.routerOnNetwork())
        home.thread.borderRouters[0].capabilities.internetAccessOption = .all
        home.thread.borderRouters.append(HomeDescription.BorderRouter(
            deviceID: BorderRouterHomes.sensorID,
            capabilities: ThreadCapabilities(epskcSupported: false, internetAccessOption: .nat64Only)))
        let (hub, _) = try TestHomes.hub(home)
        let initial = try await hub.threadNetworkSettings(structure: structure)
        #expect(initial.internetAccessOption == .unspecified)
        #expect(initial.defaultThreadNetworkID == "39758ec8144b07fb")
        #expect(try await hub.setInternetAccess(structure: structure, option: .nat64Only).appliedTo == [router, BorderRouterHomes.sensorID])
        #expect(try await hub.setInternetAccess(structure: structure, option: .all).appliedTo == [router])
        #expect(try await hub.setInternetAccess(structure: structure, option: .none).appliedTo == [router, BorderRouterHomes.sensorID])
        #expect(try await hub.threadNetworkSettings(structure: structure).internetAccessOption == .none)

        try await hub.setPermissionGranted(false, structure: structure)
        await expectFailure(.permissionNotGranted) { try await hub.setInternetAccess(structure: structure, option: .all) }
        try await hub.setPermissionGranted(true, structure: structure)
        try await hub.setOnline(false, structure: structure)
        await expectFailure(.hubOffline) { try await hub.setInternetAccess(structure: structure, option: .all) }
        await expectFailure(.hubOffline) { try await hub.threadNetworkSettings(structure: structure) }
    }

    @Test func anOptionNoRouterSupportsIsRefusedAndChangesNothing() async throws {
        var home = BorderRouterHomes.home()
        home.thread.borderRouters[0].capabilities.internetAccessOption = .dhcpv6PdOnly
        let (hub, _) = try TestHomes.hub(home)
        let refused = await expectFailure(.notSupported) { try await hub.setInternetAccess(structure: structure, option: .nat64Only) }
        #expect(refused?.message.contains("\(router): dhcpv6PdOnly") == true)
        #expect(try await hub.threadNetworkSettings(structure: structure).internetAccessOption == .unspecified)
        var lite = BorderRouterHomes.home()
        lite.thread.borderRouters[0].capabilities.internetAccessOption = InternetAccessOption.none
        let (none, _) = try TestHomes.hub(lite)
        await expectFailure(.notSupported) { try await none.setInternetAccess(structure: structure, option: .all) }
        // Turning access off asks nothing of a router: it is always accepted.
        #expect(try await none.setInternetAccess(structure: structure, option: .none).internetAccessOption == InternetAccessOption.none)
    }
}
