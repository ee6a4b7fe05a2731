import Foundation
import MatterFlow
import MatterFlowSimulator
import ThreadDataset

/// Homes with border routers, built in code, and the datasets of OpenThread's CLI documentation.
enum BorderRouterHomes {
    static let structureID = "br-home"
    static let routerID = "device-router"
    static let lockID = "device-lock"
    static let sensorID = "device-sensor"

    /// OpenThread-5938 (channel 15) and OpenThread-de2b (channel 22), from OpenThread's `README_DATASET.md`.
    static let network5938 =
        "0e080000000000010000000300000f35060004001fffe0020839758ec8144b07fb0708fdf1f1add0797dc00510f366cec7a446"
        + "bab978d90d27abe38f23030f4f70656e5468726561642d353933380102593804103ca67c969efb0d0c74a4d8ee923b576c0c04"
        + "02a0f7f8"
    static let network5938Key = "f366cec7a446bab978d90d27abe38f23"
    static let network5938PSKc = "3ca67c969efb0d0c74a4d8ee923b576c"
    static let networkDe2b =
        "0e080000000000010000000300001635060004001fffe00208d196fa2040e973b60708fdbbc310c48f3a3905109929154dbc36"
        + "3218bcd22f907caf5c15030f4f70656e5468726561642d646532620102de2b041015b2c16f7ba92ed4bc7b1ee054f1553f0c04"
        + "02a0f7f8"

    static func bytes(_ hex: String) throws -> [UInt8] { try OperationalDataset(hex: hex).encode() }

    static func record(_ hex: String) throws -> ThreadNetworkRecord {
        try ThreadNetworkRecord(dataset: OperationalDataset(hex: hex))
    }

    /// A home with one border router (every trait, ePSKc and internet access by default), a lock attached to it
    /// and a sensor that is not.
    static func home(_ router: HomeDescription.BorderRouter = HomeDescription.BorderRouter(deviceID: routerID)) -> HomeDescription {
        HomeDescription(
            structure: .init(id: structureID, name: "Border Home"),
            rooms: [Room(id: "room-hall", name: "Hall")],
            devices: [
                .init(
                    id: routerID, name: "Hall Hub", room: "Hall", vendorID: 0x6006, productID: 113, vendorName: "Google",
                    productName: "Nest Hub (2nd gen)", softwareVersion: 48),
                .init(
                    id: lockID, name: "Front Door Lock", room: "Hall", vendorID: 0xFFF1, productID: 0x8001,
                    vendorName: "Test Vendor (0xFFF1)", productName: "Thread Lock", softwareVersion: 5),
                .init(
                    id: sensorID, name: "Hall Sensor", vendorID: 0xFFF2, productID: 0x2001, vendorName: "Lumen Works",
                    productName: "Sensor", softwareVersion: 1),
            ],
            seed: 5,
            thread: .init(borderRouters: [router]))
    }

    /// The router of ``home(_:)`` on a network, with the lock attached.
    static func routerOnNetwork(_ hex: String = network5938) throws -> HomeDescription.BorderRouter {
        HomeDescription.BorderRouter(deviceID: routerID, network: try record(hex), threadDevices: [lockID])
    }

    /// A shipped example home, found from this file.
    static func example(_ name: String) throws -> HomeDescription {
        let path = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Examples/\(name).json").path
        return try HomeDescription.load(path: path)
    }
}

/// Reads the next events of a stream, in order.
func nextEvents(
    _ count: Int, from iterator: inout AsyncStream<EpskcModeDeactivatedEvent>.AsyncIterator
) async -> [EpskcModeDeactivatedEvent] {
    var events: [EpskcModeDeactivatedEvent] = []
    for _ in 0..<count {
        guard let event = await iterator.next() else { break }
        events.append(event)
    }
    return events
}
