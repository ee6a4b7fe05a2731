import Foundation
import MatterPayload
import Testing

/// Parsing reads plain ASCII text byte by byte and any other text character by character; positions must be
/// character offsets either way, and both ways must agree.
@Suite("Character offsets in ASCII and non-ASCII text")
struct CharacterOffsetTests {
    static let qr = "MT:Y.K9042C00KA0648G00"

    @Test("CR-LF and other white space around a code are trimmed", arguments: [
        "\r\n" + qr + "\r\n", " \t" + qr + "\u{0B}\u{0C}", "\u{00A0}" + qr + "\u{2003}", "\r\n3497-011-2332\r\n",
    ])
    func trimming(_ text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try OnboardingPayload.parse(text) == OnboardingPayload.parse(trimmed))
    }

    @Test("a CR-LF pair inside a code is one character at its index", arguments: [
        ("MT:Y.K9042C00KA0\r\n648G00", PayloadError.Code.invalidBase38Character, 16),
        ("3497\r\n0112332", .invalidManualCodeCharacter, 4),
        ("\u{00E9}MT:Y.K9042C00KA0\r\n648G00", .unrecognizedFormat, 0),
        ("MT:Y.K9042C00KA0648G0\u{00E9}", .invalidBase38Character, 21),
        ("MT:Y.K9042C00KA0648G0e\u{0301}", .invalidBase38Character, 21),
        ("MT:\u{00E9}*Y.K9042C00KA0648G00", .invalidBase38Character, 3),
        ("3497-011-2332\u{00E9}", .invalidManualCodeCharacter, 13),
        ("\u{1F600}\r\n3497-011-2332", .unrecognizedFormat, 0),
    ])
    func offsets(_ text: String, _ code: PayloadError.Code, _ position: Int) throws {
        let error = try #require(parseError(text))
        #expect(error.code == code)
        #expect(error.position == position)
    }

    @Test("a bad character is named by its kind, never shown")
    func characterKindOnly() throws {
        let crlf = try #require(parseError("MT:Y.K9042C00KA0\r\n648G00"))
        #expect(crlf.found == nil)
        #expect(crlf.message.contains("a line break at character 17"))
        let accent = try #require(parseError("MT:Y.K9042C00KA0648G0e\u{0301}"))
        #expect(accent.found == nil)
        #expect(accent.message.contains("a non-ASCII character"))
        #expect(!accent.message.contains("e\u{0301}"))
        let tab = try #require(parseError("MT:Y.K9042C00K\tA0648G00"))
        #expect(tab.found == nil)
        #expect(tab.message.contains("a tab at character 15"))
    }

    @Test("a code typed in full-width forms (a Japanese or Chinese input method) reads as the code it stands for")
    func fullWidth() throws {
        #expect(try OnboardingPayload.parse("３４９７\u{FF0D}０１１\u{FF0D}２３３２") == OnboardingPayload.parse("3497-011-2332"))
        #expect(try OnboardingPayload.parse("３４９７０１１２３３２") == OnboardingPayload.parse("34970112332"))
        #expect(try OnboardingPayload.parse("\u{FF2D}\u{FF34}\u{FF1A}Y.K9042C00KA0648G00") == OnboardingPayload.parse(Self.qr))
        // A wrong full-width digit is found where it stands, as an ASCII one would be.
        let error = try #require(parseError("３４９７\u{FF0D}０１１\u{FF0D}２３３３"))
        let ascii = try #require(parseError("3497-011-2333"))
        #expect(error.code == .checkDigitMismatch)
        #expect(error.position == ascii.position && error.position != nil, "\(String(describing: error.position))")
    }

    @Test("Base38.decode counts characters, not bytes")
    func base38Offsets() throws {
        let error = try #require(throws: PayloadError.self) { try Base38.decode("\u{00E9}\u{00E9}0\r\n") }
        #expect(error.code == .invalidBase38Character)
        #expect(error.position == 0)
        let later = try #require(throws: PayloadError.self) { try Base38.decode("00\r\n") }
        #expect(later.position == 2)
        #expect(later.found == nil)
    }
}
