@testable import MatterFlowFixtures
import MatterFlowSimulator
import Testing

/// A fixture's expected devices are matched to distinct actual ones whatever their order, in polynomial time.
@Suite("matching expected devices")
struct DeviceMatchingTests {
    static func device(_ id: String, room: String? = "Kitchen") -> HomeDescription.Device {
        HomeDescription.Device(
            id: id, name: id, room: room, vendorID: 0xFFF1, productID: 0x8000, vendorName: "V", productName: "P", softwareVersion: 1)
    }

    @Test("a match that needs an earlier pairing undone is found")
    func augmentingPath() {
        // The first expectation fits both devices; the second only d1: d1 must go to the second.
        let expected = [FixtureExpectations.DeviceExpectation(room: .some("Kitchen")), .init(name: "d1")]
        #expect(HubComparison.assign(expected[...], to: [Self.device("d1"), Self.device("d2")]))
        #expect(!HubComparison.assign([.init(name: "d1"), .init(name: "d1")][...], to: [Self.device("d1"), Self.device("d2")]))
    }

    @Test("sixty alike devices and one expectation none of them meets are told apart at once, not after trying every pairing", .timeLimit(.minutes(1)))
    func manyAlikeDevices() {
        let actual = (1...60).map { Self.device("device-\($0)") }
        let alike = Array(repeating: FixtureExpectations.DeviceExpectation(room: .some("Kitchen")), count: 59)
        #expect(!HubComparison.assign((alike + [.init(room: .some("Hall"))])[...], to: actual))
        #expect(HubComparison.assign((alike + [.init(name: "device-60")])[...], to: actual))
    }
}
