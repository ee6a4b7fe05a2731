import MatterFlow
import MatterFlowSimulator

/// Everything one fixture run produced, for checking expectations and measuring coverage.
public struct RunObservation: Sendable {
    /// The run's result.
    public var result: RunResult
    /// Every event of the run, in order (secrets redacted).
    public var events: [RunEvent]
    /// Every call the simulated hub answered for the structure, in the order they ended.
    public var calls: [HubCallRecord]
    /// The home the run started from.
    public var initialHome: HomeDescription
    /// The home after the run.
    public var finalHome: HomeDescription
    /// When the run ended, on its virtual clock.
    public var elapsed: Duration
    /// Indices (in the fixture's `events`) of the events that happened.
    public var firedEvents: Set<Int>
    /// Why events that happened could not do what they say (a commissioner turned away), by index.
    public var refusedEvents: [Int: String]
    /// Each border router's ePSKc state after the run, by device ID.
    public var epskcPhases: [String: EpskcSession.Phase]
    /// Indices (in the fixture's `faults`) of the fault rules some call applied; nil when not observed.
    public var appliedFaults: Set<Int>?
    /// Indices (in the fixture's `customOperations`) of the rules some call applied; nil when not observed.
    public var appliedCustomOperationRules: Set<Int>?

    /// An observation; ``FixtureRunner/observe(_:)`` makes these.
    public init(
        result: RunResult, events: [RunEvent], calls: [HubCallRecord], initialHome: HomeDescription,
        finalHome: HomeDescription, elapsed: Duration, firedEvents: Set<Int>, refusedEvents: [Int: String] = [:],
        epskcPhases: [String: EpskcSession.Phase] = [:], appliedFaults: Set<Int>? = nil,
        appliedCustomOperationRules: Set<Int>? = nil
    ) {
        self.appliedFaults = appliedFaults
        self.appliedCustomOperationRules = appliedCustomOperationRules
        self.refusedEvents = refusedEvents
        self.epskcPhases = epskcPhases
        self.result = result
        self.events = events
        self.calls = calls
        self.initialHome = initialHome
        self.finalHome = finalHome
        self.elapsed = elapsed
        self.firedEvents = firedEvents
    }

    /// The devices of the final home that were not in the initial one.
    public var newDevices: [HomeDescription.Device] {
        let before = Set(initialHome.devices.map(\.id))
        return finalHome.devices.filter { !before.contains($0.id) }
    }
}
