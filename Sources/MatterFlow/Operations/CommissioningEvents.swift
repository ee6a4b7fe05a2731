/// The commissioning events of ``OperationCatalog/standard``.
enum CommissioningEvents {
    static let all: [EventDescriptor] = [sessionExpired]

    /// The session machine's `expire` transition, reported when an active session's lease runs out.
    static let sessionExpired = EventDescriptor(
        name: SessionLease.expiredEventName,
        summary: "An active commissioning session's lease ran out: the session ended and its pending devices were removed.",
        valueField: "reason", values: ["leaseExpired"],
        payload: .object([
            .init("sessionID", .string, "the session that expired"),
            .init("phase", .string, "the phase it was in"),
            .init("releasedDeviceIDs", .array(.string), "devices it had commissioned and not completed"),
            .init("reason", .string, "leaseExpired"),
        ]))
}
