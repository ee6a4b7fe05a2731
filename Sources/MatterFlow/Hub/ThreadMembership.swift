import ThreadDataset

/// Which Thread network a border router is on, as an explicit state machine.
///
/// ```
///                join (complete dataset)                      join, same network: alreadyJoined
///   detached ─────────────────────────────────▶ attached ◀──┐ join, other network: migrated
///   ▲   │ leave: notOnNetwork           ◀───────── │   └──────┘ (with its attached Thread devices)
///   └───┘                                leave: left
/// ```
///
/// - `join` needs a complete Active Operational Dataset; anything else is refused with `invalidDataset`, naming
///   every problem, in either state, and nothing changes.
/// - On the same network (same Extended PAN ID, channel and Network Key) a join changes nothing and reports
///   `alreadyJoined`; on another network the border router migrates, and with it the Thread devices attached to
///   it (`migrated`).
/// - `leave` detaches and forgets the dataset (the Thread stack is reset). Leaving while detached succeeds and
///   changes nothing: `notOnNetwork` (as OTBR's leave only erases the stored dataset when Thread is already off).
///
/// The network is kept as a ``ThreadNetworkRecord``: secrets never stay in the machine.
public struct ThreadMembership: Sendable, Hashable {
    /// The states.
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        case detached, attached
    }

    /// The events, one method each.
    public enum Event: String, Sendable, Hashable, CaseIterable {
        case join, leave
    }

    private enum State: Sendable, Hashable {
        case detached
        case attached(ThreadNetworkRecord)
    }

    private var state: State

    /// A border router on `network`, or on none.
    public init(network: ThreadNetworkRecord? = nil) {
        state = network.map(State.attached) ?? .detached
    }

    /// The current state.
    public var phase: Phase {
        switch state {
        case .detached: .detached
        case .attached: .attached
        }
    }

    /// The network the border router is on.
    public var network: ThreadNetworkRecord? {
        switch state {
        case .detached: nil
        case .attached(let network): network
        }
    }

    /// Joins the network of a dataset, or migrates to it.
    /// - Returns: `joined` from detached, `alreadyJoined` when on that network (same Extended PAN ID, channel and Network
    ///   Key: the router stays, and keeps this dataset's other fields, as OpenThread rewrites the active TLVs),
    ///   `migrated` when on another one.
    /// - Throws: `invalidDataset` when the dataset is not a complete active dataset; the state is unchanged.
    public mutating func join(_ dataset: OperationalDataset) throws(FlowError) -> NetworkOperationStatus {
        let record = try ThreadNetworkRecord(dataset: dataset)
        let status: NetworkOperationStatus
        switch state {
        case .detached: status = .joined
        case .attached(let current): status = current.isSameNetwork(as: dataset) ? .alreadyJoined : .migrated
        }
        state = .attached(record)
        return status
    }

    /// Leaves the network and forgets its dataset.
    /// - Returns: `left`, or `notOnNetwork` when there was none (nothing changes).
    public mutating func leave() -> NetworkOperationStatus {
        switch state {
        case .detached:
            return .notOnNetwork
        case .attached:
            state = .detached
            return .left
        }
    }

    // MARK: - Transition table

    /// Every event in every state, produced by running the events (see ``StateMachineDescription``). A move's
    /// output is the operation status.
    public static let transitionTable: StateMachineDescription = {
        let samples: [(String?, OperationalDataset)] = [
            ("a complete dataset", sampleDataset(sampleNetworkA)),
            ("a dataset without a Network Key", { var copy = sampleDataset(sampleNetworkA); copy.removeTLV(.networkKey); return copy }()),
        ]
        var rows: [StateMachineDescription.Transition] = []
        for phase in Phase.allCases {
            let start = phase == .attached
                ? ThreadMembership(network: try? ThreadNetworkRecord(dataset: sampleDataset(sampleNetworkA))) : ThreadMembership()
            for event in Event.allCases {
                switch event {
                case .leave:
                    var machine = start
                    let status = machine.leave()
                    rows.append(.init(from: phase.rawValue, event: event.rawValue, outcome: .moves(to: machine.phase.rawValue, output: status.rawValue)))
                case .join:
                    var cases = samples
                    if phase == .attached {
                        cases = [
                            ("a complete dataset of the same network", sampleDataset(sampleNetworkA)),
                            ("a complete dataset of another network", sampleDataset(sampleNetworkB)),
                        ] + samples.dropFirst()
                    }
                    for (condition, dataset) in cases {
                        var machine = start
                        let outcome: StateMachineDescription.Outcome
                        do throws(FlowError) {
                            let status = try machine.join(dataset)
                            outcome = .moves(to: machine.phase.rawValue, output: status.rawValue)
                        } catch {
                            outcome = .refused(error.cause)
                        }
                        rows.append(.init(from: phase.rawValue, event: event.rawValue, condition: condition, outcome: outcome))
                    }
                }
            }
        }
        return StateMachineDescription(
            name: "Thread membership", states: Phase.allCases.map(\.rawValue),
            initialStates: Phase.allCases.map(\.rawValue), events: Event.allCases.map(\.rawValue), transitions: rows)
    }()

    /// OpenThread's CLI documentation examples (OpenThread-5938 and OpenThread-de2b), public test networks.
    private static let sampleNetworkA =
        "0e080000000000010000000300000f35060004001fffe0020839758ec8144b07fb0708fdf1f1add0797dc00510f366cec7a446"
        + "bab978d90d27abe38f23030f4f70656e5468726561642d353933380102593804103ca67c969efb0d0c74a4d8ee923b576c0c04"
        + "02a0f7f8"
    private static let sampleNetworkB =
        "0e080000000000010000000300001635060004001fffe00208d196fa2040e973b60708fdbbc310c48f3a3905109929154dbc36"
        + "3218bcd22f907caf5c15030f4f70656e5468726561642d646532620102de2b041015b2c16f7ba92ed4bc7b1ee054f1553f0c04"
        + "02a0f7f8"

    private static func sampleDataset(_ hex: String) -> OperationalDataset {
        do {
            return try OperationalDataset(hex: hex)
        } catch {
            preconditionFailure("the sample dataset is well formed: \(error)")
        }
    }
}
