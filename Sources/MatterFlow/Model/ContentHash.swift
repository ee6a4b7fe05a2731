import ThreadDataset

/// SHA-256 of bytes, as lowercase hex: the content hash of workflow files (``Workflow/contentHash``), so a journal
/// can tell whether the workflow a run started with is still the one on disk.
public enum ContentHash {
    /// The SHA-256 digest of `bytes` as 64 lowercase hexadecimal digits.
    public static func sha256<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> String {
        SHA256.hexDigest(Array(bytes))
    }

    /// The SHA-256 digest of a string's UTF-8 bytes.
    public static func sha256(_ text: String) -> String {
        var text = text
        return text.withUTF8 { SHA256.hexDigest(bytes: UnsafeRawBufferPointer($0)) }
    }
}
