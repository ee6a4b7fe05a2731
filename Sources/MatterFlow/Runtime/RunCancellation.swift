/// A cancel switch for one run, made before the run starts and given to it in ``RunOptions/cancellation``.
///
/// ```swift
/// let cancellation = RunCancellation()
/// var options = RunOptions(structureID: "structure-1")
/// options.cancellation = cancellation
/// options.observer = { event in
///     if case .stateEntered("commission", _) = event.kind { cancellation.cancel() }
/// }
/// let result = try await engine.run(workflow, on: hub, options: options)   // cancelled before commission runs
/// ```
///
/// A run takes its cancel path at its next chance: at once when it is between states, waiting for an event or
/// for a retry; after its hub call winds down when one is in flight. Cancelling twice, or after the run ended,
/// does nothing. Give each run its own switch.
public final class RunCancellation: Sendable {
    let signal = CancellationSignal()

    /// A switch not yet cancelled.
    public init() {}

    /// Cancels the run. `reason` says why (`SIGTERM received`, `the operator asked for it`): the run's
    /// `cancelRequested` event and its cancellation error carry it, so its journal and result say why it ended.
    public func cancel(reason: String? = nil) {
        signal.cancel(reason: reason)
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { signal.isCancelled }
}
