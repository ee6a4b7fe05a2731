/// A set of pairs of ASCII bytes (each below 0x80), exact: for each first byte that begins a pair, a row of 128 bits
/// for the second. Redaction keeps the first two bytes of every secret's forms in one, per run; a run's forms begin
/// with few distinct bytes, so the set takes a few hundred bytes where a bit for every pair would take 2 KiB.
struct AsciiPairSet: Sendable {
    /// For each first byte, its row's number plus one; 0 when no pair begins with it.
    private var rowOfFirst = [UInt8](repeating: 0, count: 128)
    /// Two words (128 bits) per row, a bit for each second byte.
    private var rows: [UInt64] = []

    /// Adds a pair; both bytes must be ASCII.
    mutating func insert(_ first: UInt8, _ second: UInt8) {
        precondition(first < 0x80 && second < 0x80, "an ASCII pair")
        var row = Int(rowOfFirst[Int(first)])
        if row == 0 {
            rows += [0, 0]
            row = rows.count / 2
            // At most 128 rows, one per first byte: the number fits.
            rowOfFirst[Int(first)] = UInt8(row)
        }
        rows[(row - 1) * 2 + Int(second >> 6)] |= 1 << UInt64(second & 63)
    }

    /// Whether the pair is in the set; both bytes must be ASCII.
    func contains(_ first: UInt8, _ second: UInt8) -> Bool {
        let row = Int(rowOfFirst[Int(first)])
        guard row != 0 else { return false }
        return rows[(row - 1) * 2 + Int(second >> 6)] & (1 << UInt64(second & 63)) != 0
    }
}
