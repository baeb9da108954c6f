import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// One way of calling ls-remote, compared between git and gitwire.
struct LsRemoteCase: CustomTestStringConvertible, Sendable {
    var repository: String
    var version: Int
    var arguments: [String]

    var testDescription: String { "v\(version) \(repository) \(arguments.joined(separator: " "))" }
}

private let flagSets: [[String]] = [
    [], ["--symref"], ["--heads"], ["--tags"], ["--refs"], ["--heads", "--tags"], ["--symref", "--refs"],
    ["--exit-code"], ["-t", "--refs", "--symref"],
]

private let patternSets: [[String]] = [
    ["main"], ["v1.1*"], ["refs/heads/*"], ["HEAD"], ["日本語-タグ"], ["b/c/*/p"], ["ünïcödé"], ["tag-of-*"],
    ["light-1?", "branch-[0-3]"], ["[!b]*-9"], ["no-such-ref"],
]

private let cases: [LsRemoteCase] = {
    var cases: [LsRemoteCase] = []
    for version in [0, 1, 2] {
        for repository in TestRepositories.names {
            for flags in flagSets {
                cases.append(LsRemoteCase(repository: repository, version: version, arguments: flags))
            }
        }
        for patterns in patternSets {
            cases.append(LsRemoteCase(repository: "big.git", version: version, arguments: patterns))
            cases.append(
                LsRemoteCase(
                    repository: "big.git", version: version, arguments: ["--exit-code", "--symref"] + patterns))
            cases.append(
                LsRemoteCase(repository: "big.git", version: version, arguments: ["--heads", "--refs"] + patterns))
        }
        cases.append(LsRemoteCase(repository: "no-such.git", version: version, arguments: []))
    }
    return cases
}()

@Suite("ls-remote command against git daemon")
struct LsRemoteCommandTests {
    @Test(arguments: cases)
    func matchesGitByteForByte(_ testCase: LsRemoteCase) throws {
        let repositories = TestRepositories.shared
        let url = repositories.daemon.url(testCase.repository)
        let options = testCase.arguments.filter { $0.hasPrefix("-") }
        let patterns = testCase.arguments.filter { !$0.hasPrefix("-") }
        let expected = try git(
            ["-c", "protocol.version=\(testCase.version)", "ls-remote"] + options + [url] + patterns, check: false)
        let actual = try gitwire(["ls-remote", "--protocol-version=\(testCase.version)"] + options + [url] + patterns)
        #expect(actual.status == expected.status, "\(actual.errorText)")
        #expect(actual.standardOutput == expected.standardOutput)
        #expect(actual.errorText == expected.errorText)
    }

    @Test(arguments: [0, 2])
    func overFileURLsAndPathsToo(version: Int) throws {
        let repositories = TestRepositories.shared
        for location in ["file://\(repositories.path("big.git"))", repositories.path("small.git")] {
            let expected = try git(["-c", "protocol.version=\(version)", "ls-remote", "--symref", location])
            let actual = try gitwire(["ls-remote", "--protocol-version=\(version)", "--symref", location])
            #expect(actual.status == 0)
            #expect(actual.standardOutput == expected.standardOutput)
        }
    }

    @Test(.enabled(if: loopbackIPv6IsAvailable, "this machine has no ::1"))
    func overIPv6() throws {
        let repositories = TestRepositories.shared
        try #require(repositories.daemon.hasIPv6)
        let url = "git://[::1]:\(repositories.daemon.port)/small.git"
        let expected = try git(["ls-remote", url])
        let actual = try gitwire(["ls-remote", url])
        #expect(actual.standardOutput == expected.standardOutput)
        #expect(actual.status == 0)
    }

