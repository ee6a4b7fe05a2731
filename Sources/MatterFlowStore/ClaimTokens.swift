import MatterFlow

/// The tokens a worker marks its claims with, and the claims whose reply it never got.
///
/// A claim is one statement; when its reply is lost (the connection broke after the commit), the runs it leased are
/// the worker's without the worker knowing. Each claim carries a new token, and the tokens of the claims that threw
/// go with the next claims (``PostgresRunStore/claim(by:limit:leaseSeconds:token:unanswered:)``), which return those
/// runs, until a claim is answered. At most ``limit`` tokens are kept: the runs of one dropped (after a long outage)
/// are taken over once their lease runs out, as a dead worker's are.
struct ClaimTokens: Sendable {
    /// How many unanswered claims are remembered.
    static let limit = 64

    private let random: any RandomSource
    /// The tokens of the claims that threw, oldest first.
    private(set) var unanswered: [String] = []

    init(random: any RandomSource) {
        self.random = random
    }

    /// A token for the next claim.
    func next() -> String {
        "claim-" + random.hexDigits(16)
    }

    /// A claim was answered: the runs of every claim that threw before it were returned by it.
    mutating func answered() {
        unanswered.removeAll()
    }

    /// The claim marked `token` threw: its runs, if it leased any, are asked for again by the next claims.
    mutating func unanswered(_ token: String) {
        unanswered.append(token)
        if unanswered.count > Self.limit { unanswered.removeFirst(unanswered.count - Self.limit) }
    }
}
