#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// glibc's `pipe2` and `posix_spawn_file_actions_addchdir_np` / `addclosefrom_np` (glibc 2.29 and 2.34), which
/// Swift's Glibc module does not show; each is looked up once by name. Where the C library lacks one, the pipe is
/// made with `pipe` and marked, and the file actions report `ENOSYS`.
///
/// With them a child process is started holding only the descriptors it is given: its pipes are close-on-exec from
/// their creation (no other child started meanwhile, by any thread, inherits them), and the child closes every other
/// descriptor before it runs.
@_spi(Spawning)
public enum SpawnExtensions {
    private typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
    private typealias AddChdir = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>) -> Int32
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    private static let pipe2Function = symbol("pipe2", as: Pipe2.self)
    private static let addChdirFunction = symbol("posix_spawn_file_actions_addchdir_np", as: AddChdir.self)
    private static let addCloseFromFunction = symbol("posix_spawn_file_actions_addclosefrom_np", as: AddCloseFrom.self)

    private static func symbol<F>(_ name: String, as type: F.Type) -> F? {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(address, to: type)
    }

    /// A pipe whose two ends are close-on-exec from their creation: (read, write); nil with `errno` set on failure.
    /// Without `pipe2` they are marked just after it is made, which leaves a child started by another thread in that
    /// moment a copy.
    public static func closeOnExecPipe() -> (read: Int32, write: Int32)? {
        var descriptors: [Int32] = [-1, -1]
        if let pipe2Function {
            guard pipe2Function(&descriptors, O_CLOEXEC) == 0 else { return nil }
        } else {
            guard pipe(&descriptors) == 0 else { return nil }
            for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC) }
        }
        return (descriptors[0], descriptors[1])
    }

    /// Makes the child change to `directory` before it runs; 0, or an error number.
    public static func addChdir(_ actions: inout posix_spawn_file_actions_t, _ directory: String) -> Int32 {
        guard let addChdirFunction else { return ENOSYS }
        return directory.withCString { addChdirFunction(&actions, $0) }
    }

    /// Makes the child close every descriptor from `lowest` up before it runs; 0, or an error number.
    public static func addCloseFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) -> Int32 {
        guard let addCloseFromFunction else { return ENOSYS }
        return addCloseFromFunction(&actions, lowest)
    }
}
