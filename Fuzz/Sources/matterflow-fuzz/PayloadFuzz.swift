import MatterPayload

/// Onboarding payload text: parsed, validated, warned about and encoded again.
enum PayloadFuzz {
    static func run(_ bytes: [UInt8]) {
        let text = String(decoding: bytes, as: UTF8.self)
        _ = OnboardingPayload.kind(of: text)
        do {
            for payload in try OnboardingPayload.parse(text) {
                _ = payload.validate()
                _ = payload.warnings()
                _ = payload.jsonFields()
                _ = try? payload.qrCode()
                _ = try? payload.manualCode(grouped: true)
            }
        } catch {
            _ = error.description
        }
        _ = try? OnboardingPayload.decode(text)
    }
}
