import MatterFlow
import MatterFlowJournal
import Synchronization

/// The wall clock of a fleet: PostgreSQL's, as one worker reads it. A worker stamps its runs' records with it and
/// counts a resumed run's waits by it, so a question asked on one machine times out alike on another whose clock is
/// wrong (the leases already count by the server's clock).
///
/// Between readings it counts on from the last one by this machine's monotonic clock, not its wall clock: a wall
/// clock stepped meanwhile (NTP correcting it, a person setting it) moves no record's time.
final class StoreClock: Sendable {
    private let local: @Sendable () -> Double
    private let monotonic: @Sendable () -> ContinuousClock.Instant
    /// The server's time at a moment of the monotonic clock; nil until measured.
    private let reading = Mutex<(server: Double, at: ContinuousClock.Instant)?>(nil)

    /// - Parameter local: This machine's wall-clock time, in seconds since the Unix epoch: the time until the first
    ///   reading, and what the readings say how far off it is.
    /// - Parameter monotonic: This machine's monotonic clock, which times the round trips and counts on from a reading.
    init(
        local: @escaping @Sendable () -> Double = { JournalFile.wallTime() },
        monotonic: @escaping @Sendable () -> ContinuousClock.Instant = { .now }
    ) {
        self.local = local
        self.monotonic = monotonic
    }

    /// The server's wall-clock time now, in seconds since the Unix epoch: the last reading, counted on.
    var now: Double {
        guard let reading = reading.withLock({ $0 }) else { return local() }
        return reading.server + (monotonic() - reading.at).secondsValue
    }

    /// The longest round trip a reading is kept from: the reading is taken as made halfway through it, so it may
    /// be off by half of it (a reading that waited for the connection, or for a reconnect, is dropped).
    static let longestRoundTrip: Duration = .milliseconds(250)

    /// Reads the server's clock (taking the reading as made halfway through the round trip) and keeps it.
    /// - Returns: How many seconds this machine's wall clock is ahead of the server's (negative: behind); nil when
    ///   the round trip took longer than ``longestRoundTrip``, the last reading kept.
    @discardableResult
    func measure(_ store: PostgresRunStore) throws(StoreError) -> Double? {
        let before = monotonic()
        let wall = local()
        let server = try store.currentTime()
        let trip = monotonic() - before
        guard trip <= Self.longestRoundTrip else { return nil }
        reading.withLock { $0 = (server, before + trip / 2) }
        return wall + (trip / 2).secondsValue - server
    }
}

extension PostgresRunStore {
    /// The server's wall-clock time now (`clock_timestamp()`), in seconds since the Unix epoch: what the worker's
    /// clock is measured against, and what a span back from now (`runs --since 2h`) counts from.
    public func currentTime() throws(StoreError) -> Double {
        let rows = try execute("SELECT EXTRACT(EPOCH FROM clock_timestamp())", doing: "reading the server's clock")
        guard let text = rows.rows.first?.first.flatMap({ $0 }), let seconds = Double(text) else {
            throw StoreError(.storeUnavailable, "the server's clock could not be read")
        }
        return seconds
    }
}

extension StoreWorker {
    /// How far this machine's clock may be from the store's before the worker says so; it says the clocks agree
    /// again once they are within half that.
    static let clockSkewWarning = 1.0

    /// Measures the store's clock again, saying once when this machine's is more than ``clockSkewWarning`` away
    /// from it, and once when it comes back.
    func measureClock() {
        let measured: Double?
        do throws(StoreError) {
            measured = try storeClock.measure(store)
        } catch {
            log(.warning, "could not read the store's clock (\(error.message)); records keep the last reading")
            return
        }
        guard let ahead = measured else { return }
        // Nil when nothing changed; else whether the clocks disagree now.
        let change = state.withLock { state -> Bool? in
            let skewed = abs(ahead) > (state.clockSkewed ? Self.clockSkewWarning / 2 : Self.clockSkewWarning)
            defer { state.clockSkewed = skewed }
            return state.clockSkewed != skewed ? skewed : nil
        }
        guard let skewed = change else { return }
        if skewed {
            let amount = (abs(ahead) * 10).rounded() / 10
            log(.warning, "this machine's clock is \(amount) s \(ahead > 0 ? "ahead of" : "behind") the store's; "
                    + "the worker stamps records and counts waits by the store's clock, but synchronise this machine's (NTP)")
        } else {
            log(.info, "this machine's clock agrees with the store's again")
        }
    }
}
