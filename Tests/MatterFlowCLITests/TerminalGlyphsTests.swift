import Foundation
import MatterFlowCLI
import Testing

/// The text trace under a locale that takes no UTF-8 (`LC_ALL=C`): its symbols in ASCII, not bytes a terminal
/// shows as wrong characters.
@Suite struct TerminalGlyphsTests {
    @Test("the first locale variable set decides; C, POSIX and Latin-1 take no UTF-8; none set is UTF-8")
    func whichLocaleTakesUTF8() {
        #expect(TerminalGlyphs.asciiOnly(environment: ["LC_ALL": "C"]))
        #expect(TerminalGlyphs.asciiOnly(environment: ["LANG": "POSIX"]))
        #expect(TerminalGlyphs.asciiOnly(environment: ["LC_CTYPE": "de_DE.ISO-8859-1", "LANG": "de_DE.UTF-8"]))
        #expect(!TerminalGlyphs.asciiOnly(environment: ["LC_ALL": "C.UTF-8"]))
        #expect(!TerminalGlyphs.asciiOnly(environment: ["LC_ALL": "", "LANG": "en_US.utf8"]))
        #expect(!TerminalGlyphs.asciiOnly(environment: ["LC_ALL": "en_GB.UTF-8", "LANG": "C"]))
        #expect(!TerminalGlyphs.asciiOnly(environment: [:]))
        #expect(TerminalGlyphs.ascii("  ✓ fetchRooms (0 ms) → next … ⚠ Küche") == "  ok fetchRooms (0 ms) -> next ... ! Küche")
    }

    @Test("run under LC_ALL=C writes its text trace in ASCII; under a UTF-8 locale, with its symbols")
    func theTraceFollowsTheLocale() async throws {
        let plain = try await ChildProcess.run(["run", Repository.workflow("rooms")], environment: ["LC_ALL": "C"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stderr.contains("  * fetch [action]\n") && plain.stderr.contains("# succeeded"), "\(plain.stderr)")
        let allASCII = plain.stderr.unicodeScalars.allSatisfy { $0.isASCII }
        #expect(allASCII, "\(plain.stderr)")
        let utf8 = try await ChildProcess.run(["run", Repository.workflow("rooms")], environment: ["LC_ALL": "C.UTF-8"])
        #expect(utf8.stderr.contains("  ● fetch [action]\n"), "\(utf8.stderr)")
    }
}
