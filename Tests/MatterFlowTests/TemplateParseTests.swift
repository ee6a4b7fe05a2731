import Testing

@testable import MatterFlow

/// ASCII strings are read on bytes; what they give must be what reading them character by character gives,
/// errors included.
@Suite struct TemplateParseTests {
    static let texts = [
        "${vars.x}", "a ${vars.x} b", "$${vars.x}", "$$${vars.x}", "$", "$$", "${", "${}", "${vars.x", "x}${input.a}",
        "${ vars.x }", "${vars.list[0].name}", "${vars..x}", "${vars.x.}", "${nope.x}", "${vars}", "${error}", "${run}",
        "${run.id}-${input.name}", "cost: $5 {ok}", "\r\n${vars.x}\r\n", "${vars.x}${vars.y}", "$${", "${input.a-b_c9}",
        "${vars.x[}", "${vars.x[a]}", "${.x}", "${error.code}: ${error.message}", "tail $",
    ]

    @Test("bytes and characters agree", arguments: texts)
    func asciiAgreesWithCharacters(_ text: String) {
        var byteErrors: [Template.ParseError] = []
        var characterErrors: [Template.ParseError] = []
        let bytes = Template.parseASCII(text, pointer: "/p", errors: &byteErrors)
        let characters = Template.parseCharacters(text, pointer: "/p", errors: &characterErrors)
        #expect(String(describing: bytes) == String(describing: characters))
        #expect(byteErrors.map(\.message) == characterErrors.map(\.message))
        #expect(byteErrors.map(\.pointer) == characterErrors.map(\.pointer))
    }

    @Test("plain references read from bytes match the general reader", arguments: [
        "vars.x", "input.device.id", "error", "run", "run.id", "error.code", "vars.a-b.c_d.9",
    ])
    func plainReferences(_ text: String) throws {
        let reference = try Reference.parse(text)
        #expect(reference.description == text)
        // A leading space is trimmed by the general reader, which the byte reader leaves to it.
        #expect(try Reference.parse(" " + text) == reference)
    }
}
