import CSHA256

/// SHA-256 (FIPS 180-4), for ``NetworkKey/sha256Hex`` and, in MatterFlow, workflow content hashes and the journal's
/// stretched secret digests (a thousand hashes per run). Small inputs; not a streaming hasher.
///
/// A digest allocates nothing on the heap: the hash state is eight local words, the message schedule and the
/// padded tail live in temporary stack buffers, whole blocks are read where they are, and
/// ``digest(bytes:into:)`` writes the result to the caller's buffer. On an x86 processor with the SHA extensions
/// the blocks are compressed by its SHA instructions (`CSHA256`), about five times faster; elsewhere by the portable
/// implementation below. Both compute the same digest.
public enum SHA256 {
    /// How blocks are compressed.
    enum Compression: Sendable {
        /// The portable implementation in Swift.
        case portable
        /// The processor's SHA instructions (x86 SHA extensions); only where ``processorCompression`` is true.
        case processor
    }

    /// Whether this processor has the SHA instructions the ``Compression/processor`` compression uses; asked once.
    static let processorCompression = matterflow_sha256_extensions_available() != 0

    private static let roundConstants: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    /// The number of bytes of a digest.
    public static let byteCount = 32

    /// The digest of `message` as 64 lowercase hex digits.
    public static func hexDigest(_ message: [UInt8]) -> String {
        Hex.encode(digest(message))
    }

    /// The digest of the bytes in `message` as 64 lowercase hex digits.
    public static func hexDigest(bytes message: UnsafeRawBufferPointer) -> String {
        Hex.encode(digest(bytes: message))
    }

    /// The 32-byte digest of `message`.
    public static func digest(_ message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { digest(bytes: $0) }
    }

    /// The 32-byte digest of the bytes in `message`.
    public static func digest(bytes message: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, initialized in
            digest(bytes: message, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = byteCount
        }
    }

    /// Writes the 32-byte digest of the bytes in `message` to the first 32 bytes of `output`, which must have room
    /// for them. `output` may overlap `message`: the message is read whole before the digest is written.
    public static func digest(bytes message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        digest(bytes: message, into: output, compression: processorCompression ? .processor : .portable)
    }

    /// ``digest(bytes:into:)`` with the given compression (``Compression/processor`` only where
    /// ``processorCompression`` is true).
    static func digest(bytes message: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer, compression: Compression) {
        precondition(output.count >= byteCount, "SHA-256 needs 32 bytes for its digest, given \(output.count)")
        var state = State()
        let fullBlocks = message.count / 64
        roundConstants.withUnsafeBufferPointer { constants in
            withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { schedule in
                if let base = message.baseAddress, fullBlocks > 0 {
                    state.compress(base, blocks: fullBlocks, compression: compression, schedule: schedule, constants: constants)
                }
                // The rest of the message, the 0x80 marker, zeros, and the length in bits: one or two blocks.
                let rest = message.count - fullBlocks * 64
                let tailLength = rest < 56 ? 64 : 128
                withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { tail in
                    tail.initializeMemory(as: UInt8.self, repeating: 0)
                    if rest > 0, let base = message.baseAddress {
                        tail.baseAddress!.copyMemory(from: base + fullBlocks * 64, byteCount: rest)
                    }
                    tail[rest] = 0x80
                    let bits = UInt64(message.count) &* 8
                    for index in 0..<8 {
                        tail[tailLength - 1 - index] = UInt8(truncatingIfNeeded: bits &>> UInt64(8 * index))
                    }
                    state.compress(
                        UnsafeRawPointer(tail.baseAddress!), blocks: tailLength / 64, compression: compression, schedule: schedule,
                        constants: constants)
                }
            }
        }
        state.write(to: output)
    }

    /// The eight words of the hash, from FIPS 180-4's initial value.
    private struct State {
        var h0: UInt32 = 0x6a09_e667, h1: UInt32 = 0xbb67_ae85, h2: UInt32 = 0x3c6e_f372, h3: UInt32 = 0xa54f_f53a
        var h4: UInt32 = 0x510e_527f, h5: UInt32 = 0x9b05_688c, h6: UInt32 = 0x1f83_d9ab, h7: UInt32 = 0x5be0_cd19

        /// Folds the `blocks` 64-byte blocks at `start` into the hash.
        mutating func compress(
            _ start: UnsafeRawPointer, blocks: Int, compression: Compression, schedule: UnsafeMutableBufferPointer<UInt32>,
            constants: UnsafeBufferPointer<UInt32>
        ) {
            switch compression {
            case .portable:
                for block in 0..<blocks { compress(start + block &* 64, schedule: schedule, constants: constants) }
            case .processor:
                var words = (h0, h1, h2, h3, h4, h5, h6, h7)
                withUnsafeMutableBytes(of: &words) { words in
                    matterflow_sha256_compress(
                        words.baseAddress!.assumingMemoryBound(to: UInt32.self), start.assumingMemoryBound(to: UInt8.self), blocks,
                        constants.baseAddress!)
                }
                (h0, h1, h2, h3, h4, h5, h6, h7) = words
            }
        }

