import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `url.<base>.insteadOf` and `pushInsteadOf` rewrite as git rewrites: compared with
/// `git ls-remote --get-url` and `git remote get-url [--push] --all` on generated configurations
/// with overlapping prefixes, ties, repeated bases and empty prefixes.
@Suite("url rewriting")
struct URLRewriteTests {
    static let bases = [
        "https://example.org/", "git@example.org:", "ssh://git@example.org/", "https://mirror.example/",
        "file:///srv/", "https://example.org/group/", "",
    ]
    static let prefixes = [
        "gh:", "gh:group/", "gh:group", "https://example.org/", "https://example.org/group/", "https://", "g", "",
        "git@example.org:", "ex:", "e", "https://example.org/group/project.git",
    ]
    static let urls = [
        "gh:group/project.git", "gh:other", "https://example.org/group/project.git", "https://example.org/x",
        "git@example.org:group/project.git", "ex:thing", "elsewhere", "gh", "https://unrelated.example/a",
        "file:///tmp/x", "",
    ]

    /// A configuration of rewrites (for the global file) and remotes (for the repository's, where
    /// `git remote` looks for them) made from `seed`.
    static func configuration(_ seed: Int) -> (rewrites: String, remotes: String) {
        var generator = SeededGenerator(seed: UInt64(seed) &* 7919 &+ 3)
        var text = ""
        for _ in 0..<Int.random(in: 1...7, using: &generator) {
            let base = bases.randomElement(using: &generator)!
            text += "[url \"\(base)\"]\n"
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let key = Int.random(in: 0..<3, using: &generator) == 0 ? "pushInsteadOf" : "insteadOf"
                text += "\t\(key) = \"\(prefixes.randomElement(using: &generator)!)\"\n"
            }
        }
        var remotes = "[core]\n\trepositoryformatversion = 0\n"
        for name in ["one", "two", "three"] {
            remotes += "[remote \"\(name)\"]\n"
            for _ in 0..<Int.random(in: 1...2, using: &generator) {
                remotes += "\turl = \(urls.dropLast().randomElement(using: &generator)!)\n"
            }
            for _ in 0..<Int.random(in: 0...2, using: &generator) {
                remotes += "\tpushurl = \(urls.dropLast().randomElement(using: &generator)!)\n"
            }
        }
        return (text, remotes)
    }

    static func lines(_ output: ProcessOutput) -> [String] {
        output.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    @Test(arguments: 0..<8)
    func rewritesAsGit(_ chunk: Int) throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-insteadof")
        let repository = directory.appending("repo")
        try GitWireTestSupport.git(["init", "-q", repository])
        for seed in (chunk * 10)..<((chunk + 1) * 10) {
            let (rewrites, remotes) = Self.configuration(seed)
            let text = rewrites + remotes
            let global = directory.appending("global")
            try writeConfigFile(global, rewrites)
            try writeConfigFile("\(repository)/.git/config", remotes)
            let environment = configEnvironment(home: directory.path, extra: ["GIT_CONFIG_GLOBAL": global])
            let configuration = try GitConfiguration.load(
                gitDirectory: "\(repository)/.git", environment: environment)
            for url in Self.urls {
                let output = try gitExactly(["ls-remote", "--get-url", url], environment: environment, in: repository)
                #expect(try configuration.rewrittenURL(url) + "\n" == output.text, "seed \(seed) url \(url):\n\(text)")
            }
            for name in ["one", "two", "three"] {
                let fetch = try gitExactly(
                    ["remote", "get-url", "--all", name], environment: environment, in: repository)
                let push = try gitExactly(
                    ["remote", "get-url", "--push", "--all", name], environment: environment, in: repository)
                let ours = try #require(try configuration.remoteURLs(named: name))
                #expect(ours.urls == Self.lines(fetch), "seed \(seed) remote \(name):\n\(text)")
                #expect(ours.pushURLs == Self.lines(push), "seed \(seed) remote \(name) push:\n\(text)")
            }
        }
    }

    @Test func longestPrefixWinsAndTiesGoToTheFirstBase() throws {
        let entries = try ConfigParser.entries(
            Array(
                """
                [url "first:"]
                \tinsteadOf = ab
                [url "second:"]
                \tinsteadOf = ab
                \tinsteadOf = abc
                [url "third:"]
                \tinsteadOf = ab
                \tpushInsteadOf = a
                [url "first:"]
                \tinsteadOf = x

                """.utf8))
        let rewrites = try URLRewrites(entries)
        #expect(rewrites.rewritten("abz") == "first:z")
        #expect(rewrites.rewritten("abcd") == "second:d")
        #expect(rewrites.rewritten("xy") == "first:y")
        #expect(rewrites.rewritten("zz") == "zz")
        #expect(rewrites.rewrittenForPush("abc") == "third:bc")
        #expect(rewrites.rewrittenForPush("zz") == nil)
        #expect(throws: ConfigError.self) {
            try URLRewrites(try ConfigParser.entries(Array("[url \"a\"]\ninsteadOf\n".utf8)))
        }
        #expect(URLRewrites().rewritten("anything") == "anything")
    }

    /// An `insteadOf` with no value stops git at that variable, with git's message.
    @Test func aValuelessInsteadOfIsRefusedAsGitRefusesIt() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-insteadof")
        let global = directory.appending("global")
        try writeConfigFile(global, "[url \"x:\"]\n\tinsteadOf = y\n\tinsteadOf\n")
        let environment = configEnvironment(home: directory.path, extra: ["GIT_CONFIG_GLOBAL": global])
        let output = try gitExactly(["ls-remote", "--get-url", "y"], environment: environment, in: directory.path)
        let configuration = try GitConfiguration.load(environment: environment)
        #expect(throws: ConfigError.self) { try configuration.rewrittenURL("y") }
        do {
            _ = try configuration.rewrittenURL("y")
        } catch {
            #expect(error.description == fatalMessage(output))
            #expect(error.reason == firstDiagnostic(output))
        }
    }
}
