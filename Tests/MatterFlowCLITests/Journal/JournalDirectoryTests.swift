import Foundation
import MatterFlowJournal
import Testing

/// `runs`, `history` and `recover` read a journal directory; a mistyped one is an error that creates nothing.
@Suite("journal directory typos")
struct JournalDirectoryTests {
    @Test("a journal directory that does not exist is exit 2, names the path, and is not created")
    func missingDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = directory.file("jounral")
        let state = directory.file("state")
        let commands: [[String]] = [
            ["runs", "--journal", missing], ["runs", "--journal", missing, "--json"],
            ["history", "run-000000000001", "--journal", missing],
            ["recover", "--journal", missing, "--state", state], ["recover", "--journal", missing, "--resume"],
        ]
        for arguments in commands {
            let run = await matterflowVirtual(arguments)
            let label = arguments.joined(separator: " ")
            #expect(run.code == 2, "\(label): \(run.stderr)")
            #expect(run.stderr.contains("error[journalNotFound]"), "\(label): \(run.stderr)")
            #expect(run.stderr.contains(missing) && run.stderr.contains("does not exist"), "\(label): \(run.stderr)")
            #expect(run.stdout.isEmpty, "\(label)")
            #expect(!FileManager.default.fileExists(atPath: missing), "\(label) created the journal directory")
            #expect(!FileManager.default.fileExists(atPath: state), "\(label) created the state directory")
        }
    }

    @Test("a path that is a file is exit 2 too; an existing empty directory has nothing to do")
    func fileAndEmptyDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("not a directory", to: "journal.txt")
        let run = await matterflowVirtual(["runs", "--journal", file])
        #expect(run.code == 2)
        #expect(run.stderr.contains("is not a directory"), "\(run.stderr)")
        // Given to run, it is told as such before anything is read or written in it (not as a digest key in it).
        for (workflow, inputs) in [("prepare", []), ("commission-device", commissionInputs())] {
            let started = await matterflowVirtual(["run", Repository.workflow(workflow), "--journal", file] + inputs)
            #expect(started.code == 2)
            #expect(started.stderr.contains("error[journalUnwritable]: \(file) is not a directory; a journal is a directory"), "\(started.stderr)")
        }
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "not a directory")

        let empty = directory.file("journal")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        #expect(await matterflowVirtual(["runs", "--journal", empty]).code == 0)
        #expect(await matterflowVirtual(["recover", "--journal", empty]).code == 0)
    }

    @Test("--store that names PostgreSQL's socket directory, or a URI of another scheme, is refused, not read as an empty journal directory")
    func storeThatIsNoJournalDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // What pg-server.sh prints as host=: the server's socket in it (a file stands in for it here).
        let sockets = directory.file("pg")
        try FileManager.default.createDirectory(atPath: sockets, withIntermediateDirectories: true)
        _ = try directory.write("", to: "pg/.s.PGSQL.5432")
        for command in [["runs"], ["store", "prune", "--older-than", "0s"]] {
            let refused = await matterflowVirtual(command + ["--store", sockets])
            #expect(refused.code == 2, "\(command): \(refused.stderr)")
            #expect(refused.stderr.contains("is PostgreSQL's socket directory, not a journal directory; to read the store there, give --store 'host=\(sockets) port=5432 dbname=DB'"), "\(refused.stderr)")
        }
        for location in ["mysql://db/runs", "postgres:/mf", "postgresql:/mf"] {
            let refused = await matterflowVirtual(["runs", "--store", location])
            #expect(refused.code == 2, "\(location): \(refused.stderr)")
            #expect(refused.stderr.contains("is neither a PostgreSQL URI"), "\(refused.stderr)")
        }
    }

    @Test("--store naming a simulated home's state directory, a worker's, or a secrets directory is refused as not a journal directory; an empty directory prunes nothing and says so")
    func storeThatIsAnotherMatterFlowDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let state = directory.file("state")
        let made = await matterflowVirtual(["run", Repository.workflow("commission-device"), "--state", state] + commissionInputs())
        #expect(made.code == 0, "\(made.stderr)")
        let workerState = directory.file("worker-state")
        try FileManager.default.createDirectory(atPath: workerState + "/oak", withIntermediateDirectories: true)
        _ = try directory.write("{}", to: "worker-state/oak/home.json")
        let secrets = directory.file("secrets")
        try FileManager.default.createDirectory(atPath: secrets, withIntermediateDirectories: true)
        _ = try directory.write("{}", to: "secrets/run-0000000a0001.secrets")
        for (location, seems) in [
            (state, "it is a simulated home's state directory (home.json, as `run --state` keeps it), not a journal directory"),
            (workerState, "it is a worker's state directory (a home.json per structure, as `worker --state` keeps them: oak/home.json)"),
            (secrets, "it is a secrets directory (runs' secrets files, as `submit --secrets` writes them: run-0000000a0001.secrets)"),
        ] {
            let refused = await matterflowVirtual(["store", "prune", "--store", location, "--older-than", "0s"])
            #expect(refused.code == 2, "\(location): \(refused.stdout)\(refused.stderr)")
            #expect(refused.stderr.contains("error[invalidStore]: \(location) holds no journal file: \(seems)"), "\(refused.stderr)")
            #expect(refused.stderr.contains("nothing was read or removed"), "\(refused.stderr)")
            #expect(refused.stdout.isEmpty, "\(refused.stdout)")
        }
        #expect(FileManager.default.fileExists(atPath: state + "/home.json"))
        #expect(await matterflowVirtual(["runs", "--store", state]).stderr.contains("error[invalidStore]"))

        let empty = directory.file("empty")
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        let nothing = await matterflowVirtual(["store", "prune", "--store", empty, "--older-than", "0s"])
        #expect(nothing.code == 0, "\(nothing.stderr)")
        #expect(nothing.stdout.hasPrefix("removed 0 runs (0 records)"), "\(nothing.stdout)")
        #expect(nothing.stderr == "note: \(empty) holds no journal file: nothing to prune (is it the directory given to `run --journal`?)\n")
    }

    @Test("submit --secrets naming a missing directory is refused as such, with what to do, before the store is asked")
    func submitWithAMissingSecretsDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = directory.file("nope/sub")
        let refused = await matterflowVirtual(
            ["submit", Repository.workflow("commission-device"), "--store", "host=\(directory.path) dbname=none", "--secrets", missing]
                + commissionInputs())
        #expect(refused.code == 2, "\(refused.stderr)")
        #expect(
            refused.stderr == "error[secretsUnavailable]: --secrets \(missing) does not exist; give the directory the workers read with "
                + "their own --secrets, or make it first, readable by their user alone (`mkdir -m 700 \(missing)`)\n")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    @Test("store prune --secrets naming no directory is refused before anything is removed: the runs' secrets files would stay")
    func pruneWithAMissingSecretsDirectory() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        #expect(await matterflowVirtual(["run", Repository.workflow("rooms"), "--journal", journal]).code == 0)
        let refused = await matterflowVirtual(["store", "prune", "--store", journal, "--older-than", "0s", "--secrets", directory.file("nope")])
        #expect(refused.code == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("error[secretsUnavailable]: --secrets \(directory.file("nope")) does not exist"), "\(refused.stderr)")
        let listed = await matterflowVirtual(["runs", "--journal", journal])
        #expect(listed.stdout.contains("succeeded"), "the run was not removed: \(listed.stdout)")
    }

    @Test("runs --status lists only runs with that status, each ended one with its error's cause and message")
    func runsByStatus() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        let busy = Repository.root + "/Workflows/fixtures/homes/busy.json"
        #expect(await matterflowVirtual(["run", Repository.workflow("prepare"), "--journal", journal, "--home", busy]).code == 1)
        #expect(await matterflowVirtual(["run", Repository.workflow("rooms"), "--journal", journal]).code == 0)
        let failed = await matterflowVirtual(["runs", "--journal", journal, "--status", "failed"])
        #expect(failed.code == 0, "\(failed.stderr)")
        let lines = failed.stdout.split(separator: "\n")
        #expect(lines.count == 2 && lines[1].contains(" prepare ") && lines[1].contains(" failed "), "\(failed.stdout)")
        #expect(lines.last?.contains("sessionBusy: ") == true, "the cause and message: \(failed.stdout)")
        let unknown = await matterflowVirtual(["runs", "--journal", journal, "--status", "queued"])
        #expect(unknown.code == 64 && unknown.stderr.contains("--status queued is no run status here"), "\(unknown.stderr)")
        let none = await matterflowVirtual(["runs", "--journal", journal, "--status", "cancelled"])
        #expect(none.stderr == "no runs in \(journal) match (2 runs in all)\n", "\(none.stderr)")
    }

    @Test("a FIFO or a device where a journal is expected is listed as unreadable, saying what it is, never waited on")
    func aFIFOOrDeviceIsNoJournal() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        try FileManager.default.createDirectory(atPath: journal, withIntermediateDirectories: true)
        #expect(mkfifo(journal + "/run-00000000f1f0.journal", 0o600) == 0)
        try FileManager.default.createSymbolicLink(atPath: journal + "/run-0000000000de.journal", withDestinationPath: "/dev/zero")
        let listed = await matterflowVirtual(["runs", "--journal", journal])
        #expect(listed.code == 0, "\(listed.stderr)")
        #expect(listed.stdout.contains("run-00000000f1f0.journal is a FIFO, device or socket, not a journal file"), "\(listed.stdout)")
        #expect(listed.stdout.contains("run-0000000000de.journal is a FIFO, device or socket, not a journal file"), "\(listed.stdout)")
        // A directory with a journal's name says so, in the listing and in its history.
        try FileManager.default.createDirectory(atPath: journal + "/run-00000000d1d0.journal", withIntermediateDirectories: true)
        let again = await matterflowVirtual(["runs", "--journal", journal])
        #expect(again.stdout.contains("run-00000000d1d0.journal: it is a directory, not a journal file"), "\(again.stdout)")
        let history = await matterflowVirtual(["history", "run-00000000d1d0", "--journal", journal])
        #expect(history.code == 2 && history.stderr.contains("it is a directory, not a journal file") && !history.stderr.contains("Success"), "\(history.stderr)")
    }

    @Test("run --journal still creates its directory: it is the writer")
    func runCreatesIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("new/journal")
        let run = await matterflowVirtual(
            ["run", Repository.workflow("commission-device"), "--journal", journal, "--trace", "none"] + commissionInputs())
        #expect(run.code == 0, "\(run.stderr)")
        #expect(try RunJournal(existingDirectory: journal).runs().map(\.status) == [.succeeded])
    }

    @Test("run and recover warn of a digest key others can read, and say what to do; not of the owner's own")
    func exposedDigestKey() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = directory.file("journal")
        let arguments = ["run", Repository.workflow("commission-device"), "--journal", journal, "--trace", "none"] + commissionInputs()
        let first = await matterflowVirtual(arguments)
        #expect(first.code == 0, "\(first.stderr)")
        #expect(!first.stderr.contains("warning:"), "\(first.stderr)")
        let key = journal + "/" + SecretDigestKey.fileName
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key)
        for run in [await matterflowVirtual(arguments), await matterflowVirtual(["recover", "--journal", journal])] {
            #expect(run.code == 0, "\(run.stderr)")
            #expect(run.stderr.contains("warning: the secret digest key \(key) can be read or written by others than its owner (mode 0644)"), "\(run.stderr)")
        }
    }

    @Test("run --journal and --state create what they write readable by the owner only; an existing directory keeps its mode")
    func privateModes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func mode(_ path: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int, "\(path)") & 0o777
        }
        let home = try directory.write(TestHomes.json(), to: "home.json")
        let journal = directory.file("new/journal")
        let state = directory.file("new/state")
        let run = await matterflowVirtual(
            ["run", Repository.workflow("commission-device"), "--home", home, "--state", state, "--journal", journal, "--trace", "none"]
                + commissionInputs())
        #expect(run.code == 0, "\(run.stderr)")
        #expect(try mode(journal) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: journal)
        #expect(!files.isEmpty)
        for file in files { #expect(try mode(journal + "/" + file) == 0o600, "\(file)") }
        #expect(try mode(state) == 0o700)
        #expect(try mode(state + "/home.json") == 0o600)

        let existing = directory.file("shared")
        try FileManager.default.createDirectory(atPath: existing, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        let again = await matterflowVirtual(
            ["run", Repository.workflow("commission-device"), "--journal", existing, "--trace", "none"] + commissionInputs())
        #expect(again.code == 0, "\(again.stderr)")
        #expect(try mode(existing) == 0o755)
        for file in try FileManager.default.contentsOfDirectory(atPath: existing) {
            #expect(try mode(existing + "/" + file) == 0o600, "\(file)")
        }
    }
}
