import Foundation
import MatterFlow
import MatterFlowSimulator
import ThreadDataset
import ThreadTestVectors

/// Homes with border routers, built in code, and the datasets of OpenThread's CLI documentation.
enum BorderRouterHomes {
    static let structureID = "br-home"
    static let routerID = "device-router"
    static let lockID = "device-lock"
    static let sensorID = "device-sensor"

    /// OpenThread-5938 (channel 15) and OpenThread-de2b (channel 22), from OpenThread's `README_DATASET.md`.
    static let network5938 =
        PublishedVectors.openThread5938
    static let network5938Key = PublishedVectors.openThread5938NetworkKey
    static let network5938PSKc = PublishedVectors.openThread5938PSKc
    static let networkDe2b =
        PublishedVectors.openThreadDe2b
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