        /// Folds the 64-byte block at `block` into the hash.
        private mutating func compress(
            _ block: UnsafeRawPointer, schedule: UnsafeMutableBufferPointer<UInt32>, constants: UnsafeBufferPointer<UInt32>
        ) {
            let w = schedule.baseAddress!
            let k = constants.baseAddress!
            for index in 0..<16 {
                w[index] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: index &* 4, as: UInt32.self))
            }
            for index in 16..<64 {
                let x = w[index &- 15]
                let y = w[index &- 2]
                let s0 = x.rotatedRight(7) ^ x.rotatedRight(18) ^ (x &>> 3)
                let s1 = y.rotatedRight(17) ^ y.rotatedRight(19) ^ (y &>> 10)
                w[index] = w[index &- 16] &+ s0 &+ w[index &- 7] &+ s1
            }
            var (a, b, c, d, e, f, g, h) = (h0, h1, h2, h3, h4, h5, h6, h7)
            // Eight rounds per pass, each naming the working variables in the order the previous one left them, so
            // no variable is copied between rounds.
            var index = 0
            while index < 64 {
                Self.round(a, b, c, &d, e, f, g, &h, k[index] &+ w[index])
                Self.round(h, a, b, &c, d, e, f, &g, k[index &+ 1] &+ w[index &+ 1])
                Self.round(g, h, a, &b, c, d, e, &f, k[index &+ 2] &+ w[index &+ 2])
                Self.round(f, g, h, &a, b, c, d, &e, k[index &+ 3] &+ w[index &+ 3])
                Self.round(e, f, g, &h, a, b, c, &d, k[index &+ 4] &+ w[index &+ 4])
                Self.round(d, e, f, &g, h, a, b, &c, k[index &+ 5] &+ w[index &+ 5])
                Self.round(c, d, e, &f, g, h, a, &b, k[index &+ 6] &+ w[index &+ 6])
                Self.round(b, c, d, &e, f, g, h, &a, k[index &+ 7] &+ w[index &+ 7])
                index &+= 8
            }
            h0 &+= a
            h1 &+= b
            h2 &+= c
            h3 &+= d
            h4 &+= e
            h5 &+= f
            h6 &+= g
            h7 &+= h
        }

        /// One round of FIPS 180-4's compression, given the round's constant plus schedule word: `d` becomes the
        /// next `e` and `h` the next `a`; the caller names the variables one place further round for the next round.
        private static func round(
            _ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32, _ e: UInt32, _ f: UInt32, _ g: UInt32,
            _ h: inout UInt32, _ constantAndWord: UInt32
        ) {
            let sum1 = e.rotatedRight(6) ^ e.rotatedRight(11) ^ e.rotatedRight(25)
            let choice = g ^ (e & (f ^ g))
            let temp1 = h &+ sum1 &+ choice &+ constantAndWord
            let sum0 = a.rotatedRight(2) ^ a.rotatedRight(13) ^ a.rotatedRight(22)
            let majority = (a & b) | (c & (a | b))
            d &+= temp1
            h = temp1 &+ sum0 &+ majority
        }

        /// The digest: the words, big-endian, in the first 32 bytes of `output`.
        func write(to output: UnsafeMutableRawBufferPointer) {
            output.storeBytes(of: h0.bigEndian, toByteOffset: 0, as: UInt32.self)
            output.storeBytes(of: h1.bigEndian, toByteOffset: 4, as: UInt32.self)
            output.storeBytes(of: h2.bigEndian, toByteOffset: 8, as: UInt32.self)
            output.storeBytes(of: h3.bigEndian, toByteOffset: 12, as: UInt32.self)
            output.storeBytes(of: h4.bigEndian, toByteOffset: 16, as: UInt32.self)
            output.storeBytes(of: h5.bigEndian, toByteOffset: 20, as: UInt32.self)
            output.storeBytes(of: h6.bigEndian, toByteOffset: 24, as: UInt32.self)
            output.storeBytes(of: h7.bigEndian, toByteOffset: 28, as: UInt32.self)
        }
    }
}

extension UInt32 {
    /// The bits rotated right by `count` (1...31).
    fileprivate func rotatedRight(_ count: UInt32) -> UInt32 {
        (self &>> count) | (self &<< (32 &- count))
    }
}
