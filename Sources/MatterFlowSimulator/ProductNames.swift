/// Names the simulator gives vendors and products it knows only by number (an onboarding payload carries IDs,
/// not names).
enum ProductNames {
    /// The Matter test vendor IDs (0xFFF1 to 0xFFF4), reserved by the specification for development.
    static let testVendorIDs: ClosedRange<Int> = 0xFFF1...0xFFF4

    /// The vendor ID reported for a payload that carries none (an 11-digit manual pairing code): the first test VID.
    static let unknownVendorID = 0xFFF1

    /// The product ID reported for a payload that carries none: the first test product ID.
    static let unknownProductID = 0x8000

    /// "Test Vendor (0xFFF1)" for a test vendor, else "Vendor 0x1234".
    static func vendorName(vendorID: Int) -> String {
        testVendorIDs.contains(vendorID) ? "Test Vendor (\(hex(vendorID)))" : "Vendor \(hex(vendorID))"
    }

    /// "Matter Device 0x8000".
    static func productName(productID: Int) -> String {
        "Matter Device \(hex(productID))"
    }

    /// The name of the `index`-th (1-based) device behind a bridge.
    static func bridgedDeviceName(productName: String, index: Int) -> String {
        "\(productName) bridged device \(index)"
    }

    /// `0xFFF1`: four upper-case hexadecimal digits.
    static func hex(_ value: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
