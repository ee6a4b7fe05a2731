import MatterFlowJournal
import Synchronization

/// The wall clock of a fleet: PostgreSQL's, as one worker reads it through this machine's clock and how far that is
/// from the server's. A worker stamps its runs' records with it and counts a resumed run's waits by it, so a
/// question asked on one machine times out alike on another whose clock is wrong (the leases already count by
/// the server's clock).
final class StoreClock: Sendable {
    private let local: @Sendable () -> Double
    /// Seconds to add to ``local`` to read the server's clock; 0 until measured.
    private let offset = Mutex<Double>(0)

    /// - Parameter local: This machine's wall-clock time, in seconds since the Unix epoch.
    init(local: @escaping @Sendable () -> Double = { JournalFile.wallTime() }) {
        self.local = local
    }

    /// The server's wall-clock time now, in seconds since the Unix epoch, as last measured.
    var now: Double { local() + offset.withLock { $0 } }

    /// The longest round trip a reading is kept from: the reading is taken as made halfway through it, so it may
    /// be off by half of it (a reading that waited for the connection, or for a reconnect, is dropped).
    static let longestRoundTrip = 0.25

    /// Reads the server's clock and keeps how far this machine's is from it (taking the reading as made halfway
    /// through the round trip).
    /// - Returns: How many seconds this machine's clock is ahead of the server's (negative: behind); nil when the
    ///   round trip took longer than ``longestRoundTrip``, the last reading kept.
    @discardableResult
    func measure(_ store: PostgresRunStore) throws(StoreError) -> Double? {
        let before = local()
        let server = try store.currentTime()
        let after = local()
        guard after - before <= Self.longestRoundTrip else { return nil }
        let measured = server - (before + after) / 2
        offset.withLock { $0 = measured }
        return -measured
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
