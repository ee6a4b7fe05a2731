import MatterFlowHubProtocol
import MatterFlowJournal
import Testing

@testable import MatterFlowCLI

/// How a `--hub` is recorded for recovery: a command by its program alone (quoted as the shell quotes it), since its
/// arguments may hold tokens; a socket or address as given.
@Suite struct HubIdentityTests {
    @Test func aCommandIsRecordedByItsProgram() throws {
        let spec = "'/opt/my hub/bridge' --token s3cret"
        let identity = HubOption.identity(try HubEndpoint(parsing: spec), spec: spec, handshake: nil)
        #expect(identity.endpoint == "/opt/my hub/bridge …")
        #expect(HubOption.identity(try HubEndpoint(parsing: "python3"), spec: "python3", handshake: nil).endpoint == "python3")
        let socket = "unix:/run/a b.sock"
        #expect(HubOption.identity(try HubEndpoint(parsing: socket), spec: socket, handshake: nil).endpoint == socket)
    }
}
