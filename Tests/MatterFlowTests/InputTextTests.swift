import MatterFlow
import MatterFlowJSON
import Testing

/// `--input NAME=VALUE` read as a number or integer input: the text must be a number as JSON writes one.
@Suite struct InputTextTests {
    static let number = InputDeclaration(name: "level", type: .number, required: true)
    static let integer = InputDeclaration(name: "count", type: .integer, required: true)

    @Test("numbers as JSON writes them are read as numbers", arguments: [
        ("0", 0.0), ("-1", -1), ("1.5", 1.5), ("1e3", 1000), ("-0.25E-2", -0.0025), ("-0", 0), ("1E+2", 100),
    ])
    func jsonNumbersAreRead(text: String, value: Double) throws {
        let read = try Self.number.value(fromText: text).get()
        #expect(read == .double(value), "\(text)")
    }

    @Test("integers as JSON writes them are read as integers", arguments: [
        ("0", 0), ("-1", -1), ("1e3", 1000), ("30.0", 30), ("-0", 0), ("1.5e1", 15), ("0.0e99999999", 0),
        // Exactly, never through a Double, which would round these.
        ("9007199254740993.0", 9_007_199_254_740_993), ("-9223372036854775808", Int.min), ("9223372036854775807", Int.max),
        ("92233720368547758.07e2", Int.max), ("12345678901234567890e-1", 1_234_567_890_123_456_789),
    ])
    func jsonIntegersAreRead(text: String, value: Int) throws {
        let read = try Self.integer.value(fromText: text).get()
        #expect(read == .int(value), "\(text)")
    }

    @Test("a whole number out of Int's range, or a number with a fraction, is no integer, however close a Double would round it", arguments: [
        ("-9223372036854775809", true), ("9223372036854775808", true), ("1e19", true), ("1e99999999", true),
        ("123456789012345678.9", false), ("9007199254740993.5", false), ("1e-1", false), ("1e-99999999", false),
    ])
    func wholeNumbersAreExact(text: String, outOfRange: Bool) {
        guard case .failure(let error) = Self.integer.value(fromText: text) else {
            Issue.record("read \"\(text)\" as \(Self.integer.value(fromText: text))")
            return
        }
        #expect(error.outOfRange == outOfRange, "\(text): \(error.message)")
    }

    @Test("a number too close to 0 for a 64-bit float is refused as out of range, not read as 0; 0 itself is 0")
    func underflowIsRefused() throws {
        for text in ["1e-400", "-2.5e-999"] {
            guard case .failure(let error) = Self.number.value(fromText: text) else {
                Issue.record("read \"\(text)\" as \(Self.number.value(fromText: text))")
                continue
            }
            #expect(error.outOfRange, "\(text): \(error.message)")
        }
        #expect(try Self.number.value(fromText: "0e-400").get() == .double(0))
        #expect(try Self.number.value(fromText: "5e-324").get() == .double(.leastNonzeroMagnitude))
    }

    @Test("spellings JSON does not allow are refused, saying how JSON writes the number", arguments: [
        ("+1", "1"), (".5", "0.5"), ("1.", "1"), ("01", "1"), ("-.5", "-0.5"), ("+1.e3", "1e3"), ("00.50", "0.50"),
    ])
    func otherSpellingsAreRefused(text: String, spelling: String) {
        for declaration in [Self.number, Self.integer] {
            guard case .failure(let error) = declaration.value(fromText: text) else {
                Issue.record("\(declaration.type) input read \"\(text)\"")
                continue
            }
            let kind = declaration.type == .number ? "a number" : "an integer"
            #expect(
                error.message
                    == "input \"\(declaration.name)\" must be \(kind) written as JSON writes one, got \"\(text)\"; write \"\(spelling)\"")
            #expect(!error.outOfRange)
        }
    }

    @Test("text that is no decimal number is refused without a spelling to write", arguments: [
        "", "-", "1e", "1e+", "--1", "1.2.3", "0x10", "inf", "nan", "1_000", " 1", "1 ", "e3",
    ])
    func nonNumbersAreRefused(text: String) {
        guard case .failure(let error) = Self.number.value(fromText: text) else {
            Issue.record("read \"\(text)\"")
            return
        }
        #expect(error.message == "input \"level\" must be a number, got \"\(text)\"")
    }

    @Test("a JSON number beyond a 64-bit float or integer is out of range, not mistyped")
    func outOfRange() throws {
        guard case .failure(let float) = Self.number.value(fromText: "1e999") else {
            Issue.record("1e999 read")
            return
        }
        #expect(float.outOfRange)
        guard case .failure(let integer) = Self.integer.value(fromText: "99999999999999999999") else {
            Issue.record("99999999999999999999 read")
            return
        }
        #expect(integer.outOfRange)
    }
}

