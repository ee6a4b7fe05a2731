import MatterFlowJSON

/// A kind of MatterFlow file that is not a workflow, recognised by top-level keys only that kind has, so that a
/// home description, fixture or operation catalog given where a workflow belongs is reported once
/// (`notAWorkflow`) rather than as a list of unrelated missing and unknown keys.
enum OtherFileKind {
    case home, fixture, catalog

    /// Top-level keys of a home description (docs/home-format.md) that no workflow has.
    static let homeKeys: Set<String> = [
        "structure", "permissionGranted", "rooms", "devices", "activeSession", "issuedIDs", "simulation", "thread",
    ]

    /// The kind of a document whose top-level object has these keys, or nil when it may be a workflow: it has
    /// `states`, or (for a home) a `workflow` key.
    init?(keys: [String]) {
        let keys = Set(keys)
        guard !keys.contains("states") else { return nil }
        if keys.contains("fixture") {
            self = .fixture
        } else if keys.contains("catalog"), !keys.contains("workflow") {
            self = .catalog
        } else if !keys.contains("workflow"), !keys.isDisjoint(with: Self.homeKeys) {
            self = .home
        } else {
            return nil
        }
    }

    /// What to say about a file of this kind given as a workflow.
    var message: String {
        switch self {
        case .home:
            "this looks like a home description, not a workflow; pass it with --home (see docs/home-format.md)"
        case .fixture:
            "this looks like a fixture, not a workflow; run it with matterflow test (see docs/fixtures.md)"
        case .catalog:
            "this looks like an operation catalog, not a workflow; pass it with --catalog (see docs/operation-catalog.md)"
        }
    }
}
