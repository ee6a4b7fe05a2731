#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The store's background loops (the group committer, lease heartbeats, queue notifications) each run on a POSIX
/// thread of their own, so their blocking libpq calls never hold one of the cooperative pool's threads.
enum StoreThread {
    /// What the new thread runs; retained until the thread has taken it.
    private final class Start {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new thread (joinable: the owner joins it when it stops); nil when the system refuses a
    /// thread, in which case `body` never runs.
    static func start(_ body: @escaping () -> Void) -> pthread_t? {
        let start = Unmanaged.passRetained(Start(body))
        var created = pthread_t()
        let result = pthread_create(&created, nil, { argument in
            guard let argument else { return nil }
            Unmanaged<Start>.fromOpaque(argument).takeRetainedValue().body()
            return nil
        }, start.toOpaque())
        guard result == 0 else {
            start.release()
            return nil
        }
        return created
    }
}
