import TestGates
import Testing
import ThreadTestVectors

@testable import ThreadDataset

/// Random but valid TLVs, from a seeded generator so every run sees the same datasets.
struct DatasetFactory {
    var generator: SeededGenerator

    /// Characters of 1 to 4 UTF-8 bytes for network names.
    private static let nameCharacters: [Character] = Array("aZ09-_ ~éßЖ€中🐣🐥")

    /// A valid value for a dataset type.
    mutating func value(for type: DatasetTLVType) -> [UInt8] {
        switch type {
        case .activeTimestamp, .pendingTimestamp: return generator.bytes(count: 8)
        case .delayTimer: return generator.bytes(count: 4)
        case .channel, .wakeupChannel: return [0, 0, UInt8.random(in: 11...26, using: &generator)]
        case .channelMask: return channelMask()
        case .panID: return generator.bytes(count: 2)
        case .extendedPANID, .meshLocalPrefix: return generator.bytes(count: 8)
        case .networkKey, .pskc: return generator.bytes(count: 16)
        case .networkName: return networkName()
        case .securityPolicy: return generator.bytes(count: Int.random(in: 3...4, using: &generator))
        default: return generator.bytes(count: Int.random(in: 0...12, using: &generator))
        }
    }

    private mutating func channelMask() -> [UInt8] {
        var value: [UInt8] = []
        if Bool.random(using: &generator) {
            value += [0, 4] + generator.bytes(count: 4)
        }
        for _ in 0..<Int.random(in: value.isEmpty ? 1...2 : 0...2, using: &generator) {
            let length = Int.random(in: 0...6, using: &generator)
            value += [UInt8.random(in: 1...255, using: &generator), UInt8(length)] + generator.bytes(count: length)
        }
        return value
    }

    private mutating func networkName() -> [UInt8] {
        var name: [UInt8] = []
        for _ in 0..<Int.random(in: 1...16, using: &generator) {
            let character = Self.nameCharacters.randomElement(using: &generator) ?? "a"
            let encoded = Array(String(character).utf8)
            if name.count + encoded.count > NetworkName.maxByteCount { break }
            name += encoded
        }
        return name.isEmpty ? [0x41] : name
    }

    /// A random well-formed dataset: some dataset types and some unknown types, in random order, within
    /// 254 bytes. Returns the TLVs in wire order.
    mutating func tlvs() -> [(type: DatasetTLVType, value: [UInt8])] {
        var types = DatasetTLVType.datasetTypes.filter { _ in Int.random(in: 0..<10, using: &generator) < 7 }
        for _ in 0..<Int.random(in: 0...3, using: &generator) {
            let unknown = DatasetTLVType(UInt8.random(in: 0...255, using: &generator))
            if !unknown.isDatasetType, !types.contains(unknown) {
                types.append(unknown)
            }
        }
        types.shuffle(using: &generator)
        var result: [(type: DatasetTLVType, value: [UInt8])] = []
        var length = 0
        for type in types {
            let value = value(for: type)
            if length + 2 + value.count > OperationalDataset.maxLength { continue }
            length += 2 + value.count
            result.append((type, value))
        }
        return result
    }
}

/// Checks that parsing `input` either fails with a listed error that the diagnosis reports first, or succeeds
/// and re-encodes to the same bytes.
func checkParseIsTotal(_ input: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
    let diagnosis = OperationalDataset.diagnose(tlvs: input)
    do {
        let dataset = try OperationalDataset(tlvs: input)
        #expect(dataset.encode() == input, sourceLocation: sourceLocation)
        #expect(diagnosis.dataset == dataset, sourceLocation: sourceLocation)
        _ = dataset.summary(revealingSecrets: true)
        _ = dataset.validate(for: .pending)
    } catch {
        #expect(ThreadDatasetError.Code.all.contains(error.code), sourceLocation: sourceLocation)
        #expect(diagnosis.parseErrors.first == error, "input \(hex(input))", sourceLocation: sourceLocation)
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        if let offset = error.offset {
            #expect((0...max(input.count, OperationalDataset.maxLength)).contains(offset),
                    sourceLocation: sourceLocation)
        }
    }
}

