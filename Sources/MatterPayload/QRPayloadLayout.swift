/// The packed 88-bit fixed part of a QR payload, and its conversion to and from bytes.
///
/// Fields are laid out least-significant bit first in a little-endian byte string:
///
/// | field                  | bits | first bit |
/// |------------------------|------|-----------|
/// | version                | 3    | 0         |
/// | vendor ID              | 16   | 3         |
/// | product ID             | 16   | 19        |
/// | commissioning flow     | 2    | 35        |
/// | discovery capabilities | 8    | 37        |
/// | discriminator          | 12   | 45        |
/// | passcode               | 27   | 57        |
/// | padding                | 4    | 84        |
///
/// Optional TLV data follows the 11 bytes.
enum QRPayloadLayout {
    /// Size of the fixed part in bytes.
    static let fixedByteCount = 11
    /// The text every QR payload string starts with.
    static let prefix = "MT:"
    /// Separates payloads in one QR string.
    static let separator: Unicode.Scalar = "*"

    /// Field widths in bits, in layout order.
    static let versionBits = 3
    static let vendorIDBits = 16
    static let productIDBits = 16
    static let flowBits = 2
    static let capabilitiesBits = 8
    static let discriminatorBits = 12
    static let passcodeBits = 27
    static let paddingBits = 4

    /// The bytes of `payload` (fixed part plus TLV data). Values wider than their field are masked.
    static func pack(_ payload: OnboardingPayload) -> [UInt8] {
        var writer = BitWriter(byteCount: fixedByteCount)
        writer.append(UInt64(payload.version), bits: versionBits)
        writer.append(UInt64(payload.vendorID ?? 0), bits: vendorIDBits)
        writer.append(UInt64(payload.productID ?? 0), bits: productIDBits)
        writer.append(UInt64(payload.commissioningFlow.rawValue), bits: flowBits)
        writer.append(UInt64(payload.discoveryCapabilities?.rawValue ?? 0), bits: capabilitiesBits)
        let discriminator: UInt16
        switch payload.discriminator {
        case .long(let value): discriminator = value
        case .short(let value): discriminator = UInt16(value) << 8
        }
        writer.append(UInt64(discriminator), bits: discriminatorBits)
        writer.append(UInt64(payload.passcode), bits: passcodeBits)
        writer.append(UInt64(payload.padding), bits: paddingBits)
        return writer.bytes + (payload.extensionData?.rawBytes ?? [])
    }

    /// The payload in `bytes`, which must hold at least the fixed part.
    static func unpack(_ bytes: [UInt8]) -> OnboardingPayload? {
        guard bytes.count >= fixedByteCount else { return nil }
        var reader = BitReader(bytes: bytes[0..<fixedByteCount])
        let version = UInt8(truncatingIfNeeded: reader.read(bits: versionBits))
        let vendorID = UInt16(truncatingIfNeeded: reader.read(bits: vendorIDBits))
        let productID = UInt16(truncatingIfNeeded: reader.read(bits: productIDBits))
        let flow = UInt8(truncatingIfNeeded: reader.read(bits: flowBits))
        let capabilities = UInt8(truncatingIfNeeded: reader.read(bits: capabilitiesBits))
        let discriminator = UInt16(truncatingIfNeeded: reader.read(bits: discriminatorBits))
        let passcode = UInt32(truncatingIfNeeded: reader.read(bits: passcodeBits))
        let padding = UInt8(truncatingIfNeeded: reader.read(bits: paddingBits))
        let tail = Array(bytes[fixedByteCount...])
        return OnboardingPayload(
            kind: .qr, version: version, vendorID: vendorID, productID: productID,
            commissioningFlow: CommissioningFlow(rawValue: flow),
            discoveryCapabilities: DiscoveryCapabilities(rawValue: capabilities),
            discriminator: .long(discriminator), passcode: passcode, padding: padding,
            extensionData: tail.isEmpty ? nil : PayloadExtensionData(rawBytes: tail))
    }
}

/// Appends bit fields least-significant bit first into a fixed-size little-endian byte string.
struct BitWriter {
    private(set) var bytes: [UInt8]
    private var bitOffset = 0

    init(byteCount: Int) {
        bytes = [UInt8](repeating: 0, count: byteCount)
    }

    /// Appends the low `bits` bits (at most 64) of `value`; bits past the end of the buffer are dropped.
    mutating func append(_ value: UInt64, bits: Int) {
        var done = 0
        // Whole runs of bits that share a byte are written at once.
        while done < bits {
            let position = bitOffset + done
            guard position / 8 < bytes.count else { break }
            let shift = position % 8
            let count = min(8 - shift, bits - done)
            let run = (value >> UInt64(done)) & ((1 << UInt64(count)) - 1)
            bytes[position / 8] |= UInt8(truncatingIfNeeded: run << UInt64(shift))
            done += count
        }
        bitOffset += bits
    }
}

/// Reads bit fields least-significant bit first from a little-endian byte string of at most 16 bytes (the fixed
/// part is 11), held as two 64-bit words so that each field is a shift and a mask.
struct BitReader {
    /// Bits 0-63 and 64-127 of the string; bits past its end are 0.
    private let low: UInt64
    private let high: UInt64
    private var bitOffset = 0

    init(bytes: ArraySlice<UInt8>) {
        precondition(bytes.count <= 16, "a bit reader holds at most 16 bytes")
        var low: UInt64 = 0
        var high: UInt64 = 0
        for (offset, byte) in bytes.enumerated() {
            if offset < 8 {
                low |= UInt64(byte) << UInt64(8 * offset)
            } else {
                high |= UInt64(byte) << UInt64(8 * (offset - 8))
            }
        }
        self.low = low
        self.high = high
    }

    /// The next `bits` bits (at most 64); bits past the end of the buffer read as 0.
    mutating func read(bits: Int) -> UInt64 {
        let first = bitOffset
        bitOffset += bits
        // Shifts by 64 or more give 0, so a field past the end, or wholly in one word, needs no special case.
        let value =
            first >= 64 ? high >> UInt64(first - 64) : (low >> UInt64(first)) | (high << UInt64(64 - first))
        return bits >= 64 ? value : value & ((1 << UInt64(bits)) - 1)
    }
}
