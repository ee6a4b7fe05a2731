/// A set of TLV types, one bit per type number, so that checking a dataset for duplicate types neither hashes
/// nor allocates.
struct DatasetTLVTypeSet {
    /// Bit `n` stands for type `n`, for types 0 to 127.
    private var low: UInt128 = 0
    /// Bit `n` stands for type `n + 128`.
    private var high: UInt128 = 0

    /// Whether `type` is in the set.
    func contains(_ type: DatasetTLVType) -> Bool {
        let (word, bit) = Self.location(of: type)
        return (word == 0 ? low : high) & bit != 0
    }

    /// Adds `type`.
    mutating func insert(_ type: DatasetTLVType) {
        let (word, bit) = Self.location(of: type)
        if word == 0 { low |= bit } else { high |= bit }
    }

    private static func location(of type: DatasetTLVType) -> (word: Int, bit: UInt128) {
        (Int(type.rawValue) / 128, 1 << UInt128(type.rawValue % 128))
    }
}
