import Testing
import ThreadTestVectors

@testable import ThreadDataset

@Suite("Secrets stay redacted")
struct RedactionTests {
    /// Every way a dataset commonly turns into text without asking for secrets.
    private func renderings(of dataset: OperationalDataset) -> [String] {
        var dumped = ""
        dump(dataset, to: &dumped)
        return [
            dataset.description, dataset.debugDescription, dataset.redactedDescription, "\(dataset)",
            String(describing: dataset), String(reflecting: dataset), dumped, dataset.summary(),
            dataset.summaryLines().joined(), dataset.tlvs.map(\.description).joined(),
            "\(dataset.networkKey as Any) \(dataset.pskc as Any)", String(reflecting: dataset.networkKey),
            String(reflecting: dataset.pskc), dataset.networkInfo?.description ?? "",
            dataset.validate().messages.joined(),
        ]
    }

    @Test("No rendering shows the Network Key or the PSKc", arguments: PublishedVectors.wellFormed)
    func noLeaks(hexText: String) throws {
        let dataset = try OperationalDataset(hex: hexText)
        let secrets = [dataset.networkKey?.revealedHex, dataset.pskc?.revealedHex].compactMap { $0 }
        for text in renderings(of: dataset) {
            for secret in secrets {
                #expect(!text.lowercased().contains(secret), "leaked in: \(text)")
            }
        }
    }

    @Test("Redacted summaries mark the secrets, and revealing them is explicit")
    func explicitReveal() throws {
        let dataset = try OperationalDataset(hex: PublishedVectors.openThread5938)
        #expect(dataset.summaryLines().contains("Network Key: [redacted]"))
        #expect(dataset.summaryLines().contains("PSKc: [redacted]"))
        let revealed = dataset.summary(revealingSecrets: true)
        #expect(revealed.contains("Network Key: f366cec7a446bab978d90d27abe38f23"))
        #expect(revealed.contains("PSKc: 3ca67c969efb0d0c74a4d8ee923b576c"))
        #expect(dataset.description.hasPrefix("OperationalDataset{Active Timestamp: 1, Channel: 15, "))
        #expect(dataset.networkKey?.description == "[redacted]")
        #expect(dataset.pskc?.debugDescription == "[redacted]")
        #expect(dataset.tlv(for: .networkKey)?.description == "Network Key (type 5): [redacted]")
        #expect(dataset.tlv(for: .panID)?.description == "PAN ID (type 1): 5938")
    }

    @Test("Errors about secret TLVs do not echo their bytes")
    func errorsDoNotLeak() {
        let keyBytes = String(repeating: "5a", count: 15)
        for hexText in ["050f" + keyBytes, "040f" + keyBytes, "0511" + keyBytes + "5a5a"] {
            let error = datasetError { _ = try OperationalDataset(hex: hexText) }
            #expect(error?.message.contains("5a5a") == false)
        }
    }
}
