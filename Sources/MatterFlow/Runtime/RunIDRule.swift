/// Which texts may be a run's ID when a user or an embedding service chooses it (`matterflow submit --run-id`, a
/// journal's or a pool's `runID`).
///
/// A run's ID names files: its journal (`<directory>/<runID>.jsonl`), and in a fleet its secrets, answers and
/// output files (`<secrets>/<runID>.secrets`, ...). So it cannot leave the directory or hide in it: it holds no `/`,
/// does not start with `.` (no `..`, no hidden file), holds no control character (no NUL, nothing that garbles a
/// terminal), and is at most ``maximumLength`` bytes, so the longest file it names fits a file name. Anything else
/// goes (`order:42`, `café 3`). The IDs MatterFlow makes (`run-` and 12 hex digits) always are valid.
public enum RunIDRule {
    /// The longest run ID, in UTF-8 bytes: a file name holds 255, and the longest name made of it adds `.answers`
    /// and a writer's temporary suffix.
    public static let maximumLength = 200

    /// Why `id` cannot be a run's ID (without quoting it: it may hold anything); nil when it can.
    public static func problem(with id: String) -> String? {
        guard let first = id.utf8.first else { return "a run ID cannot be empty" }
        guard id.utf8.count <= maximumLength else {
            return "a run ID is at most \(maximumLength) bytes (this one has \(id.utf8.count))"
        }
        guard first != UInt8(ascii: ".") else { return "a run ID cannot start with '.' (it names the run's files)" }
        guard !id.utf8.contains(UInt8(ascii: "/")) else { return "a run ID cannot hold '/' (it names the run's files)" }
        guard !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            return "a run ID cannot hold control characters"
        }
        return nil
    }
}