    @Test func serverOptionsNeedProtocolV2() throws {
        let url = TestRepositories.shared.daemon.url("small.git")
        let expected = try git(["-c", "protocol.version=0", "ls-remote", "-o", "x", url], check: false)
        let actual = try gitwire(["ls-remote", "--protocol-version=0", "-o", "x", url])
        #expect(actual.status == 128)
        #expect(expected.status == 128)
        #expect(actual.standardOutput.isEmpty && expected.standardOutput.isEmpty)
        // git's hint and error, byte for byte.
        #expect(actual.errorText == expected.errorText)
        #expect(
            actual.errorText == "hint: see protocol.version in 'git help config' for more details\n"
                + "fatal: server options require protocol version 2 or later\n")
        let remote = try Remote(url, timeout: .seconds(30).scaledForSlowRuns)
        let error = try #require(throws: ProtocolVersionError.self) {
            try remote.lsRemoteBlocking(LsRemoteOptions(protocolVersion: .v0, serverOptions: ["x"]))
        }
        #expect(error.kind == .usage)
        #expect(error.description == "server options require protocol version 2 or later")
        let v2 = try gitwire(["ls-remote", "-o", "x", "--server-option=y", url])
        #expect(v2.status == 0)
        #expect(v2.standardOutput == (try git(["ls-remote", "-o", "x", url]).standardOutput))
    }

    /// A v2 server that does not advertise `server-option`: git's error, byte for byte.
    @Test func serverOptionsNeedAServerThatTakesThem() throws {
        let capabilities = packets(of: try ServerCaptures.v2Capabilities("small.git"))
        try #require(capabilities.contains(.text("server-option")))
        let server = try FakeGitServer(
            [.send(bytes(of: capabilities.filter { $0 != .text("server-option") })), .receiveCommand], connections: 3)
        let expected = try git(["-c", "protocol.version=2", "ls-remote", "-o", "x", server.url()], check: false)
        let actual = try gitwire(["ls-remote", "-o", "x", server.url()])
        #expect(expected.status == 128)
        #expect(actual.status == 128)
        #expect(actual.errorText == expected.errorText)
        #expect(actual.errorText == "fatal: server doesn't support 'server-option'\n")
        let error = try #require(throws: FetchError.self) {
            try Remote(server.url(), timeout: .seconds(30).scaledForSlowRuns).lsRemoteBlocking(
                LsRemoteOptions(serverOptions: ["x"]))
        }
        #expect(error.kind == .usage)
        // gitwire sends no ls-refs command the server could not take (git starts one, then stops).
        let connections = server.finish()
        try #require(connections.count == 3)
        #expect(
            connections.dropFirst().allSatisfy { $0.commands.allSatisfy { $0.text?.hasPrefix("command=") != true } })
    }

    @Test func connectionRefusedIsFatal() throws {
        let reserved = try ListeningPort.refusing()
        let port = reserved.port
        let result = try withExtendedLifetime(reserved) { try gitwire(["ls-remote", "git://127.0.0.1:\(port)/x.git"]) }
        #expect(result.status == 128)
        #expect(result.errorText.hasPrefix("fatal: unable to connect to 127.0.0.1 port \(port): "))
        #expect(result.errorText.contains("Connection refused"))
    }

    @Test func getURLPrintsTheRepository() throws {
        let result = try gitwire(["ls-remote", "--get-url", "git://example.com/repo.git"])
        #expect(result.text == "git://example.com/repo.git\n")
        #expect(result.status == 0)
    }

    @Test func helpExitsZero() throws {
        let result = try gitwire(["ls-remote", "--help"])
        #expect(result.status == 0)
        #expect(result.text.contains("--symref"))
    }

    /// Mistakes in the command line are reported as git's parse-options reports them:
    /// `error: …`, the usage, exit status 129; git's own wording where git has the option.
    @Test func badUsageIsAnError() throws {
        // No repository named, outside a repository: git's message and status.
        let outside = try TemporaryDirectory()
        let missing = try gitwire(["ls-remote"], in: outside.path)
        let gitMissing = try git(["ls-remote"], in: outside.path, check: false)
        #expect(missing.status == 128)
        #expect(gitMissing.status == 128)
        #expect(missing.errorText == "fatal: No remote configured to list refs from.\n")
        #expect(missing.errorText == gitMissing.errorText)
        for arguments in [["--bogus"], ["-x"], ["--heads=yes"]] {
            let ours = try gitwire(["ls-remote"] + arguments + ["git://127.0.0.1:1/x.git"])
            let theirs = try git(["ls-remote"] + arguments + ["git://127.0.0.1:1/x.git"], check: false)
            #expect(ours.status == 129, "\(arguments)")
            #expect(theirs.status == 129, "\(arguments)")
            // git's first line names the problem the same way; its usage lists git's options.
            #expect(ours.errorText.split(separator: "\n").first == theirs.errorText.split(separator: "\n").first)
        }
        let noValue = try gitwire(["ls-remote", "--upload-pack"])
        let gitNoValue = try git(["ls-remote", "--upload-pack"], check: false)
        #expect(noValue.status == 129)
        #expect(gitNoValue.status == 129)
        #expect(noValue.errorText.split(separator: "\n").first == "error: option `upload-pack' requires a value")
        #expect(gitNoValue.errorText.split(separator: "\n").first == "error: option `upload-pack' requires a value")
    }

    /// Long options may be shortened to any unique prefix, and flags turned off with `--no-`, as
    /// git's parse-options allows.
    @Test func abbreviatedAndNegatedOptionsWorkAsInGit() throws {
        let ours = try gitwire(["ls-remote", "--get-u", "--sym", "--no-symref", "git://example.com/r.git"])
        #expect(ours.status == 0)
        #expect(ours.text == "git://example.com/r.git\n")
        let ambiguous = try gitwire(["ls-remote", "--re", "git://example.com/r.git"])
        #expect(ambiguous.status == 129)
        #expect(ambiguous.errorText.hasPrefix("error: ambiguous option: re (could be --refs or --record)\n"))
    }

    @Test func versionAndUnknownCommands() throws {
        let version = try gitwire(["--version"])
        #expect(version.status == 0)
        #expect(version.text == "gitwire version \(GitWireInfo.version)\n")
        let unknown = try gitwire(["frobnicate"])
        #expect(unknown.status == 1)
        #expect(unknown.errorText == "gitwire: 'frobnicate' is not a gitwire command. See 'gitwire --help'.\n")
        let help = try gitwire(["help", "fetch"])
        #expect(help.status == 0)
        #expect(help.text.hasPrefix("usage: gitwire fetch [<options>] [<repository> [<refspec>...]]\n"))
    }
}
