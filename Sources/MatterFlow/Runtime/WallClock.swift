import Foundation

/// Seconds since 1970 as a run's clock tells them: a fixed origin (the moment the clock read zero) plus the
/// clock's reading, so a run on virtual time also passes moments in virtual time.
enum WallClock {
    /// Reads seconds since 1970 on `clock`, whose zero is at `origin` (nil: the system's time now, less the clock's
    /// reading now).
    static func reading(_ clock: any WorkflowClock, origin: Double?) -> @Sendable () -> Double {
        let zero = origin ?? (Date().timeIntervalSince1970 - clock.now.secondsValue)
        return { zero + clock.now.secondsValue }
    }
}
