#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Calls a function at a fixed interval on a thread of its own (a worker's heartbeat), until stopped.
final class LeaseKeeper: @unchecked Sendable {
    // Safety of @unchecked Sendable: `beat` and `interval` are immutable; `stopping` and `thread` are only touched
    // while `monitor` is locked (`thread` is written once, before any other thread can see the object, and read
    // by `stop`).
    private let monitor = Monitor()
    private let beat: @Sendable () -> Void
    private let interval: Int
    private var stopping = false
    private var thread: pthread_t?

    init(intervalMilliseconds: Int, _ beat: @escaping @Sendable () -> Void) {
        self.beat = beat
        interval = max(10, intervalMilliseconds)
        if let created = StoreThread.start({ self.loop() }) {
            monitor.lock()
            thread = created
            monitor.unlock()
        }
    }

    private func loop() {
        while true {
            monitor.lock()
            if !stopping { monitor.wait(milliseconds: interval) }
            let done = stopping
            monitor.unlock()
            if done { return }
            beat()
        }
    }

    /// Stops the thread and waits for it (a beat in progress finishes first).
    func stop() {
        monitor.lock()
        stopping = true
        monitor.broadcast()
        let running = thread
        thread = nil
        monitor.unlock()
        if let running { pthread_join(running, nil) }
    }
}
