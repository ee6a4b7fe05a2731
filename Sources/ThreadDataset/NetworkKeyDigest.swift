extension NetworkKey {
    /// The SHA-256 digest of the key's 16 bytes, as 64 lowercase hex digits.
    ///
    /// A one-way fingerprint: it tells whether two datasets carry the same Network Key (the "same network" test)
    /// without keeping the key, and the key cannot be recovered from it. Stores that must remember a network
    /// without holding its secrets keep this instead of the key.
    public var sha256Hex: String {
        Hex.encode(SHA256.digest(revealedBytes))
    }
}
