import MatterFlow
import MatterFlowJSON
import Synchronization
import Testing

/// `maxBytes`: a string input, a catalog argument or a text answer may be bounded in bytes of UTF-8, as the device
/// field it fills is (a Matter NodeLabel takes 32 bytes, however few characters that is).
@Suite("byte limits on strings")
struct ByteLimitTests {
    /// 11 characters, 33 bytes of UTF-8.
    static let thirtyThreeBytes = "寝室のシーリングライト"
    /// 15 characters, 32 bytes.
    static let thirtyTwoBytes = "リビングの照明 💡 Lampe"

    @Test("commission-device refuses a device name past 32 bytes before the run starts, and takes one of exactly 32")
    func shippedDeviceName() throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device.json"))
        let payload: JSONValue = "MT:Y.K9042C00KA0648G00"
        do {
            _ = try workflow.resolveInputs(["onboardingPayload": payload, "deviceName": .string(Self.thirtyThreeBytes)], source: "--input")
            Issue.record("a 33-byte name was taken")
        } catch {
            #expect(error.diagnostics.map(\.message) == [
                #"input "deviceName" is not at most 32 bytes of UTF-8 (it takes 33 bytes, in 11 characters); shorten it (letters beyond ASCII take 2 to 4 bytes each)"#
            ])
            #expect(error.diagnostics.first?.pointer == "/deviceName")
        }
        _ = try workflow.resolveInputs(["onboardingPayload": payload, "deviceName": .string(Self.thirtyTwoBytes)], source: "--input")
    }

    @Test("a device name holding a control character (the CR a CRLF file leaves) is refused before the run starts, saying where; a room name, bounded by nothing, is not checked")
    func controlCharacters() throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device.json"))
        let payload: JSONValue = "MT:Y.K9042C00KA0648G00"
        for (name, position, code) in [("Lamp\r", 5, "U+000D"), ("De\u{1B}sk", 3, "U+001B"), ("Lamp\u{85}", 5, "U+0085")] {
            do {
                _ = try workflow.resolveInputs(["onboardingPayload": payload, "deviceName": .string(name)], source: "--input")
                Issue.record("\(name.debugDescription) was taken")
            } catch {
                #expect(error.diagnostics.map(\.message) == [
                    "input \"deviceName\" is not text without control characters, as a device keeps it (character \(position) is \(code)); "
                        + "remove it (a line read from a file with CRLF line ends keeps its CR: strip it, as `tr -d '\\r'` does)"
                ])
            }
        }
        _ = try workflow.resolveInputs(["onboardingPayload": payload, "deviceName": "Desk Lamp", "roomName": "Kitchen\r"], source: "--input")
    }

    @Test("maxBytes is for string inputs; its range is checked where it is written, and a default must meet it")
    func declarations() {
        func findings(_ input: String) -> [String] {
            diagnose(#"{"workflow": "w", "version": 1, "inputs": {"x": \#(input)}, "start": "a", "states": {"a": {"type": "succeed"}}}"#)
                .map { "\($0.code) \($0.pointer)" }
        }
        #expect(findings(#"{"type": "string", "maxBytes": 32}"#) == [])
        #expect(findings(#"{"type": "integer", "maxBytes": 32}"#) == ["invalidValue /inputs/x/maxBytes"])
        #expect(findings(#"{"type": "string", "maxBytes": 0}"#) == ["numberOutOfRange /inputs/x/maxBytes"])
        #expect(findings(#"{"type": "string", "maxBytes": 4, "default": "Küche"}"#) == ["invalidValue /inputs/x/default"])
    }

    @Test("validate refuses what maxBytes makes impossible: a literal device name past 32 bytes, a text answer's maxBytes below its minLength")
    func impossibleLimits() {
        let literal = diagnose(#"""
            {"workflow": "w", "version": 1, "start": "c", "states": {
              "c": {"type": "action", "operation": "configureDevice", "arguments": {"name": "寝室のシーリングライト"}, "next": "d"},
              "d": {"type": "succeed"}}}
            """#)
        #expect(literal.contains { $0.pointer == "/states/c/arguments/name" && $0.message.contains("takes 33 bytes of UTF-8, more than the 32") }, "\(literal)")
        // A literal ePSKc duration outside what a border router grants is refused as the call would refuse it.
        for (duration, refused) in [(601, true), (-1, true), (600, false), (0, false)] {
            let found = diagnose(#"""
                {"workflow": "w", "version": 1, "start": "e", "states": {
                  "e": {"type": "action", "operation": "activateEpskc", "arguments": {"deviceID": "br-1", "requestedDurationSeconds": \#(duration)}, "next": "d"},
                  "d": {"type": "succeed"}}}
                """#).filter { $0.pointer == "/states/e/arguments/requestedDurationSeconds" }
            #expect(found.contains { $0.message.contains("is \(duration); operation activateEpskc takes 0 to 600") } == refused, "\(duration): \(found)")
        }
        let answer = diagnose(#"""
            {"workflow": "w", "version": 1, "start": "a", "states": {
              "a": {"type": "ask", "prompt": "Name?", "answer": {"text": {"minLength": 8, "maxBytes": 4}}, "result": "n",
                    "timeoutSeconds": 60, "next": "d", "onTimeout": "d"},
              "d": {"type": "succeed"}}}
            """#)
        #expect(answer.contains { $0.pointer == "/states/a/answer/text/maxBytes" && $0.code == "invalidValue" }, "\(answer)")
    }

    @Test("a secret input past its maxBytes is refused without telling its length")
    func secretLength() throws {
        let workflow = try loadWorkflow(
            #"{"workflow": "w", "version": 1, "inputs": {"key": {"type": "string", "secret": true, "maxBytes": 8}}, "start": "a", "states": {"a": {"type": "succeed"}}}"#)
        do {
            _ = try workflow.resolveInputs(["key": "a-secret-of-22-letters"], source: "--input")
            Issue.record("a 22-byte secret was taken")
        } catch {
            let message = error.diagnostics.first?.message ?? ""
            #expect(message.contains("is not at most 8 bytes of UTF-8 (it is longer)"), "\(message)")
            #expect(!message.contains("22"), "\(message)")
        }
    }

    @Test("a catalog's string argument with maxBytes fails a longer value with invalidArgumentValue before the hub sees it")
    func catalogArgument() async throws {
        let declarations = try OperationDeclarations.parse(
            #"""
            {"catalog": "t", "version": 1, "operations": {"echoArguments": {"summary": "s", "defaultTimeoutSeconds": 5,
              "effect": "read", "arguments": {"label": {"type": "string", "required": true, "maxBytes": 32}}}}}
            """#, file: "t.catalog.json")
        let engine = WorkflowEngine(catalog: try OperationCatalog.standard.adding(declarations))
        let operation = try #require(engine.catalog["echoArguments"])
        #expect(operation.jsonValue["arguments"]?.arrayValue?.first?["maxBytes"] == 32)
        let hub = RecordingEchoHub()
        do {
            _ = try await operation.call(hub: hub, structure: "s", arguments: ["label": .string(Self.thirtyThreeBytes)])
            Issue.record("a 33-byte argument was sent")
        } catch let error as FlowError {
            #expect(error.cause == .invalidArgumentValue)
            #expect(error.message.contains("at most 32 bytes of UTF-8 and takes 33"), "\(error.message)")
            #expect(!error.message.contains(Self.thirtyThreeBytes), "the value is never quoted: it may be secret")
        }
        #expect(hub.performed.withLock { $0 }.isEmpty)
        _ = try await operation.call(hub: hub, structure: "s", arguments: ["label": .string(Self.thirtyTwoBytes)])
        #expect(hub.performed.withLock { $0 } == ["echoArguments"])
        // The built-in configureDevice bounds the name as a Matter NodeLabel.
        #expect(OperationCatalog.standard["configureDevice"]?.jsonValue["arguments"]?.arrayValue?.first?["maxBytes"] == 32)

        let misplaced = #"{"catalog": "t", "version": 1, "operations": {"o": {"summary": "s", "defaultTimeoutSeconds": 5, "effect": "read", "arguments": {"n": {"type": "integer", "maxBytes": 4}}}}}"#
        do {
            _ = try OperationDeclarations.parse(misplaced, file: "m.catalog.json")
            Issue.record("maxBytes on an integer was taken")
        } catch {
            #expect(error.diagnostics.map(\.pointer) == ["/operations/o/arguments/n/maxBytes"])
        }
    }

    @Test("a text answer with maxBytes refuses a longer one and the run keeps waiting; a choice binds the choice's own spelling")
    func answers() async throws {
        let workflow = try loadWorkflow(#"""
            {"workflow": "w", "version": 1, "start": "name", "states": {
              "name": {"type": "ask", "prompt": "Name?", "answer": {"text": {"minLength": 1, "maxLength": 32, "maxBytes": 32}},
                       "result": "name", "timeoutSeconds": 60, "next": "room", "onTimeout": "late"},
              "room": {"type": "ask", "prompt": "Room?", "answer": {"choice": {"from": ["K\u00fcche", "Bad"]}},
                       "result": "room", "timeoutSeconds": 60, "next": "done", "onTimeout": "late"},
              "done": {"type": "succeed", "output": {"name": "${vars.name}", "room": "${vars.room}"}},
              "late": {"type": "succeed", "output": "late"}
            }}
            """#)
        let handle = try WorkflowEngine().start(workflow, on: ScriptedHub(), options: RunOptions(structureID: "s", clock: ManualClock()))
        for await event in handle.events {
            guard case .questionAsked(_, let question) = event.kind else { continue }
            if question.name == "name" {
                #expect(question.schema.jsonValue["text"]?["maxBytes"] == 32)
                do {
                    try handle.answer(.text(Self.thirtyThreeBytes), to: "name")
                    Issue.record("a 33-byte answer was taken")
                } catch {
                    #expect(error.message.contains("at most 32 bytes of UTF-8, it takes 33"), "\(error.message)")
                }
                do {
                    try handle.answer(.text("Lamp\r"), to: "name")
                    Issue.record("an answer ending with a CR was taken")
                } catch {
                    #expect(error.message.contains("must hold no control character, as a device keeps it; character 5 is U+000D"), "\(error.message)")
                }
                try handle.answer(.text(Self.thirtyTwoBytes), to: "name")
            } else {
                try handle.answer(.choice("Ku\u{308}che"), to: "room")
            }
        }
        let result = await handle.result
        #expect(result.outcome == .succeeded)
        let room = try #require(result.output?["room"]?.stringValue)
        #expect(Array(room.unicodeScalars) == Array("K\u{FC}che".unicodeScalars), "the choice's spelling: \(Array(room.unicodeScalars))")
        #expect(result.output?["name"] == .string(Self.thirtyTwoBytes))
    }
}
