import MatterFlowJSON

/// The actions fixture events may take, by name. Each entry reads the event's own members (beyond the trigger
/// and `action`), so new actions, such as border-router ones, slot in as new entries.
enum FixtureActionVocabulary {
    struct Entry: Sendable {
        var name: String
        var summary: String
        /// Reads the action's members from the event object; nil (reported) when they are wrong.
        var decode: @Sendable (ObjectReader, FixtureDecoder) -> FixtureAction?
    }

    static let entries: [Entry] = [
        Entry(name: "hubOffline", summary: "the hub goes offline") { _, _ in .setHubOnline(false) },
        Entry(name: "hubOnline", summary: "the hub comes back online") { _, _ in .setHubOnline(true) },
        Entry(name: "hubUnreachable", summary: "the hub stays online but can no longer be reached from here") { _, _ in
            .setHubReachable(false)
        },
        Entry(name: "hubReachable", summary: "the hub can be reached again") { _, _ in .setHubReachable(true) },
        Entry(name: "permissionRevoked", summary: "the user revokes the app's permission for the structure") { _, _ in
            .setPermissionGranted(false)
        },
        Entry(name: "permissionGranted", summary: "the user grants the app's permission for the structure") { _, _ in
            .setPermissionGranted(true)
        },
        Entry(name: "cancelRun", summary: "the run is cancelled (as by Ctrl-C) and takes its cancel path") { _, _ in
            .cancelRun
        },
        Entry(
            name: "commissionerConnects",
            summary:
                "a commissioner connects to `deviceID` with the issued ePSKc key or a wrong one (`key`: issued, wrong; `count` tries)"
        ) { reader, decoder in
            let deviceID = decoder.borderRouter(reader)
            let keyName = reader.string("key") ?? FixtureAction.CommissionerKey.issued.rawValue
            let key = FixtureAction.CommissionerKey(rawValue: keyName)
            if key == nil {
                decoder.collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("key"),
                    "\"key\" is \"issued\" or \"wrong\", found \"\(keyName)\"")
            }
            let count = reader.has("count") ? reader.int("count", in: NumberRange(integers: 1...100, unit: "keys")) : 1
            guard let deviceID, let key, let count else { return nil }
            return .commissionerConnects(deviceID: deviceID, key: key, count: count)
        },
        Entry(name: "commissionerPetitionAccepted", summary: "the connected commissioner's petition is accepted") {
            reader, decoder in decoder.borderRouter(reader).map(FixtureAction.commissionerPetitionAccepted)
        },
        Entry(name: "commissionerLeaves", summary: "the connected commissioner leaves; the key is spent (keyUsed)") {
            reader, decoder in decoder.borderRouter(reader).map(FixtureAction.commissionerLeaves)
        },
        Entry(
            name: "commissionerUsesKey",
            summary: "a commissioner connects with the issued key, is accepted and leaves at once (keyUsed)"
        ) { reader, decoder in decoder.borderRouter(reader).map(FixtureAction.commissionerUsesKey) },
        Entry(
            name: "epskcActivatedElsewhere",
            summary:
                "another app activates ePSKc mode on `deviceID` (`durationSeconds` optional); commissioners can use its key"
        ) { reader, decoder in
            let deviceID = decoder.borderRouter(reader)
            // The hub decides which durations it grants (0...600 s); a fixture may ask for more to see it refuse.
            let seconds = reader.int("durationSeconds", in: NumberRange(integers: 0...86_400, unit: "seconds"))
            guard !reader.has("durationSeconds") || seconds != nil else { return nil }
            return deviceID.map { .epskcActivatedElsewhere(deviceID: $0, durationSeconds: seconds) }
        },
        Entry(
            name: "epskcDeactivatedElsewhere",
            summary: "another app deactivates ePSKc mode on `deviceID`; the key ends with reason cancelled"
        ) { reader, decoder in decoder.borderRouter(reader).map(FixtureAction.epskcDeactivatedElsewhere) },
        Entry(name: "hubEventsLost", summary: "the hub's events (epskcModeDeactivated) stop reaching the run") { _, _ in
            .setHubEventsDelivered(false)
        },
        Entry(name: "hubEventsDelivered", summary: "the hub's events reach the run again") { _, _ in
            .setHubEventsDelivered(true)
        },
        Entry(name: "removeRoom", summary: "another app removes the room named `room` from the structure") { reader, _ in
            reader.nonEmptyString("room", required: true).map(FixtureAction.removeRoom)
        },
    ]

    /// Every action name, in documentation order.
    static var names: [String] { entries.map(\.name) }

    /// Decodes the action an event names, or reports an unknown name.
    static func decode(_ name: String, _ reader: ObjectReader, decoder: FixtureDecoder) -> FixtureAction? {
        guard let entry = entries.first(where: { $0.name == name }) else {
            let hint = SpellingSuggestion.hint(for: name, among: names)
            decoder.collector.error(
                FixtureDiagnosticCode.unknownAction, at: reader.pointer("action"),
                "unknown action \"\(name)\"\(hint)"
                    + (hint.isEmpty ? " (actions: \(names.joined(separator: ", ")))" : ""))
            return nil
        }
        return entry.decode(reader, decoder)
    }
}
