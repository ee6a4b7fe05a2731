import Foundation
import MatterFlow
import MatterFlowSimulator
import Testing

/// Onboarding payloads used across the tests (generated with the MatterPayload module).
enum Payloads {
    /// The Matter specification's example QR code: vendor 0xFFF1, product 0x8000, discriminator 3840.
    static let specQR = "MT:Y.K9042C00KA0648G00"
    /// The same device's 11-digit manual code: short discriminator 15, no vendor or product ID.
    static let specManual = "34970112332"
    /// Vendor 0xFFF2, product 0x1001, discriminator 2048.
    static let lampQR = "MT:634J0KGB00AJVH7SR00"
    /// Vendor 0xFFF4, product 0x4242, discriminator 777: a bridge in ``TestHomes/basic``.
    static let bridgeQR = "MT:O6PS0C1K01HWUR1VJ00"
    /// Vendor 0xFFF1, product 0x8001, discriminator 1234, as an 11-digit manual code (short discriminator 4).
    static let otherManual = "10054912339"
}

/// Small homes built in code, with no simulated latency unless a test adds some.
enum TestHomes {
    static let structureID = "home-a"

    static func basic(id: StructureID = structureID, seed: UInt64 = 42) -> HomeDescription {
        HomeDescription(
            structure: .init(id: id, name: "Test Home"),
            rooms: [Room(id: "room-kitchen", name: "Kitchen"), Room(id: "room-hall", name: "Hall")],
            devices: [
                .init(
                    id: "device-existing", name: "Hall Light", room: "Hall", vendorID: 0xFFF2, productID: 0x0001,
                    vendorName: "Lumen Works", productName: "Bulb", softwareVersion: 7)
            ],
            seed: seed,
            simulation: .init(bridges: [.init(vendorID: 0xFFF4, productID: 0x4242, bridgedDevices: 2)]))
    }

    /// A hub on a manual clock for one basic home.
    static func hub(_ home: HomeDescription = basic()) throws -> (SimulatedHub, ManualClock) {
        let clock = ManualClock()
        return (try SimulatedHub(home: home, clock: clock), clock)
    }
}

/// A fresh, empty temporary directory, removed by the caller with ``removeDirectory(_:)``.
func makeTemporaryDirectory() throws -> String {
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("matterflow-simulator-tests-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

func removeDirectory(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// Runs a hub call expected to fail with a ``FlowError`` of a cause, and returns the error.
@discardableResult
func expectFailure<T>(
    _ cause: ErrorCause, sourceLocation: Testing.SourceLocation = #_sourceLocation,
    _ body: () async throws -> T
) async -> FlowError? {
    do {
        _ = try await body()
        Issue.record("expected \(cause.rawValue), but the call succeeded", sourceLocation: sourceLocation)
        return nil
    } catch let error as FlowError {
        #expect(error.cause == cause, "\(error)", sourceLocation: sourceLocation)
        #expect(error.code == cause.code, sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected FlowError \(cause.rawValue), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Opens a session and creates the add-device request: the state in which a device can be commissioned.
func prepareAndRequest(_ hub: SimulatedHub, _ structure: StructureID = TestHomes.structureID) async throws {
    _ = try await hub.prepareCommissioning(structure: structure)
    _ = try await hub.createAddDeviceRequest(
        structure: structure, topology: Topology(ecosystemName: "Google Home", homes: []))
}
