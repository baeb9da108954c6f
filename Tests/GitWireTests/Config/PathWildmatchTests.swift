import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `Wildmatch.matches(_:_:options:)` with `.pathname` (and `.caseFold`) decides as git's
/// `wildmatch` with `WM_PATHNAME` (and `WM_CASEFOLD`) does: compared with
/// `git for-each-ref [--ignore-case] <pattern>`, which matches ref names that way (or by prefix).
@Suite("wildmatch with WM_PATHNAME")
struct PathWildmatchTests {
    static let names = [
        "a", "a/b", "a/b/c", "a/b/c/d", "ab/c", "a/bc", "A/B", "x/a/b", "x/y/a/b", "a/x/y/b", "foo/bar", "foo/baz/bar",
        "Foo/Bar", "foo.bar", "a]b", "a-b", "aXb/c", "deep/er/than/that", "v1.0", "v1/0", "é/ü", "B/a",
        "a/B", "x/a/B/c",
    ]

    static let patterns = [
        "*", "**", "***", "*/*", "**/*", "*/**", "a/*", "a/**", "a/**/d", "**/b", "**/a/b", "a/*/c", "a/**/c", "a**",
        "a**/c", "**a/b", "*/b", "a/?", "a/?/c", "?/b", "a/[bc]", "a/[!b]*", "a/[^b]*", "[a-c]/*", "[A-Z]/[a-z]",
        "foo/**/bar", "foo/*/bar", "foo/**bar", "**/bar", "foo*", "foo/*", "*/.bar", "a[]]b", "a[[]b", "a\\[b", "a[-]b",
        "[[:alpha:]]/[[:alpha:]]", "[[:upper:]]/*", "[[:lower:]]*/*", "*[[:digit:]]*", "v1.*", "v1*0", "*/0", "é/*",
        "a?b",
        "a\\ b", "a\\\\b", "star\\*name", "q\\?mark", "deep/**/that", "deep/**", "**/that", "deep/er/**/**/that",
        "a/b/",
        "a/**/", "**/", "/a", "a//b", "[", "a/[b", "a/[:x:]", "[!a]/**", "**/**/c", "a/b/c/**/**", "x/**/a/**/b",
    ]

    /// A repository with a ref `refs/w/<name>` for each name, in `packed-refs` (where `a` and
    /// `a/b` can both be).
    static let repository = Result { () throws -> TemporaryDirectory in
        let directory = try TemporaryDirectory(prefix: "gitwire-pathwildmatch")
        try git(["init", "-q", "--bare", directory.path])
        let input = "commit refs/heads/main\nmark :1\ncommitter C <c@example.com> 1700000000 +0000\ndata 2\nm\n\n"
        try git(["fast-import", "--quiet"], in: directory.path, input: Array(input.utf8))
        let id = try gitText(["rev-parse", "refs/heads/main"], in: directory.path)
        var packed = "# pack-refs with: peeled fully-peeled sorted \n"
        for name in names.map({ "refs/w/" + $0 }).sorted(by: {
            Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8))
        }) {
            packed += "\(id) \(name)\n"
        }
        try Data(packed.utf8).write(to: URL(fileURLWithPath: directory.appending("packed-refs")))
        return directory
    }

    @Test(arguments: patterns)
    func decidesAsGitDoes(_ pattern: String) throws {
        let path = try Self.repository.get().path
        let full = "refs/w/" + pattern
        for caseFold in [false, true] {
            let output = try git(
                ["for-each-ref", "--format=%(refname)"] + (caseFold ? ["--ignore-case"] : []) + [full], in: path)
            let listed = Set(output.text.split(separator: "\n").map(String.init))
            var options: Wildmatch.Options = .pathname
            if caseFold { options.insert(.caseFold) }
            let ours = Set(
                Self.names.map { "refs/w/" + $0 }.filter { name in
                    Wildmatch.matches(Array(full.utf8), Array(name.utf8), options: options)
                        || Self.prefixMatches(full, name)
                })
            #expect(ours == listed, "case fold: \(caseFold)")
        }
    }

    /// for-each-ref's other rule: the pattern is a prefix of the name ending at a `/`.
    static func prefixMatches(_ pattern: String, _ name: String) -> Bool {
        let p = Array(pattern.utf8)
        let n = Array(name.utf8)
        guard p.count <= n.count, n.starts(with: p) else { return false }
        return p.count == n.count || n[p.count] == UInt8(ascii: "/") || p.last == UInt8(ascii: "/")
    }

    /// Patterns of many stars, which take git's recursion time exponential in the stars, are
    /// decided (each state of the match is tried once), not given up on. Each answer here is
    /// plain from the pattern (git itself would not finish these in hours).
    @Test func manyStarsAreDecided() throws {
        let text = Array(String(repeating: "ab/", count: 200).utf8) + Array("c".utf8)
        let cases: [(String, Wildmatch.Options, Bool)] = [
            (String(repeating: "**/*?", count: 60) + "x", .pathname, false),
            (String(repeating: "**/*?", count: 60) + "x", [], false),
            (String(repeating: "*a", count: 150) + "x", [], false),
            (String(repeating: "**/", count: 100) + "*x", .pathname, false),
            (String(repeating: "*", count: 300) + "/x", .pathname, false),
            (String(repeating: "**/", count: 100) + "c", .pathname, true),
            (String(repeating: "*a", count: 150) + "*c", [], true),
            (String(repeating: "*a", count: 150) + "*c", .pathname, false),
            (String(repeating: "*/", count: 200) + "c", .pathname, true),
            (String(repeating: "*/", count: 201) + "c", .pathname, false),
            (String(repeating: "?*", count: 200) + "c", [], true),
        ]
        for (pattern, options, expected) in cases {
            #expect(Wildmatch.matches(Array(pattern.utf8), text, options: options) == expected, "\(pattern)")
        }
    }
}

extension PathWildmatchTests {
    /// The pattern and text of a configuration the fuzzer found: git's algorithm (each state
    /// tried again every time it is reached) gives up on it after 4 million steps (10 s in a
    /// debug build); each state tried once, it takes a twentieth of that.
    @Test func aFuzzedPatternTakesFewSteps() throws {
        let input = try FileSystem.read(
            "\(fixturesDirectory)/fuzz/config/timeout-9cc2d55a5c3ad20a65261bee1bdd75c0f1f4f1c5")
        let halves = input.split(separator: 0x0a, maxSplits: 1, omittingEmptySubsequences: false)
        for options: Wildmatch.Options in [.pathname, [.pathname, .caseFold], []] {
            let memoized = Wildmatch.steps(pattern: Array(halves[0]), text: Array(halves[1]), options: options)
            let plain = Wildmatch.steps(
                pattern: Array(halves[0]), text: Array(halves[1]), options: options, memoizing: false)
            #expect(memoized.steps < 400_000)
            #expect(plain.steps >= 4_000_000)
            #expect(!memoized.matched)
        }
    }
}
