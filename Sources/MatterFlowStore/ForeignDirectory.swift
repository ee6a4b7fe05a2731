import Foundation
import MatterFlowJournal

/// What a directory given as a journal directory (`--store DIR`) holds when it is another MatterFlow directory:
/// PostgreSQL's socket directory, a simulated home's state directory (`run --state`, `worker --state`) or a
/// secrets directory (`submit --secrets`). Read as a journal directory, it would list no run, and `store prune`
/// would say it removed none, as if all were well.
enum ForeignDirectory {
    /// Why `directory` is not a journal directory, as an `invalidStore` error naming what it seems to be; nil when
    /// it holds a journal, or nothing MatterFlow knows (an empty directory is a journal directory with no run yet).
    static func problem(with directory: String) -> StoreError? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return nil }
        // The directory pg-server.sh and PostgreSQL name as host= holds the server's socket, and no journal.
        if let socket = names.first(where: { $0.hasPrefix(".s.PGSQL.") }) {
            let port = socket.dropFirst(".s.PGSQL.".count)
            return StoreError(
                .invalidStore,
                "\(directory) is PostgreSQL's socket directory, not a journal directory; to read the store there, give --store 'host=\(directory) port=\(port) dbname=DB'")
        }
        guard !holdsJournal(names) else { return nil }
        let seems: String
        var instead = "give --store the directory given to `run --journal`, or a PostgreSQL store"
        if names.contains("home.json") {
            seems = "a simulated home's state directory (home.json, as `run --state` keeps it)"
        } else if let structure = names.sorted().first(where: { FileManager.default.fileExists(atPath: directory + "/" + $0 + "/home.json") }) {
            seems = "a worker's state directory (a home.json per structure, as `worker --state` keeps them: \(structure)/home.json)"
        } else if let file = names.sorted().first(where: { SecretInbox.runFile(named: $0) != nil }) {
            seems = "a secrets directory (runs' secrets files, as `submit --secrets` writes them: \(file))"
            instead = "give it as --secrets, and --store the PostgreSQL store whose runs it serves"
        } else {
            return nil
        }
        return StoreError(
            .invalidStore, "\(directory) holds no journal file: it is \(seems), not a journal directory; nothing was read or removed: \(instead)")
    }

    /// Whether a directory's names include a journal file's.
    static func holdsJournal(_ names: [String]) -> Bool { names.contains { $0.hasSuffix(RunJournal.fileExtension) } }
}

extension JournalDirectoryStore {
    /// Whether the directory holds a journal file at all (false: a journal directory no run has written to yet, or
    /// whose runs were all removed; or a directory that is not one).
    public var holdsJournals: Bool {
        ForeignDirectory.holdsJournal((try? FileManager.default.contentsOfDirectory(atPath: journal.directory)) ?? [])
    }
}
