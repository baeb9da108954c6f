import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `ConfigWriter` writes text that parses back to the same entries, and that git reads as the same
/// entries.
@Suite("config writer")
struct ConfigWriterTests {
    static func pairs(_ entries: [ConfigEntry]) -> [ListedEntry] { entries.map { ListedEntry($0) } }

    @Test(arguments: 0..<4)
    func generatedFilesRoundTripAndGitReadsTheWrittenText(_ chunk: Int) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-config-writer")
        var written = 0
        for index in (chunk * 100)..<((chunk + 1) * 100) {
            let parsed = ConfigParser.parse(ConfigParserTests.corpusFile(index))
            let text = try ConfigWriter.text(parsed.entries)
            let again = ConfigParser.parse(text)
            #expect(again.errorLine == nil, "file \(index): \(String(decoding: text, as: UTF8.self))")
            #expect(Self.pairs(again.entries) == Self.pairs(parsed.entries), "file \(index)")
            let path = directory.appending("written-\(index)")
            try Data(text).write(to: URL(fileURLWithPath: path))
            let output = try gitExactly(
                ["config", "--file", path, "--list", "-z"],
                environment: ["GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"])
            #expect(output.status == 0, "file \(index): \(output.errorText)")
            #expect(ListedEntry.parse(output.standardOutput) == Self.pairs(parsed.entries), "file \(index)")
            if !parsed.entries.isEmpty { written += 1 }
        }
        #expect(written > 30)
    }

    @Test func awkwardNamesAndValuesRoundTrip() throws {
        let entries = [
            ConfigEntry(name: "top", value: "before any section"),
            ConfigEntry(name: "a.k", value: " lead and trail "), ConfigEntry(name: "a.k", value: nil),
            ConfigEntry(name: "a.sub \"q\" \\b.k", value: "tab\tnew\nline\u{8}back\\slash\"quote"),
            ConfigEntry(name: "a..k", value: ";#"), ConfigEntry(name: "..k", value: "\r"),
            ConfigEntry(name: ".x.k", value: "a\r\nb"), ConfigEntry(name: "a.b.c.k", value: ""),
            ConfigEntry(name: "remote.Origin.url", value: "ünïcödé"), ConfigEntry(name: "x-1.k-2", value: "  "),
        ]
        let text = try ConfigWriter.text(entries)
        #expect(Self.pairs(try ConfigParser.entries(text)) == Self.pairs(entries))
        let directory = try TemporaryDirectory(prefix: "gitwire-config-writer")
        let path = directory.appending("written")
        try Data(text).write(to: URL(fileURLWithPath: path))
        let output = try gitExactly(
            ["config", "--file", path, "--list", "-z"],
            environment: ["GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"])
        #expect(ListedEntry.parse(output.standardOutput) == Self.pairs(entries))
        for unwritable in [
            [ConfigEntry(name: "a.k", value: "x"), ConfigEntry(name: "nosection", value: "y")],
            [ConfigEntry(name: "A.k", value: "x")], [ConfigEntry(name: "a.K", value: "x")],
            [ConfigEntry(name: "a.1", value: "x")],
            [ConfigEntry(name: "a.s\nb.k", value: "x")], [ConfigEntry(name: "a.k", value: "nul\u{0}")],
            [ConfigEntry(name: ".k", value: "x")], [ConfigEntry(name: "a_b.k", value: "x")],
        ] {
            #expect(throws: ConfigError.self) { try ConfigWriter.text(unwritable) }
        }
    }

    /// A subsection whose quote or backslash is followed by a combining mark: `GitConfig` escapes
    /// it all the same (a grapheme-by-grapheme escape left the quote bare, and git then read a
    /// different subsection and a stray line).
    @Test func subsectionQuoteBeforeCombiningMarkIsEscaped() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-config-subsection")
        let subsection = "a\"\u{301}] x = y\\\u{301}"
        let text = GitConfig([GitConfig.Section("remote", subsection, [("url", "u")])]).text
        let path = directory.appending("config")
        try Data(text).write(to: URL(fileURLWithPath: path))
        let output = try gitExactly(
            ["config", "--file", path, "--list", "-z"],
            environment: ["GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"])
        #expect(output.status == 0, "\(output.errorText)")
        #expect(ListedEntry.parse(output.standardOutput) == [ListedEntry(name: "remote.\(subsection).url", value: "u")])
    }

    /// The writer quotes values exactly as the clone's `GitConfig` writes them, so either can
    /// write a repository's `config`.
    @Test func valuesQuotedAsGitConfigQuotesThem() throws {
        let values = [
            "plain", " leading", "trailing ", "semi;colon", "hash#", "quote\"d", "back\\slash", "tab\there",
            "new\nline",
            "cr\rhere", "", " ", "back\u{8}space", "ünï", "a = b", "\"", "\\", "x\\", "#", ";",
        ]
        let section = GitConfig.Section(
            "test", "sub \"x\" \\y", values.enumerated().map { ("key\($0.offset)", $0.element) })
        let entries = values.enumerated().map {
            ConfigEntry(name: "test.sub \"x\" \\y.key\($0.offset)", value: $0.element)
        }
        #expect(try ConfigWriter.text(entries) == GitConfig([section]).text)
        #expect(
            try ConfigWriter.text([ConfigEntry(name: "core.bare", value: "true")])
                == GitConfig([GitConfig.Section("core", nil, [("bare", "true")])]).text)
    }
}
