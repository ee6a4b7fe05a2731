/// Identifiers the simulated hub issues (sessions, requests, devices): a hash of the home's seed and a counter, so
/// the same seed gives the same identifiers on every machine, and a persisted counter keeps them unique.
enum StableIdentifiers {
    /// `prefix-` followed by 12 lower-case hexadecimal digits derived from `seed` and `counter`.
    static func make(prefix: String, seed: UInt64, counter: Int) -> String {
        let word = mix(seed ^ mix(UInt64(bitPattern: Int64(counter)) &+ 0x9E37_79B9_7F4A_7C15))
        let digits = String(word & 0xFFFF_FFFF_FFFF, radix: 16)
        return prefix + "-" + String(repeating: "0", count: 12 - digits.count) + digits
    }

    /// The SplitMix64 finaliser: a bijective, well-mixing function of a 64-bit word.
    static func mix(_ value: UInt64) -> UInt64 {
        var mixed = value &+ 0x9E37_79B9_7F4A_7C15
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
