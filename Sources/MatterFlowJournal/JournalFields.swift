import MatterFlow
import MatterFlowJSON

/// Reads the members of one journal record for ``JournalEntryCodec``, failing with a located
/// ``JournalError`` `malformedRecord`: the file, the record's sequence number and byte offset, the member (with its
/// path inside nested objects) and what to do. Values are never quoted, only short names where a type, code or
/// enumeration is expected (``shown(_:)``), so a secret cannot reach a message.
struct JournalFields {
    let object: JSONObject
    private let path: String
    private let sequence: JSONValue?
    private let recordType: JSONValue?
    private let offset: Int
    /// The member path of a nested object (`error.`, `requires[0].`); empty at the top.
    private let prefix: String

    init(record: JournalRecord, path: String) {
        self.init(
            object: record.payload, path: path, sequence: record.payload["seq"], recordType: record.payload["type"],
            offset: record.offset, prefix: "")
    }

    private init(object: JSONObject, path: String, sequence: JSONValue?, recordType: JSONValue?, offset: Int, prefix: String) {
        self.object = object
        self.path = path
        self.sequence = sequence
        self.recordType = recordType
        self.offset = offset
        self.prefix = prefix
    }

    /// The error for member `key`, which must be `wanted`; `got` describes what is there.
    func failure(_ key: String, _ wanted: String, got: String) -> JournalError {
        let record = sequence?.intValue.map { "record \($0)" } ?? "the record"
        let type = recordType?.stringValue.map { " (type \(Self.shown($0)))" } ?? ""
        return JournalError(
            .malformedRecord,
            "\(path): \(record) at byte \(offset)\(type): member \"\(prefix)\(key)\" must be \(wanted); \(got). The record "
                + "was written by another MatterFlow version or changed by hand; `matterflow history` shows the records as "
                + "they are. If a newer MatterFlow wrote it, list and recover it with that version; otherwise settle what the "
                + "run holds on the hub by hand, then move its journal file out of the journal directory (a run store keeps "
                + "such a run needsAttention)")
    }

    private func failure(_ key: String, _ wanted: String) -> JournalError {
        failure(key, wanted, got: object[key].map { "got \($0.typeName)" } ?? "it is missing")
    }

    func string(_ key: String) throws(JournalError) -> String {
        guard let value = object[key]?.stringValue else { throw failure(key, "a string") }
        return value
    }

    /// A string, or nil when the member is null or missing.
    func optionalString(_ key: String) throws(JournalError) -> String? {
        guard let value = try optionalValue(key) else { return nil }
        guard let string = value.stringValue else { throw failure(key, "a string or null") }
        return string
    }

    func int(_ key: String, in range: ClosedRange<Int>) throws(JournalError) -> Int {
        guard let value = object[key]?.intValue, range.contains(value) else {
            let bound = range.upperBound == Int.max ? "\(range.lowerBound) or more" : "in \(range.lowerBound)...\(range.upperBound)"
            throw failure(key, "an integer \(bound)", got: object[key].map { $0.intValue == nil ? "got \($0.typeName)" : "it is out of range" } ?? "it is missing")
        }
        return value
    }

    /// A finite number.
    func double(_ key: String) throws(JournalError) -> Double {
        guard let value = object[key]?.doubleValue, value.isFinite else { throw failure(key, "a finite number") }
        return value
    }

    /// A finite number, or nil when the member is null or missing.
    func optionalDouble(_ key: String) throws(JournalError) -> Double? {
        guard try optionalValue(key) != nil else { return nil }
        return try double(key)
    }

    func bool(_ key: String) throws(JournalError) -> Bool {
        guard let value = object[key]?.boolValue else { throw failure(key, "a boolean") }
        return value
    }

    /// A boolean, or nil when the member is null or missing.
    func optionalBool(_ key: String) throws(JournalError) -> Bool? {
        guard let value = try optionalValue(key) else { return nil }
        guard let bool = value.boolValue else { throw failure(key, "a boolean or null") }
        return bool
    }

    func object(_ key: String) throws(JournalError) -> JSONObject {
        guard let value = object[key]?.objectValue else { throw failure(key, "an object") }
        return value
    }

    /// Any JSON value, null included; the member must be present.
    func value(_ key: String) throws(JournalError) -> JSONValue {
        guard let value = object[key] else { throw failure(key, "present") }
        return value
    }

    /// Any JSON value but null; nil when the member is null or missing.
    func optionalValue(_ key: String) throws(JournalError) -> JSONValue? {
        guard let value = object[key], !value.isNull else { return nil }
        return value
    }

    func strings(_ key: String) throws(JournalError) -> [String] {
        guard let array = object[key]?.arrayValue else { throw failure(key, "an array of strings") }
        var strings: [String] = []
        for (index, element) in array.enumerated() {
            guard let string = element.stringValue else {
                throw failure(key, "an array of strings", got: "element \(index) is \(element.typeName)")
            }
            strings.append(string)
        }
        return strings
    }

