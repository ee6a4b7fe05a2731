import Foundation
import MatterFlow
@testable import MatterFlowHubProtocol
import Synchronization
import Testing

/// A hub command that ends says how: its exit status or the signal that killed it, so a hub author sees the crash
/// (in `hub check` and in the run's error), not only that the connection closed.
@Suite("hub commands' exits")
struct HubCommandExitTests {
    /// Why the channel of the hub command `script` (run by /bin/sh) closed.
    func closedReason(_ script: String) async throws -> String {
        let connection = try HubConnection.open(.command(["/bin/sh", "-c", script]))
        let reason = Mutex<String?>(nil)
        let (ended, ending) = AsyncStream<Void>.makeStream()
        connection.channel.start { event in
            if case .closed(let why) = event {
                reason.withLock { $0 = why }
                ending.finish()
            }
        }
        for await _ in ended {}
        await connection.close()
        return reason.withLock { $0 } ?? "not closed"
    }

    @Test("an exit status, a signal, or a standard output closed by a hub still running")
    func howTheHubEnded() async throws {
        #expect(try await closedReason("exit 3") == "the hub exited with status 3")
        #expect(try await closedReason("exit 0") == "the hub exited with status 0")
        #expect(try await closedReason("kill -SEGV $$") == "the hub was killed by signal 11 (Segmentation fault)")
        #expect(try await closedReason("exec 1>&-; read line") == "the hub closed its standard output")
    }

    @Test("an end as waitid reports it")
    func ends() {
        #expect(ChildProcess.describe(code: Int32(CLD_EXITED), status: 1) == "the hub exited with status 1")
        #expect(ChildProcess.describe(code: Int32(CLD_KILLED), status: 9) == "the hub was killed by signal 9 (Killed)")
        #expect(ChildProcess.describe(code: Int32(CLD_DUMPED), status: 11) == "the hub was killed by signal 11 (Segmentation fault)")
    }
}
