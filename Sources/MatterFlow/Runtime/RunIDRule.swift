/// Which texts may be a run's ID when a user or an embedding service chooses it (`matterflow submit --run-id`, a
/// journal's or a pool's `runID`).
///
/// A run's ID names files: its journal (`<directory>/<runID>.jsonl`), and in a fleet its secrets, answers and
/// output files (`<secrets>/<runID>.secrets`, ...). So it holds only ASCII letters, digits, `-`, `_` and `.`, does not
/// start with `.` or `-` (no `..`, no hidden file, nothing an option parser would read), and is at most
/// ``maximumLength`` bytes. The IDs MatterFlow makes (`run-` and 12 hex digits) always are.
public enum RunIDRule {
    /// The longest run ID, in bytes.
    public static let maximumLength = 128

    /// Why `id` cannot be a run's ID (without quoting it: it may hold anything); nil when it can.
    public static func problem(with id: String) -> String? {
        guard let first = id.utf8.first else { return "a run ID cannot be empty" }
        guard id.utf8.count <= maximumLength else {
            return "a run ID is at most \(maximumLength) characters (this one has \(id.utf8.count))"
        }
        guard id.utf8.allSatisfy(isAllowed) else {
            return "a run ID holds only ASCII letters, digits, '-', '_' and '.' (it names the run's files)"
        }
        guard first != UInt8(ascii: "."), first != UInt8(ascii: "-") else {
            return "a run ID cannot start with '.' or '-'"
        }
        return nil
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }
}