    /// An array of strings, or nil when the member is null or missing.
    func optionalStrings(_ key: String) throws(JournalError) -> [String]? {
        guard try optionalValue(key) != nil else { return nil }
        return try strings(key)
    }

    /// An array, or nil when the member is null or missing.
    func optionalArray(_ key: String) throws(JournalError) -> [JSONValue]? {
        guard let value = try optionalValue(key) else { return nil }
        guard let array = value.arrayValue else { throw failure(key, "an array or null") }
        return array
    }

    /// The object member `key`, read with the same locating.
    func nested(_ key: String) throws(JournalError) -> JournalFields {
        JournalFields(
            object: try object(key), path: path, sequence: sequence, recordType: recordType, offset: offset, prefix: "\(prefix)\(key).")
    }

    /// Element `index` of the array member `key`, which must be an object.
    func element(_ key: String, _ index: Int) throws(JournalError) -> JournalFields {
        guard let array = object[key]?.arrayValue, index < array.count, let element = array[index].objectValue else {
            throw failure("\(key)[\(index)]", "an object", got: "it is not")
        }
        return JournalFields(
            object: element, path: path, sequence: sequence, recordType: recordType, offset: offset, prefix: "\(prefix)\(key)[\(index)].")
    }

    /// A string naming one of `names`, read as `T`.
    func enumeration<T: RawRepresentable>(_ key: String, _ type: T.Type, _ names: [String]) throws(JournalError) -> T
    where T.RawValue == String {
        let name = try string(key)
        guard let value = T(rawValue: name) else {
            throw failure(key, "one of \(names.joined(separator: ", "))", got: "got \(Self.shown(name))")
        }
        return value
    }

    /// A name read from a record, quoted when it is short printable ASCII; otherwise only described, so a damaged
    /// or hostile record cannot fill a message or a terminal.
    static func shown(_ name: String) -> String {
        guard name.utf8.count <= 40, name.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            return "a string of \(name.utf8.count) bytes"
        }
        return "\"\(name)\""
    }
}

extension JournalFields {
    /// A repeat state's iteration (`{"iteration": n}`, n within `maxIterations`' range); nil when the member is null
    /// or missing (journals written before iterations were recorded: the repeat counts from 1 again).
    func optionalRepeatIteration(_ key: String) throws(JournalError) -> Int? {
        guard try optionalValue(key) != nil else { return nil }
        return try nested(key).int("iteration", in: 1...Int(RepeatIteration.iterationLimit.upperBound))
    }

    /// A step's retries (`{"attempt", "used", "delaySeconds"}`: attempt 2 or more, one count per retrier, each within
    /// `maxRetries`' range, adding up to `attempt - 1`; the delay, when present, 0 to one day); nil when the member is null or missing (no retry yet, or a journal written
    /// before retries were recorded: the step counts its retries afresh).
    func optionalStepRetries(_ key: String) throws(JournalError) -> StepRetries? {
        guard let value = try optionalValue(key) else { return nil }
        guard let retries = StepRetries(json: value) else {
            throw failure(
                key, "an object with \"attempt\" (2 or more), \"used\" (a list of at most \(StepRetries.retrierLimit) counts, each 0-100, adding up to attempt - 1) and, optionally, \"delaySeconds\" (0-86400)",
                got: "it is not")
        }
        return retries
    }

    /// An error as records keep it (`{"code", "cause", "message", "state"}`, `state` optional); nil when the member
    /// is null or missing. Every member is required and checked: an error is never read with a default.
    func optionalFlowError(_ key: String) throws(JournalError) -> FlowError? {
        guard try optionalValue(key) != nil else { return nil }
        let error = try nested(key)
        let codeName = try error.string("code")
        guard let code = ErrorCode(rawValue: codeName) else {
            throw error.failure("code", "a canonical error code", got: "got \(JournalFields.shown(codeName))")
        }
        return FlowError(
            code: code, cause: ErrorCause(rawValue: try error.string("cause")), message: try error.string("message"),
            state: try error.optionalString("state"))
    }

    /// A map state's progress (``MapCheckpoint``), its `failure` read as strictly as any error of a record; nil when
    /// the member is null or missing.
    func optionalMapCheckpoint(_ key: String) throws(JournalError) -> MapCheckpoint? {
        guard let value = try optionalValue(key) else { return nil }
        let mapError = try nested(key).optionalFlowError("failure")
        guard var progress = MapCheckpoint(json: value) else {
            throw failure(key, "an object with \"index\" (0-10000); \"results\", or \"newResults\" with \"earlier\" (1 or more): at most one entry per element before it in all; and in \"running\" elements before it named once", got: "it is not")
        }
        progress.failure = mapError
        return progress
    }
}
