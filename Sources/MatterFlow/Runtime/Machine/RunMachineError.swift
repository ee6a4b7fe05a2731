/// An input a ``RunMachine`` cannot take in its current phase: the driver feeding it has lost track of the run.
///
/// The error names the phase and the input, so a driver's mistake reads as what it is (for example a call's end
/// fed while the run waits for an event). The machine is left as it was.
struct RunMachineError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable codes, one per kind of refusal.
    enum Code: String, Sendable, Hashable {
        /// The input does not belong to the phase the run is in.
        case impossibleInput
    }

    let code: Code
    /// The phase the machine was in (``RunMachine/phaseName``).
    let phase: String
    /// The input that was refused (``RunMachine/Input``).
    let input: String

    var description: String {
        "error[\(code.rawValue)]: the run machine cannot take \(input) while \(phase); the driver fed an input out of order"
    }
}
