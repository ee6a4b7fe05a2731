import MatterFlowJSON

/// The kinds of MatterFlow file, recognised by top-level keys only that kind has: a file of one kind given where
/// another belongs is reported once, saying what it is and where it goes, rather than as a list of unrelated missing
/// and unknown keys.
public enum FileKind: Sendable, Hashable {
    case workflow, home, fixture, catalog

    /// Top-level keys of a home description (docs/home-format.md) that no workflow has.
    static let homeKeys: Set<String> = [
        "structure", "permissionGranted", "rooms", "devices", "activeSession", "issuedIDs", "simulation", "thread",
    ]

    /// The kind of a document whose top-level object has these keys, or nil when the keys do not tell (a file that
    /// may be of the kind expected, with its own mistakes).
    public init?(keys: some Sequence<String>) {
        let keys = Set(keys)
        if keys.contains("fixture") {
            self = .fixture
        } else if keys.contains("states") {
            self = .workflow
        } else if keys.contains("workflow") {
            return nil
        } else if keys.contains("catalog") {
            self = .catalog
        } else if !keys.isDisjoint(with: Self.homeKeys) {
            self = .home
        } else {
            return nil
        }
    }

    /// The key a file of this kind must have: a file that has it is taken to be of this kind, stray keys and all.
    var marker: String {
        switch self {
        case .workflow: "states"
        case .home: "structure"
        case .fixture: "fixture"
        case .catalog: "catalog"
        }
    }

    /// What to say of the document `object`, given where a file of kind `expected` belongs, when it is of another
    /// kind; nil when it has `expected`'s own key or may be of that kind (its mistakes are then reported one by one).
    public static func misplaced(_ object: JSONObject, as expected: FileKind) -> String? {
        let keys = object.members.map(\.key)
        guard !keys.contains(expected.marker), let kind = FileKind(keys: keys) else { return nil }
        return kind.misplaced(as: expected)
    }

    /// What a file of this kind is called.
    var name: String {
        switch self {
        case .workflow: "a workflow"
        case .home: "a home description"
        case .fixture: "a fixture"
        case .catalog: "an operation catalog"
        }
    }

    /// Where a file of this kind goes.
    var use: String {
        switch self {
        case .workflow:
            "give it as the workflow to run, or name it from a fixture's \"workflow\" member (see docs/workflow-language.md)"
        case .home:
            "pass it with --home, or name it from a fixture's \"home\" member (see docs/home-format.md)"
        case .fixture: "run it with matterflow test (see docs/fixtures.md)"
        case .catalog: "pass it with --catalog (see docs/operation-catalog.md)"
        }
    }

    /// What to say of a file of this kind given where a file of kind `expected` belongs; nil when it is of that kind.
    public func misplaced(as expected: FileKind) -> String? {
        guard self != expected else { return nil }
        return "this looks like \(name), not \(expected.name); \(use)"
    }
}
