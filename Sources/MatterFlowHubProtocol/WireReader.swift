import MatterFlow
import MatterFlowJSON

/// Reads members of a JSON object received over the wire, with errors that name the message and the member.
///
/// The client reads hub results with it (a bad member is the hub's fault: `hubFailure`); the server reads request
/// params (a bad member is the caller's: `invalidArgumentValue`). Values are never quoted, so a secret argument
/// cannot leak into a message.
struct WireReader {
    /// Whose message this is, for messages: `the hub's result for prepareCommissioning`, `params of status`.
    let subject: String
    let object: JSONObject
    let cause: ErrorCause
    /// The member path so far, for nested objects (`topology.homes`).
    var path: String = ""

    init(_ value: JSONValue, subject: String, cause: ErrorCause) throws(FlowError) {
        guard let object = value.objectValue else {
            throw FlowError(cause, "\(subject) must be a JSON object, not \(value.typeName)")
        }
        self.init(object: object, subject: subject, cause: cause)
    }

    init(object: JSONObject, subject: String, cause: ErrorCause, path: String = "") {
        self.subject = subject
        self.object = object
        self.cause = cause
        self.path = path
    }

    private func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func failure(_ key: String, _ wanted: String, _ value: JSONValue?) -> FlowError {
        let got = value.map { "got \($0.typeName)" } ?? "it is missing"
        return FlowError(cause, "\(subject): member \"\(name(key))\" must be \(wanted); \(got)")
    }

    func string(_ key: String) throws(FlowError) -> String {
        guard let value = object[key]?.stringValue else { throw failure(key, "a string", object[key]) }
        return value
    }

    func optionalString(_ key: String) throws(FlowError) -> String? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let string = value.stringValue else { throw failure(key, "a string or null", value) }
        return string
    }

    func bool(_ key: String) throws(FlowError) -> Bool {
        guard let value = object[key]?.boolValue else { throw failure(key, "a boolean", object[key]) }
        return value
    }

    func optionalBool(_ key: String) throws(FlowError) -> Bool? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let bool = value.boolValue else { throw failure(key, "a boolean or null", value) }
        return bool
    }

    func int(_ key: String, in range: ClosedRange<Int>) throws(FlowError) -> Int {
        guard let value = object[key]?.intValue, range.contains(value) else {
            throw failure(key, "an integer in \(range.lowerBound)...\(range.upperBound)", object[key])
        }
        return value
    }

    func optionalInt(_ key: String, in range: ClosedRange<Int>) throws(FlowError) -> Int? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let int = value.intValue, range.contains(int) else {
            throw failure(key, "an integer in \(range.lowerBound)...\(range.upperBound) or null", value)
        }
        return int
    }

    func optionalNumber(_ key: String, in range: NumberRange) throws(FlowError) -> Double? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let number = value.doubleValue, range.contains(number) else {
            throw failure(key, "a number in \(range) or null", value)
        }
        return number
    }

    func strings(_ key: String) throws(FlowError) -> [String] {
        guard let array = object[key]?.arrayValue else { throw failure(key, "an array of strings", object[key]) }
        var strings: [String] = []
        for element in array {
            guard let string = element.stringValue else { throw failure(key, "an array of strings", element) }
            strings.append(string)
        }
        return strings
    }

    func object(_ key: String) throws(FlowError) -> WireReader {
        guard let value = object[key]?.objectValue else { throw failure(key, "an object", object[key]) }
        return WireReader(object: value, subject: subject, cause: cause, path: name(key))
    }

    func optionalObject(_ key: String) throws(FlowError) -> WireReader? {
        guard let value = object[key], !value.isNull else { return nil }
        guard let nested = value.objectValue else { throw failure(key, "an object or null", value) }
        return WireReader(object: nested, subject: subject, cause: cause, path: name(key))
    }

    func objects(_ key: String) throws(FlowError) -> [WireReader] {
        guard let array = object[key]?.arrayValue else { throw failure(key, "an array of objects", object[key]) }
        var readers: [WireReader] = []
        for (index, element) in array.enumerated() {
            guard let nested = element.objectValue else { throw failure(key, "an array of objects", element) }
            readers.append(WireReader(object: nested, subject: subject, cause: cause, path: "\(name(key))[\(index)]"))
        }
        return readers
    }

    func enumeration<T: RawRepresentable>(_ key: String, _ type: T.Type, allowed: [String]) throws(FlowError) -> T
    where T.RawValue == String {
        guard let raw = object[key]?.stringValue, let value = T(rawValue: raw) else {
            throw failure(key, "one of \(allowed.joined(separator: ", "))", object[key])
        }
        return value
    }
}
