import ThreadDataset

/// Thread Operational Datasets, as TLV bytes and as hex text: decoded, validated, listed and encoded again.
enum DatasetFuzz {
    static func run(_ bytes: [UInt8]) {
        if let dataset = try? OperationalDataset(tlvs: bytes) {
            exercise(dataset)
        }
        if let dataset = try? OperationalDataset(hex: String(decoding: bytes, as: UTF8.self)) {
            exercise(dataset)
        }
    }

    static func exercise(_ dataset: OperationalDataset) {
        _ = dataset.validate()
        _ = dataset.summaryLines(revealingSecrets: true)
        _ = dataset.redactedDescription
        _ = try? OperationalDataset(tlvs: dataset.encode())
    }
}
