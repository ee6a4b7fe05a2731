@testable import MatterFlowStore
import Testing

/// libpq is opened when a store is first used; a machine without it gets a message saying what to install.
@Suite("libpq, opened on first use")
struct LibPQLoadingTests {
    @Test("a missing libpq is a connection failure that names the library and the package to install")
    func missingLibrary() {
        guard case .failure(let error) = LibPQ.open("libpq-matterflow-absent.so.5") else {
            Issue.record("a library that does not exist was opened")
            return
        }
        #expect(error.code == .connectionFailed)
        #expect(error.message.contains("libpq-matterflow-absent.so.5"))
        #expect(error.message.contains("apt-get install libpq5"))
    }

    @Test("a library without libpq's functions is refused, naming the first one missing")
    func notLibPQ() {
        // The C library is present everywhere and has none of libpq's functions.
        guard case .failure(let error) = LibPQ.open("libc.so.6") else {
            Issue.record("the C library was taken for libpq")
            return
        }
        #expect(error.message.contains("has no function PQconnectdbParams"))
    }
}
