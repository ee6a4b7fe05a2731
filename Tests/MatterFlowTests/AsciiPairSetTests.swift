@testable import MatterFlow
import Testing

/// The set redaction keeps the first two bytes of secrets' forms in: exactly the pairs put in, whatever their order.
@Suite struct AsciiPairSetTests {
    @Test("holds exactly the pairs inserted, across first bytes and both words of a row")
    func exact() {
        let random = SeededRandomSource(seed: 0x5EC7)
        var set = AsciiPairSet()
        var inserted: Set<[UInt8]> = []
        for _ in 0..<300 {
            let pair = [UInt8(random.uniform(below: 0x80)), UInt8(random.uniform(below: 0x80))]
            set.insert(pair[0], pair[1])
            inserted.insert(pair)
        }
        for first in UInt8(0)..<0x80 {
            for second in UInt8(0)..<0x80 {
                #expect(set.contains(first, second) == inserted.contains([first, second]), "\(first) \(second)")
            }
        }
    }

    @Test("an empty set holds nothing, and the edges of the byte range are pairs like any other")
    func edges() {
        var set = AsciiPairSet()
        #expect(!set.contains(0, 0) && !set.contains(0x7F, 0x7F))
        set.insert(0x7F, 0)
        set.insert(0, 0x7F)
        set.insert(0x30, 63)
        set.insert(0x30, 64)
        #expect(set.contains(0x7F, 0) && set.contains(0, 0x7F) && set.contains(0x30, 63) && set.contains(0x30, 64))
        #expect(!set.contains(0, 0) && !set.contains(0x7F, 0x7F) && !set.contains(0x30, 65) && !set.contains(0x31, 63))
    }
}