/// A secret input's text is never quoted back, whatever is wrong with it.
@Suite struct SecretInputTextTests {
    @Test(
        "a refused secret input names the input and the rule but never the text",
        arguments: [
            (InputDeclaration.InputType.integer, "020202021"), (.integer, "2020.5"), (.integer, "99999999999999999999"), (.integer, "pin-20202021"),
            (.number, "+20202021"), (.number, "1e999"), (.number, "pin-20202021"), (.boolean, "yes-20202021"),
        ])
    func refusedSecretTextIsNotShown(type: InputDeclaration.InputType, text: String) {
        let pin = InputDeclaration(name: "pin", type: type, required: true, secret: true)
        guard case .failure(let error) = pin.value(fromText: text) else {
            Issue.record("read \(text)")
            return
        }
        #expect(error.message.hasPrefix("input \"pin\" must be "))
        #expect(error.message.contains("(the input is secret)"))
        #expect(!error.message.contains("20202021") && !error.message.contains("2020.5"), "\(error.message)")
    }
}

/// JSON given as `--input` text is held to the rules of a JSON file.
@Suite struct InputJSONTextTests {
    @Test("a key repeated within one object is refused, as in a file, not resolved to the last")
    func duplicateKeysAreRefused() {
        for type in [InputDeclaration.InputType.object, .any, .array] {
            let input = InputDeclaration(name: "o", type: type, required: true)
            guard case .failure(let error) = input.value(fromText: #"[{"a": 1, "a": 2}]"#) else {
                Issue.record("\(type) took repeated keys")
                continue
            }
            #expect(error.message == #"input "o" repeats key "a" (at 1:11, first at 1:3) within one object; give each key once"#, "\(error.message)")
        }
        let secret = InputDeclaration(name: "o", type: .object, required: true, secret: true)
        guard case .failure(let error) = secret.value(fromText: #"{"hunter": 1, "hunter": 2}"#) else {
            Issue.record("took repeated keys")
            return
        }
        #expect(error.message == #"input "o" repeats a key within one object; give each key once"#)
    }

    @Test("JSON that is not read says why, with an example of the declared type; a secret's reason is not shown")
    func unreadableJSONSaysWhy() {
        let object = InputDeclaration(name: "o", type: .object, required: true)
        guard case .failure(let error) = object.value(fromText: #"{"a": 1e400}"#) else {
            Issue.record("took 1e400")
            return
        }
        #expect(error.message.contains("1e400 is beyond the largest number a file may hold"), "\(error.message)")
        #expect(error.message.hasSuffix(#"e.g. --input 'o={"key": "value"}'"#), "\(error.message)")
        let secret = InputDeclaration(name: "o", type: .array, required: true, secret: true)
        guard case .failure(let hidden) = secret.value(fromText: #"[12345678901234567890123]"#) else {
            Issue.record("took an out-of-range number")
            return
        }
        #expect(hidden.message == #"input "o" must be a JSON array, e.g. --input 'o=["a"]'"#)
    }
}
