import MatterFlow
import MatterFlowJSON
import Testing

/// Inputs may declare `minimum`, `maximum` (numbers) and `enum` (values): a value outside them is refused before
/// the run starts, naming the input; a default must meet them; the declarations are checked where they are written.
@Suite struct InputConstraintTests {
    static let text = #"""
        {"workflow": "c", "version": 1,
         "inputs": {"seconds": {"type": "integer", "minimum": 0, "maximum": 600, "default": 120},
                    "option": {"type": "string", "enum": ["none", "all"]}, "count": {"type": "integer", "minimum": 1},
                    "code": {"type": "string", "secret": true, "enum": ["first-secret-value", "second-secret-value"]}},
         "start": "a", "states": {"a": {"type": "succeed", "output": {"seconds": "${input.seconds}", "option": "${input.option}"}}}}
        """#

    func problems(_ inputs: JSONObject) throws -> [String] {
        let workflow = try WorkflowEngine().load(text: Self.text, baseDirectory: "/")
        do {
            _ = try workflow.resolveInputs(inputs, source: "--input")
            return []
        } catch {
            return error.diagnostics.map(\.message)
        }
    }

    @Test("values within the bounds and among the allowed ones are taken; others are refused naming the input")
    func boundsAndAllowedValues() throws {
        #expect(try problems(["seconds": 600, "option": "all"]) == [])
        #expect(try problems(["seconds": 0]) == [])
        #expect(try problems(["seconds": 601]).first?.contains("input \"seconds\" is not a number in 0...600 (601 is outside it)") == true)
        #expect(try problems(["seconds": -1]).first?.contains("0...600") == true)
        #expect(try problems(["option": "some"]).first?.contains(#"is not one of "none", "all" ("some" is none of them)"#) == true)
        // A number too large for any integer, typed on the command line, is told the declared range, not the type's.
        let workflow = try WorkflowEngine().load(text: Self.text, baseDirectory: "/")
        let huge = try #require(workflow.inputs.first { $0.name == "seconds" }).value(fromText: "99999999999999999999")
        guard case .failure(let error) = huge else {
            Issue.record("a number past any integer was taken")
            return
        }
        #expect(error.message == #"input "seconds" must be an integer in 0...600, got "99999999999999999999"; give a value in 0...600"#, "\(error.message)")
        // With one bound declared, the other is the type's own: the number is refused for being past it.
        if case .failure(let above) = try #require(workflow.inputs.first { $0.name == "count" }).value(fromText: "99999999999999999999") {
            #expect(above.message.hasSuffix("give a value in 1...\(Int.max)"), "\(above.message)")
        } else {
            Issue.record("a number past any integer was taken")
        }
        let secret = try problems(["code": "third-secret-value"])
        #expect(secret.first?.contains("is none of them") == true, "\(secret)")
        #expect(secret.first?.contains("third-secret-value") == false, "a secret value is never quoted")
    }

    @Test("a value near an allowed one is told the one it may have meant; a secret's is not")
    func allowedValueHint() throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow("internet-access.json"))
        do {
            _ = try workflow.resolveInputs(["option": "nat64"], source: "--input")
            Issue.record("nat64 was taken")
        } catch {
            #expect(
                error.diagnostics.map(\.message) == [
                    #"input "option" is not one of "none", "all", "nat64Only", "dhcpv6PdOnly" ("nat64" is none of them); give one of "none", "all", "nat64Only", "dhcpv6PdOnly" (did you mean "nat64Only"?)"#
                ])
        }
        #expect(try problems(["option": "everything"]).first?.contains("did you mean") == false)
        #expect(try problems(["option": "al"]).first?.hasSuffix(#"(did you mean "all"?)"#) == true)
        let secret = try problems(["code": "first-secret-valve"])
        #expect(secret.first?.contains("is none of them") == true, "\(secret)")
        #expect(secret.first?.contains("did you mean") == false, "a near allowed value would give the secret away: \(secret)")
    }

    @Test("a manual code written as a JSON number is one error, saying what the input holds and to quote it")
    func aPayloadGivenAsANumber() throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device.json"))
        for number: JSONValue in [34_970_112_332, 5] {
            do {
                _ = try workflow.resolveInputs(["onboardingPayload": number, "deviceName": "Lamp"], source: "inputs.json")
                Issue.record("a number was taken as an onboarding payload")
            } catch {
                #expect(error.diagnostics.map(\.message) == [
                    #"input "onboardingPayload" must be a string holding a QR code (MT:...) or a manual pairing code, got integer; write the code in quotes, as a string"#,
                ])
            }
        }
    }

    @Test("the declarations are checked where they are written")
    func declarationsAreChecked() {
        let found = diagnose(#"""
            {"workflow": "c", "version": 1,
             "inputs": {"d": {"type": "string", "minimum": 0}, "e": {"type": "integer", "minimum": 5, "maximum": 1, "enum": [1]},
                        "f": {"type": "integer", "enum": ["x"]}, "g": {"type": "integer", "maximum": 10, "default": 11},
                        "h": {"type": "string", "enum": []}},
             "start": "a", "states": {"a": {"type": "succeed"}}}
            """#).map { "\($0.pointer): \($0.message)" }
        #expect(found.count == 5, "one finding each, no spurious unknown key: \(found)")
        #expect(found.contains { $0.hasPrefix("/inputs/d/minimum: \"minimum\" applies to integer and number inputs") })
        #expect(found.contains { $0.hasPrefix("/inputs/e/minimum: input \"e\" has minimum 5 above its maximum 1") })
        #expect(found.contains { $0.hasPrefix("/inputs/f/enum/0: each value of \"enum\" must be integer") })
        #expect(found.contains { $0.hasPrefix("/inputs/g/default: the default of input \"g\" is not a number in ...10") })
        #expect(found.contains { $0.hasPrefix("/inputs/h/enum: \"enum\" must be a non-empty list") })
    }

    @Test("setInternetAccess refuses unspecified, the value a structure reads before any policy is set")
    func unspecifiedIsNotAPolicy() async throws {
        let operation = try #require(OperationCatalog.standard["setInternetAccess"])
        await #expect(throws: FlowError.self) {
            _ = try await operation.call(hub: ScriptedHub(), structure: "s", arguments: ["option": "unspecified"])
        }
        do {
            _ = try await operation.call(hub: ScriptedHub(), structure: "s", arguments: ["option": "unspecified"])
        } catch let error as FlowError {
            #expect(error.cause == .invalidArgumentValue)
            #expect(error.message.contains("not a policy to set"))
        }
    }
}
