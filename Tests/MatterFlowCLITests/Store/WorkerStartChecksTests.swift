import Foundation
import Testing

/// What a worker checks before it reaches for its store: a wrong option is said as what it is.
@Suite struct WorkerStartChecksTests {
    @Test("--secrets naming a file is said to be no directory (exit 2), in the worker's log format, not as a digest key it cannot read")
    func secretsFileIsNoDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("not a directory\n", to: "secrets")
        for format in ["text", "json"] {
            let run = await matterflow(["worker", "--store", "host=/nonexistent dbname=x", "--secrets", file, "--log-format", format])
            #expect(run.code == 2, "\(run.stderr)")
            #expect(run.stderr.contains("--secrets \(file) is no directory; give the directory given to `matterflow submit --secrets`"), "\(run.stderr)")
            #expect(!run.stderr.contains("cannot read the secret digest key"), "\(run.stderr)")
            if format == "json" { #expect(run.stderr.hasPrefix("{"), "\(run.stderr)") }
        }
    }
}
