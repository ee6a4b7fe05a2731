/// A hub reached over a connection that can be lost for good, such as a hub in another process.
///
/// When the connection is lost during a call, nobody knows whether the call took effect: the run is in the same
/// position as one whose process crashed during the call. The journal (`MatterFlowJournal`) treats it so: it
/// keeps the call's intent without an outcome and records nothing more of the run, so that `recover` reconciles
/// the call by reading the hub and takes the run's cancel path.
public protocol ConnectedHub: Hub {
    /// Whether the connection to the hub is gone for good (every call fails with `hubUnreachable` from now on).
    var connectionLost: Bool { get }
}
