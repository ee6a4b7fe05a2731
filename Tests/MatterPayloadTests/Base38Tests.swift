import MatterPayload
import TestGates
import Testing

@Suite("Base-38")
struct Base38Tests {
    /// Vectors from connectedhomeip `TestQRCode.cpp`.
    static let vectors: [([UInt8], String)] = [
        ([10], "A0"), ([10, 10], "OT10"), ([10, 10, 10], "-N.B0"), ([10, 10, 0], "OT100"), ([10, 10, 40], "Y6V91"),
        ([10, 10, 41], "KL0B1"), ([10, 10, 255], "Q-M08"), ([35], "Z0"), ([255, 0], "R600"), ([46, 0, 0], "81000"),
        ([255], "R6"), ([255, 255], "NE71"), ([255, 255, 255], "PLS18"),
        (Array("Hello World!".utf8), "KKHF3W2S013OPM3EJX11"), ([], ""),
    ]

    @Test("encodes and decodes the reference vectors", arguments: vectors)
    func referenceVectors(_ data: [UInt8], _ text: String) throws {
        #expect(Base38.encode(data) == text)
        #expect(try Base38.decode(text) == data)
    }

    @Test("non-canonical but in-range chunks decode", arguments: [("S600", [0, 1] as [UInt8]), ("OE710", [0, 0, 1])])
    func inRangeChunks(_ text: String, _ data: [UInt8]) throws {
        #expect(try Base38.decode(text) == data)
    }

    @Test("chunks that overflow their bytes are rejected", arguments: ["S6", "OE71", "QLS18", "0000."])
    func overflow(_ text: String) throws {
        let error = try #require(throws: PayloadError.self) { try Base38.decode(text) }
        #expect(error.code == .base38ChunkOverflow)
        #expect(error.position == 0)
    }

    @Test("overflow in a later chunk points at that chunk")
    func overflowInLaterChunk() throws {
        let error = try #require(throws: PayloadError.self) { try Base38.decode("00000QLS18") }
        #expect(error.code == .base38ChunkOverflow)
        #expect(error.position == 5)
    }

    @Test("characters outside the alphabet are reported at their index", arguments: [
        ("[0", 0), ("0[", 1), (" 0", 0), ("!0", 0), ("@0", 0), ("a0", 0), ("OT1é", 3), ("-N.B:", 4), ("A0\u{1F600}", 2),
    ])
    func badCharacters(_ text: String, _ index: Int) throws {
        let error = try #require(throws: PayloadError.self) { try Base38.decode(text) }
        #expect(error.code == .invalidBase38Character)
        #expect(error.position == index)
        #expect(error.message.contains("at character \(index + 1) "), "\(error.message)")
    }

    @Test("lengths of 5k+1 and 5k+3 are rejected", arguments: ["0", "000", "000000", "00000000"])
    func badLengths(_ text: String) throws {
        let error = try #require(throws: PayloadError.self) { try Base38.decode(text) }
        #expect(error.code == .invalidBase38Length)
    }

    @Test("the SetUpCodePairer vector decodes to the expected bytes")
    func setUpCodePairerVector() throws {
        #expect(try Base38.decode("M5L90MP500K64J00000") == bytes(hex: "6000080020001000100000"))
    }

    @Test("random bytes round-trip (seeded)")
    func randomRoundTrip() throws {
        var generator = SeededGenerator(seed: 0xBA5E_0038)
        for _ in 0..<500 {
            let data = (0..<Int.random(in: 0..<64, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            let text = Base38.encode(data)
            #expect(text.count % 5 != 1 && text.count % 5 != 3)
            #expect(text.allSatisfy { Base38.alphabet.contains($0) })
            #expect(try Base38.decode(text) == data)
        }
    }
}
