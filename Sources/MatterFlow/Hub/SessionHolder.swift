/// Who holds a structure's active commissioning session, as far as its hub knows: what a `sessionBusy` names so
/// that the person refused can act on that session (let its run finish, recover it, or release it).
///
/// Every member is optional: a hub tells what it keeps. A holder with none of them is as good as none.
public struct SessionHolder: Sendable, Hashable {
    /// The session's identifier, as `prepareCommissioning` returned it.
    public var sessionID: String?
    /// The run that opened the session (``HubCallContext/runID`` of its `prepareCommissioning`), as
    /// ``HubSessionInfo/owner`` names it.
    public var owner: String?
    /// The session's commissioning attempt (`commissionDevice`'s `commissioningID`): the one in progress, or the one
    /// whose device is pending.
    public var commissioningID: String?
    /// When the session was opened, in seconds since the Unix epoch on the hub's clock.
    public var openedAt: Double?

    /// A holder with what the hub knows of it.
    public init(sessionID: String? = nil, owner: String? = nil, commissioningID: String? = nil, openedAt: Double? = nil) {
        self.sessionID = sessionID
        self.owner = owner
        self.commissioningID = commissioningID
        self.openedAt = openedAt
    }

    /// Whether the hub told anything about the holder.
    public var isKnown: Bool {
        sessionID != nil || owner != nil || commissioningID != nil || openedAt != nil
    }

    /// The longest identifier a message quotes whole: a hub's identifiers are its own, and a message stays readable.
    static let quotedLength = 80

    private static func quoted(_ identifier: String) -> String {
        identifier.count <= quotedLength ? identifier : identifier.prefix(quotedLength) + "…"
    }

    /// What a message says of the holder after "another commissioning session is active on this structure":
    /// `, held by run R (session S, commissioning C) since T`; without an owner ` (session S, opened T)`; empty when
    /// nothing is known.
    var clause: String {
        var details = [sessionID.map { "session " + Self.quoted($0) }, commissioningID.map { "commissioning " + Self.quoted($0) }]
            .compactMap { $0 }
        let time = openedAt.map { Timestamp.text(epochSeconds: $0) }
        guard let owner else {
            if let time { details.append("opened \(time)") }
            return details.isEmpty ? "" : " (\(details.joined(separator: ", ")))"
        }
        return ", held by run \(Self.quoted(owner))" + (details.isEmpty ? "" : " (\(details.joined(separator: ", ")))")
            + (time.map { " since \($0)" } ?? "")
    }

    /// What to do about the session, for run `refused`: about the holding run (named when known), then `release`,
    /// the ways to free the session. A holder with the refused run's own ID is not another run to wait for: probably
    /// an earlier attempt of it (submitted again after a store lost the first), or another run given the same ID.
    func instructions(refusing refused: String?, release: String) -> String {
        guard let owner else { return "let the run that holds it finish, recover that run if it was interrupted, \(release)" }
        guard owner != refused else {
            return "\(Self.quoted(owner)) is this run's own ID, probably an earlier attempt of it (submitted again after the first was lost) "
                + "or another run given the same ID, whose session this attempt does not take over; \(release)"
        }
        return "let run \(Self.quoted(owner)) finish, recover it if it was interrupted, \(release)"
    }
}

extension FlowError {
    /// The `noActiveSession` guard's `sessionBusy` for a hub status whose session `holder` holds (nil, or one the
    /// hub told nothing of: the message says what to do without naming it).
    /// `refused` is the run refused, when known (a holder with its ID is said to be an earlier attempt of it).
    public static func sessionBusy(heldBy holder: SessionHolder?, refusing refused: String? = nil) -> FlowError {
        let known = holder?.isKnown == true ? holder : nil
        let release = "release the session with cancel.json, or wait for the hub to end it (the simulated home ends one after 300 s without a call; another hub, by its own rule)"
        var error = FlowError(
            .sessionBusy,
            "another commissioning session is active on this structure\(known?.clause ?? ""): \((known ?? SessionHolder()).instructions(refusing: refused, release: release))")
        error.sessionHolder = known
        return error
    }

    /// A hub's `sessionBusy` refusing `prepareCommissioning` of run `refused` (when the hub knows it): the active
    /// session's phase and its holder.
    public static func sessionBusy(phase: CommissioningSession.Phase, heldBy holder: SessionHolder, refusing refused: String? = nil) -> FlowError {
        let known = holder.isKnown ? holder : nil
        var error = FlowError(
            .sessionBusy,
            "another commissioning session is \(phase.rawValue) on this structure\(holder.clause): "
                + holder.instructions(refusing: refused, release: "release it with cancel.json, or wait for its lease to end"))
        error.sessionHolder = known
        return error
    }
}
