/// Everything known about some dataset bytes: whether they parse, every parse error, and the validation of
/// what parsed. Made for tools that print every problem at once, such as `matterflow dataset`.
public struct DatasetDiagnosis: Hashable, Sendable {
    /// The dataset, when the bytes are well formed.
    public let dataset: OperationalDataset?
    /// Every parse error found. Framing errors (truncation, extended length) end the walk, so errors after one
    /// of them cannot be known; errors inside single TLVs are all listed.
    public let parseErrors: [ThreadDatasetError]
    /// The validation of the dataset, when it is well formed.
    public let validation: DatasetValidation?

    /// Whether the bytes parse without error.
    public var isWellFormed: Bool {
        parseErrors.isEmpty
    }

    /// Whether the bytes parse and the dataset meets the requirement.
    public var isComplete: Bool {
        isWellFormed && validation?.isComplete == true
    }

    /// One line per problem: parse errors first, then validation issues (errors and warnings).
    public var messages: [String] {
        parseErrors.map(\.description) + (validation?.messages ?? [])
    }
}

extension OperationalDataset {
    /// Parses TLV bytes and validates the result, collecting every problem instead of stopping at the first.
    ///
    /// Two limits keep a diagnosis from showing what it must not: the walk stops at a TLV whose length is off for
    /// its type (later "headers" could be bytes of the Network Key), and after 16 problems (bytes that are no
    /// dataset at all).
    ///
    /// - Parameters:
    ///   - bytes: The TLVs.
    ///   - requirement: What a complete dataset must contain; ``DatasetRequirement/active`` by default.
    /// - Returns: The diagnosis.
    public static func diagnose(
        tlvs bytes: [UInt8],
        requirement: DatasetRequirement = .active
    ) -> DatasetDiagnosis {
        let (dataset, errors) = parse(bytes, stopAtFirstError: false)
        guard errors.isEmpty else {
            return DatasetDiagnosis(dataset: nil, parseErrors: errors, validation: nil)
        }
        return DatasetDiagnosis(dataset: dataset, parseErrors: [], validation: dataset.validate(for: requirement))
    }

    /// Decodes hex text, parses and validates, collecting every problem.
    ///
    /// - Parameters:
    ///   - hex: The TLVs as hex.
    ///   - requirement: What a complete dataset must contain; ``DatasetRequirement/active`` by default.
    /// - Returns: The diagnosis; a hex error is its only parse error.
    public static func diagnose(hex: String, requirement: DatasetRequirement = .active) -> DatasetDiagnosis {
        do throws(ThreadDatasetError) {
            // No length limit here, so that an over-long dataset is still walked and all its problems listed.
            return diagnose(tlvs: try Hex.decode(hex), requirement: requirement)
        } catch {
            return DatasetDiagnosis(dataset: nil, parseErrors: [error], validation: nil)
        }
    }
}
