import GitWire
import GitWireTestSupport
import Testing

/// `Wildmatch` (and ls-remote's tail matching built on it) chooses what git chooses.
@Suite("wildmatch")
struct WildmatchTests {
    /// Tag names, valid as refs, that the patterns pick from.
    static let tagNames = [
        "v1.0", "v1.1", "v1.10", "v1.2.3", "v2.0-rc1", "v2.0-rc22", "release/1.0", "release/2.0/final", "a-b", "abc",
        "aXc", "a.c", "a]c", "x1", "x22", "Z9", "tag-with-dash", "under_score", "日本語", "ünï", "UPPER", "lower",
        "MiXeD9", "9start", "end-", "a{b}", "a#b", "!bang", "a=b", "a,b", "q%20",
    ]

    static let patterns = [
        "*", "v1.*", "v1.?", "v1.??", "v[12].*", "v[!1]*", "v[^1]*", "[a-c]*", "[!a-c]*", "*[[:digit:]]",
        "*[[:alpha:]]", "[[:upper:]]*", "[[:lower:]]*", "*[[:punct:]]*", "[[:xdigit:]]*", "[[:space:]]*",
        "[[:alnum:]]*", "[[:graph:]]*", "[[:print:]]*", "[[:cntrl:]]*", "[[:blank:]]*", "v\\1.0", "\\*", "a\\-b",
        "release/*", "release*final", "*/final", "**", "***", "a?c", "a[.]c", "a[]]c", "[]]*", "[a-]*", "[-a]*",
        "[]-a]*", "x[0-9]", "x[0-9][0-9]", "[z-a]*", "*[", "[", "[!", "[[:foo:]]*", "v1.[0-9]*", "[\\]]*", "*.*.*",
        "v*-rc?", "日*", "?", "??", "\\", "a\\", "[[:digit:][:upper:]]*", "[![:alpha:]]*", "*[!-]", "a[!]]c",
        "[\\!]*", "*\\]*", "v?.*", "*?", "?*?", "*1*0*", "[a-cx-z]*", "[^^]*", "*[[:alpha:]-]", "[[:]*",
        "[[:digit:]", "[a", "*{*", "a{b}", "q%20", "*\\%*",
    ]

    /// A bare repository with one commit, a branch and a tag for each name.
    static let repository = Result { () throws -> TemporaryDirectory in
        let directory = try TemporaryDirectory(prefix: "gitwire-wildmatch")
        let path = directory.path
        try git(["init", "-q", "--bare", path])
        var input = "commit refs/heads/main\nmark :1\ncommitter C <c@example.com> 1700000000 +0000\ndata 2\nm\n\n"
        for name in tagNames { input += "reset refs/tags/\(name)\nfrom :1\n\nreset refs/heads/b/\(name)\nfrom :1\n\n" }
        try git(["fast-import", "--quiet"], in: path, input: Array(input.utf8))
        return directory
    }

    /// `git tag -l <pattern>` matches tag names with wildmatch and no flags, whole name.
    @Test(arguments: patterns)
    func wholeNamesAsGitTagList(_ pattern: String) throws {
        let path = try Self.repository.get().path
        let listed = try git(["tag", "-l", pattern], in: path).text.split(separator: "\n").map(String.init)
        let ours = Self.tagNames.filter { Wildmatch.matches(Array(pattern.utf8), Array($0.utf8)) }
        #expect(Set(ours) == Set(listed))
    }

    /// `git ls-remote <repo> <pattern>` keeps refs whose name ends with a match (`*/<pattern>`).
    @Test(arguments: patterns)
    func nameEndingsAsGitLsRemote(_ pattern: String) throws {
        let url = "file://\(try Self.repository.get().path)"
        let all = try git(["ls-remote", url]).text.split(separator: "\n").map { String($0.split(separator: "\t")[1]) }
        let expected = try git(["ls-remote", url, pattern])
        let listed = expected.text.split(separator: "\n").map { String($0.split(separator: "\t")[1]) }
        let filter = RefFilter(patterns: [pattern])
        #expect(all.filter { filter.includes(Array($0.utf8)) } == listed)
        let actual = try gitwire(["ls-remote", url, pattern])
        #expect(actual.standardOutput == expected.standardOutput)
    }

    @Test func theRepositoryHasEveryName() throws {
        let path = try Self.repository.get().path
        let tags = try git(["tag", "-l"], in: path).text.split(separator: "\n").map(String.init)
        #expect(Set(tags) == Set(Self.tagNames))
    }

    /// Names no ref may have (with `*`, `?`, `[`, `\`, spaces), advertised by a server that does
    /// not care, and matched by git's ls-remote and gitwire's.
    @Test(arguments: [
        "\\*", "\\?", "[\\]]", "a\\ b", "*\\\\*", "[[]*", "*[*?]*", "?", "a b", "*\\[*", "[\\\\]*", "\\\\x", "*]",
        "[!*]*", "with*star", "*\\*",
    ])
    func literalSpecialCharactersAsGitLsRemote(_ pattern: String) throws {
        let names = ["with*star", "with?mark", "br[ack]et", "back\\slash", "a b", "*", "?", "]", "[", "\\x", "plain"]
        var advertisement = packet("\(HostileServer.oid) refs/heads/plain\0multi_ack\n")
        for name in names { advertisement += packet("\(HostileServer.oid) refs/x/\(name)\n") }
        let server = try FakeGitServer([.send(advertisement + flushPacket)], connections: 2)
        let expected = try git(["ls-remote", server.url(), pattern])
        let actual = try gitwire(["ls-remote", server.url(), pattern])
        #expect(actual.standardOutput == expected.standardOutput)
        #expect(actual.status == expected.status)
        let listed = expected.text.split(separator: "\n").map { String($0.split(separator: "\t")[1]) }
        let filter = RefFilter(patterns: [pattern])
        let all = ["refs/heads/plain"] + names.map { "refs/x/\($0)" }
        #expect(all.filter { filter.includes(Array($0.utf8)) } == listed)
        #expect(server.finish().count == 2)
    }
}
