import Synchronization
import ThreadDataset

/// SHA-256 of bytes, as lowercase hex: the content hash of workflow files (``Workflow/contentHash``), so a journal
/// can tell whether the workflow a run started with is still the one on disk.
public enum ContentHash {
    /// The SHA-256 digest of `bytes` as 64 lowercase hexadecimal digits.
    public static func sha256<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        if let digest = bytes.withContiguousStorageIfAvailable({ hexString(UnsafeRawBufferPointer($0)) }) { return digest }
        return Array(bytes).withUnsafeBytes(hexString)
    }

    /// The SHA-256 digest of a string's UTF-8 bytes.
    public static func sha256(_ text: String) -> String {
        var text = text
        return text.withUTF8 { hexString(UnsafeRawBufferPointer($0)) }
    }

    /// The digest as a string, written by ``sha256Hex(of:into:)``: the one hex encoder of content hashes.
    private static func hexString(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: 64) { buffer in
            sha256Hex(of: bytes, into: UnsafeMutableRawBufferPointer(buffer))
            return 64
        }
    }

    /// The SHA-256 digest of `bytes` as 64 lowercase hexadecimal digits in ASCII bytes: what `sha256(_:)`
    /// returns, without making a string, for digests that are hashed again.
    public static func sha256HexBytes(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 64) { buffer, initialized in
            sha256Hex(of: bytes, into: UnsafeMutableRawBufferPointer(buffer))
            initialized = 64
        }
    }

    /// Writes the SHA-256 digest of `bytes` as 64 lowercase hexadecimal digits in ASCII bytes to the first 64
    /// bytes of `output`, which must have room for them; allocates nothing. `output` may overlap `bytes` (a digest
    /// hashed again in place): the input is read whole before the digits are written.
    public static func sha256Hex(of bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) {
        precondition(output.count >= 64, "a hex SHA-256 digest needs 64 bytes, given \(output.count)")
        withUnsafeTemporaryAllocation(byteCount: SHA256.byteCount, alignment: 4) { digest in
            SHA256.digest(bytes: bytes, into: digest)
            for index in 0..<SHA256.byteCount {
                let byte = digest[index]
                output[2 &* index] = hexDigit(byte &>> 4)
                output[2 &* index &+ 1] = hexDigit(byte & 0x0F)
            }
        }
    }

    /// The lowercase hex digit of a nibble, in ASCII.
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? 0x30 &+ nibble : 0x57 &+ nibble
    }
}

/// What a loaded workflow's content hash is made of, hashed when the hash is first read (by a journal, when a run
/// starts): a load that only validates, or whose workflow never runs journaled, does not hash its files.
///
/// The hash is that of the workflow's text followed, for each sub-workflow in the order of its path, by a line
/// `path=hash` with the sub-workflow's own hash. The texts are those the load read (the load cache keeps them
/// too), so the hash is the loaded workflow's even when a file has changed on disk since the load. Journals keep the
/// hash and recovery refuses to resume a run whose workflow hashes differently, so the recipe must not change:
/// `ContentHashTests` pins it.
final class ContentHashSource: Sendable {
    private enum Content: Sendable {
        case fixed(String)
        case text(String, children: [(path: String, source: ContentHashSource?)])
    }

    private let content: Content
    private let computed = Mutex<String?>(nil)

    /// A hash given as it is (set in code).
    init(fixed hash: String) {
        content = .fixed(hash)
    }

    /// The hash of `text` and of sub-workflows, given sorted by path with their own sources (nil: an empty hash).
    init(text: String, children: [(path: String, source: ContentHashSource?)]) {
        content = .text(text, children: children)
    }

    /// The hash, computed on first use.
    var hash: String {
        switch content {
        case .fixed(let hash):
            return hash
        case .text(let text, let children):
            if let known = computed.withLock({ $0 }) { return known }
            let lines = children.map { "\n\($0.path)=\($0.source?.hash ?? "")" }
            let hash = ContentHash.sha256(ContentHash.sha256(text) + lines.joined())
            computed.withLock { $0 = hash }
            return hash
        }
    }
}
