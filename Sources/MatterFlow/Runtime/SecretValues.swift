import MatterFlowJSON
import Synchronization

/// The secret values of one run (secret inputs and secret arguments), and their removal from what the run shows.
///
/// Declaring an input or argument secret hides its value wherever it travels: inside other arguments, warnings
/// and error messages too, not only where it was declared.
final class SecretValues: Sendable {
    /// Shorter strings are too likely to occur by chance to be redacted by value.
    static let minimumLength = 4

    private let values = Mutex<Set<String>>([])

    /// Records every string inside a value.
    func add(_ value: JSONValue) {
        switch value {
        case .string(let text) where text.count >= Self.minimumLength:
            _ = values.withLock { $0.insert(text) }
        case .array(let elements):
            elements.forEach(add)
        case .object(let object):
            object.members.forEach { add($0.value) }
        case .null, .bool, .int, .double, .string:
            break
        }
    }

    /// The text with every secret replaced by ``RunOptions/redacted``.
    func redacting(_ text: String) -> String {
        let secrets = values.withLock { $0 }
        guard !secrets.isEmpty else { return text }
        var result = text
        for secret in secrets.sorted(by: { $0.count > $1.count }) where result.contains(secret) {
            result = result.split(separator: secret, omittingEmptySubsequences: false).joined(separator: RunOptions.redacted)
        }
        return result
    }

    func redacting(_ value: JSONValue) -> JSONValue {
        switch value {
        case .string(let text): return .string(redacting(text))
        case .array(let elements): return .array(elements.map(redacting))
        case .object(let object):
            return .object(JSONObject(object.members.map { JSONObject.Member(key: $0.key, value: redacting($0.value)) }))
        case .null, .bool, .int, .double: return value
        }
    }

    func redacting(_ error: FlowError?) -> FlowError? {
        guard var error else { return nil }
        error.message = redacting(error.message)
        return error
    }

    /// The event with secrets removed from every text it carries.
    func redacting(_ kind: RunEvent.Kind) -> RunEvent.Kind {
        guard !values.withLock({ $0.isEmpty }) else { return kind }
        switch kind {
        case .runStarted(let inputs):
            return .runStarted(inputs: redacting(.object(inputs)).objectValue ?? inputs)
        case .hubCallStarted(let state, let operation, let attempt, let arguments):
            return .hubCallStarted(
                state: state, operation: operation, attempt: attempt,
                arguments: redacting(.object(arguments)).objectValue ?? arguments)
        case .guardChecked(let state, let guardName, let error):
            return .guardChecked(state: state, guard: guardName, error: redacting(error))
        case .hubCallFinished(let state, let operation, let attempt, let duration, let error):
            return .hubCallFinished(state: state, operation: operation, attempt: attempt, duration: duration, error: redacting(error))
        case .retryScheduled(let state, let attempt, let delay, let error):
            return .retryScheduled(state: state, attempt: attempt, delaySeconds: delay, error: redacting(error) ?? error)
        case .warning(let state, let message):
            return .warning(state: state, message: redacting(message))
        case .runFinished(let outcome, let error):
            return .runFinished(outcome: outcome, error: redacting(error))
        case .eventReceived(let state, let event, let value, let fields):
            return .eventReceived(
                state: state, event: event, value: value, fields: redacting(.object(fields)).objectValue ?? fields)
        case .stateEntered, .transition, .cancelRequested, .waitStarted:
            return kind
        }
    }
}
