import Foundation
import Testing

@testable import MatterFlow

// The loader's fast paths (path arithmetic on strings, templates and references on bytes) give exactly what the
// general code gives: diagnostics show their results.

/// The loader's path arithmetic gives exactly Foundation's answers (diagnostics show these paths), on the plain
/// paths it computes itself and on every kind it leaves to `URL`.
@Suite struct FilePathsTests {
    static let paths = [
        "/a/b/c.json", "/a/b/", "/a//b/c.json", "/a/./b/../c.json", "rel/x.json", "x.json", "./x.json", "../x.json",
        "/", "", "/a/b/c.json/", "~/x.json", "/a/b/../../../x", "//x", "/tmp", "/tmp/", "a/../../b", "/a b/c d.json",
        "/a%20b/c.json", "/a#b/c?d.json", "/é/ü.json", "/a/~b.json", "/a/.hidden.json", "/a/..b/c..json", "/a/b.",
        "/a/b/.", "/a/b/..", "/a/.../b.json", "/a\\b/c.json", "/a/b:c.json", "/x",
    ]

    static let relatives = [
        "c.json", "./c.json", "../c.json", "sub/c.json", "c.json/", "a//b.json", "", "c d.json", "x%20y.json",
        "~x.json", ".hidden", "..x", "a/./b.json", "é.json", "a#b.json", "...", "sub/../c.json",
    ]

    @Test("standard forms and directories", arguments: paths)
    func standardizedAndDirectory(_ path: String) {
        let url = URL(fileURLWithPath: path)
        #expect(FilePaths.standardized(path) == url.standardizedFileURL.path)
        #expect(FilePaths.directory(of: path) == url.deletingLastPathComponent().path)
    }

    @Test("relative paths resolved in a directory", arguments: relatives)
    func appending(_ relative: String) {
        for directory in ["/a/b", "/a/b/", "/", "/tmp", "rel", ".", "a/..", "", "/a/./b", "/a b"] {
            let expected = URL(fileURLWithPath: directory).appendingPathComponent(relative).path
            #expect(FilePaths.appending(relative, to: directory) == expected, "\(directory) + \(relative)")
        }
    }

    @Test("plain paths are the ones computed without URL")
    func plainPaths() {
        #expect(FilePaths.isPlain("/a/b/c.json"))
        #expect(!FilePaths.isPlain("/a/./c.json"))
        #expect(!FilePaths.isPlain("/a/b/"))
        #expect(!FilePaths.isPlain("a/b"))
        #expect(FilePaths.isPlainRelative("sub/c.json"))
        #expect(!FilePaths.isPlainRelative("../c.json"))
        #expect(!FilePaths.isPlainRelative("~x.json"))
    }
}

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