@Suite("Round trips and robustness")
struct RoundTripTests {
    @Test("Generated datasets round-trip exactly through bytes and hex", arguments: [1, 2, 3, 0xDEAD_BEEF] as [UInt64])
    func generatedRoundTrip(seed: UInt64) throws {
        var factory = DatasetFactory(generator: SeededGenerator(seed: seed))
        for _ in 0..<250 {
            let tlvs = factory.tlvs()
            let input = tlvs.flatMap { [$0.type.rawValue, UInt8($0.value.count)] + $0.value }
            let dataset = try OperationalDataset(tlvs: input)
            #expect(dataset.encode() == input)
            #expect(dataset.presentTypes == tlvs.map(\.type))
            for (type, value) in tlvs {
                #expect(dataset.tlv(for: type)?.value == value)
            }
            let upper = hex(input).uppercased()
            let fromHex = try OperationalDataset(hex: upper)
            #expect(fromHex == dataset)
            #expect(fromHex.hexString == hex(input))
            let required = DatasetRequirement.active.requiredTypes
            #expect(dataset.validate().missing == required.filter { !tlvs.map(\.type).contains($0) })
        }
    }

    @Test("Equality ignores order; a shuffled dataset is equal and encodes in its own order")
    func shuffledEquality() throws {
        var factory = DatasetFactory(generator: SeededGenerator(seed: 42))
        var generator = SeededGenerator(seed: 43)
        for _ in 0..<100 {
            let tlvs = factory.tlvs()
            let shuffled = tlvs.shuffled(using: &generator)
            let first = try OperationalDataset(
                tlvs: tlvs.flatMap { [$0.type.rawValue, UInt8($0.value.count)] + $0.value })
            let second = try OperationalDataset(
                tlvs: shuffled.flatMap { [$0.type.rawValue, UInt8($0.value.count)] + $0.value })
            #expect(first == second)
            #expect(first.hashValue == second.hashValue)
            #expect(second.presentTypes == shuffled.map(\.type))
        }
    }

    @Test("Random bytes never crash the parser", arguments: [7, 8, 9] as [UInt64])
    func randomBytes(seed: UInt64) {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<1500 {
            let count = Int.random(in: 0...300, using: &generator)
            checkParseIsTotal(generator.bytes(count: count))
        }
    }

    @Test("Mutated published datasets never crash the parser")
    func mutatedDatasets() {
        var generator = SeededGenerator(seed: 2024)
        let vectors = PublishedVectors.wellFormed.map(bytes)
        for _ in 0..<3000 {
            var input = vectors.randomElement(using: &generator) ?? []
            for _ in 0..<Int.random(in: 1...3, using: &generator) where !input.isEmpty {
                let index = Int.random(in: 0..<input.count, using: &generator)
                switch Int.random(in: 0..<5, using: &generator) {
                case 0: input[index] = UInt8.random(in: 0...255, using: &generator)
                case 1: input.removeSubrange(index...)
                case 2: input.insert(UInt8.random(in: 0...255, using: &generator), at: index)
                case 3: input.remove(at: index)
                default: input[index] ^= 1 << UInt8.random(in: 0...7, using: &generator)
                }
            }
            checkParseIsTotal(input)
        }
    }

    @Test("Random hex text never crashes the decoder")
    func randomHex() {
        var generator = SeededGenerator(seed: 99)
        let alphabet = Array("0123456789abcdefABCDEF0e0803ff \n\tgxé")
        for _ in 0..<1500 {
            let count = Int.random(in: 0...80, using: &generator)
            let text = String((0..<count).map { _ in alphabet.randomElement(using: &generator) ?? "0" })
            do {
                let dataset = try OperationalDataset(hex: text)
                #expect(try OperationalDataset(hex: dataset.hexString) == dataset)
            } catch {
                #expect(ThreadDatasetError.Code.all.contains(error.code))
                #expect(OperationalDataset.diagnose(hex: text).parseErrors.first == error)
            }
        }
    }
}
