import Synchronization

/// A source of random 64-bit words: seeded and repeatable for tests and simulations, or from the system.
public protocol RandomSource: Sendable {
    /// The next random word.
    func next() -> UInt64

    /// `count` random lowercase hexadecimal digits. The default draws one word per digit, so a seeded source's
    /// digits stay what they always were; a source may draw fewer words.
    func hexDigits(_ count: Int) -> String
}

extension RandomSource {
    /// A uniformly random value in `0..<upperBound`, without modulo bias.
    /// - Precondition: `upperBound > 0`: an empty range has no value to draw (as for `UInt64.random(in:)`).
    public func uniform(below upperBound: UInt64) -> UInt64 {
        precondition(upperBound > 0, "uniform(below:) needs a positive bound")
        let limit = UInt64.max - (UInt64.max % upperBound + 1) % upperBound
        while true {
            let word = next()
            if word <= limit { return word % upperBound }
        }
    }

    /// A uniformly random fraction in `0..<1`.
    public func fraction() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53)
    }

    /// `count` random lowercase hexadecimal digits, one word drawn per digit.
    public func hexDigits(_ count: Int) -> String {
        String(decoding: (0..<max(count, 0)).map { _ in lowercaseHexDigits[Int(uniform(below: 16))] }, as: UTF8.self)
    }
}

/// The sixteen digits ``RandomSource/hexDigits(_:)`` draws from, as UTF-8.
private let lowercaseHexDigits = Array("0123456789abcdef".utf8)

/// A repeatable generator (SplitMix64): the same seed gives the same sequence on every machine.
public final class SeededRandomSource: RandomSource {
    private let state: Mutex<UInt64>

    /// A generator whose sequence `seed` fixes.
    public init(seed: UInt64) {
        state = Mutex(seed)
    }

    /// The next word of the SplitMix64 sequence.
    public func next() -> UInt64 {
        state.withLock { state in
            state &+= 0x9E37_79B9_7F4A_7C15
            var mixed = state
            mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
            return mixed ^ (mixed >> 31)
        }
    }
}

/// The system's cryptographically secure generator.
public struct SystemRandomSource: RandomSource {
    /// The system's generator; it takes no seed.
    public init() {}

    /// A word from `SystemRandomNumberGenerator`.
    public func next() -> UInt64 {
        var generator = SystemRandomNumberGenerator()
        return generator.next()
    }

    /// `count` random lowercase hexadecimal digits, sixteen from each word: each word costs the kernel a call, and a
    /// run's digest salt alone has 32 digits.
    public func hexDigits(_ count: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        var digits: [UInt8] = []
        digits.reserveCapacity(count)
        var word: UInt64 = 0
        for index in 0..<max(count, 0) {
            if index % 16 == 0 { word = generator.next() }
            digits.append(lowercaseHexDigits[Int(word & 0xF)])
            word >>= 4
        }
        return String(decoding: digits, as: UTF8.self)
    }
}
