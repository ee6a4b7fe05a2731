import TestGates
import Testing

@testable import ThreadDataset

/// Decodes hex written in a test, independently of the module's own decoder. Traps on a typo in a test
/// fixture, which is a bug in the test rather than in the code under test.
func bytes(_ hex: String) -> [UInt8] {
    let digits = Array(hex.utf8)
    precondition(digits.count.isMultiple(of: 2), "odd hex fixture: \(hex)")
    func nibble(_ digit: UInt8) -> UInt8 {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: preconditionFailure("bad hex fixture: \(hex)")
        }
    }
    return stride(from: 0, to: digits.count, by: 2).map { nibble(digits[$0]) << 4 | nibble(digits[$0 + 1]) }
}

/// Lowercase hex of bytes, independently of the module's own encoder.
func hex(_ bytes: [UInt8]) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

extension SeededGenerator {
    /// `count` random bytes.
    mutating func bytes(count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &self) }
    }
}

/// Runs `body` and returns the ``ThreadDatasetError`` it throws, recording an issue when it throws nothing or
/// something else.
func datasetError(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> ThreadDatasetError? {
    do {
        try body()
        Issue.record("expected a ThreadDatasetError, but nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as ThreadDatasetError {
        return error
    } catch {
        Issue.record("expected a ThreadDatasetError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
