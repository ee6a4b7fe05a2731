@testable import MatterFlowStore
import Testing

/// libpq's messages, as `--store` errors show them: on one line, their sentences still told apart.
@Suite("libpq messages on one line")
struct LibPQMessageTests {
    static let socketFailure =
        "connection to server on socket \"/tmp/x/.s.PGSQL.5432\" failed: No such file or directory\n\tIs the server running locally and accepting connections on that socket?\n"

    @Test("the hint on a line of its own joins the error as a sentence of its own")
    func hintIsASentence() {
        #expect(
            PostgresConnection.oneLine(Self.socketFailure)
                == "connection to server on socket \"/tmp/x/.s.PGSQL.5432\" failed: No such file or directory. Is the server running locally and accepting connections on that socket?")
        // A line that ends in a stop keeps it; one that goes on in lower case follows a semicolon.
        #expect(PostgresConnection.oneLine("FATAL:\n  password authentication failed\n") == "FATAL: password authentication failed")
        #expect(PostgresConnection.oneLine("could not connect\nretrying later\n\n") == "could not connect; retrying later")
        #expect(PostgresConnection.oneLine("one line") == "one line")
        #expect(PostgresConnection.oneLine("\n \n") == "")
    }

    @Test("the store's remedy does not follow libpq's question with a semicolon")
    func remedyAfterAQuestion() {
        let failure = PostgresError(.connectionFailed, "cannot connect to db: " + PostgresConnection.oneLine(Self.socketFailure))
        let message = StoreError.from(failure, doing: "opening the store").message
        #expect(!message.contains("?;"), "\(message)")
        #expect(message.hasSuffix("on that socket? Check that PostgreSQL is running and --store names it"), "\(message)")
        let plain = StoreError.from(PostgresError(.connectionLost, "server closed the connection unexpectedly"), doing: "claiming").message
        #expect(plain == "claiming: server closed the connection unexpectedly; check that PostgreSQL is running and --store names it")
    }
}
