import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `push -u`/`--set-upstream`, `push.autoSetupRemote` and `-v`/`--verbose` against `git push`
/// on identical copies of the server and of the local configuration: output (standard output
/// too: git's "set up to track" lines), exit status, server refs, remote-tracking refs, and the
/// configuration file's bytes after the push.
@Suite(.serialized) struct PushUpstreamTests {
    static let scenario = Result { () throws -> (PushScenario, String) in
        let scenario = try PushScenario()
        let base = try String(contentsOfFile: "\(scenario.local)/.git/config", encoding: .utf8)
        return (scenario, base)
    }

    /// Configuration texts added after the repository's own (and its `origin` remote).
    static let configs: [String] = [
        "",
        "# kept\n[branch \"main\"] ; odd\n  remote=elsewhere # why\n\tmerge = refs/heads/a\n\tmerge = refs/heads/b\n[Branch \"main\"]\n\tFoo = bar",
        "[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n[branch \"feature\"]\n",
        "[branch]\n\tautoSetupRebase = always\n",
    ]

    static let cases: [[String]] = [
        ["-u", "origin", "main"],
        ["-u", "origin", "HEAD"],
        ["--set-upstream", "origin", "main:other", "feature"],
        ["-u", "-q", "origin", "main"],
        ["-u", "-n", "origin", "main"],
        ["-u", "--porcelain", "origin", "main"],
        ["-u", "origin", "main:refs/tags/t", "main~1:refs/heads/z"],
        ["-u", "origin", ":gone"],
        ["-u", "origin", "main~5:main", "feature"],
        ["-u", "--all", "origin"],
        ["-v", "origin", "main"],
        ["-v", "origin", "main~4:main", "feature"],
        ["-v", "--porcelain", "origin", "main~4:main"],
        ["-q", "-v", "origin", "main~4:main"],
        ["-v", "-q", "origin", "main~4:main"],
        ["-v", "-n", "origin", "main"],
        ["-u", "-v", "origin", "main"],
    ]

    func configure(_ scenario: PushScenario, base: String, extra: String) throws {
        let text =
            base + "[remote \"origin\"]\n\turl = \(scenario.served)\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
            + extra
        try Data(text.utf8).write(to: URL(fileURLWithPath: "\(scenario.local)/.git/config"))
    }

    func expectSame(_ arguments: [String], extra: String, environment: [String: String] = [:], lock: Bool = false)
        throws
    {
        let (scenario, base) = try Self.scenario.get()
        var configs: [[UInt8]] = []
        try scenario.expectSameAsGit(
            arguments, environment: environment,
            prepare: {
                try scenario.trackOrigin()
                try configure(scenario, base: base, extra: extra)
                if lock { try Data().write(to: URL(fileURLWithPath: "\(scenario.local)/.git/config.lock")) }
            },
            inspect: {
                configs.append(try [UInt8](Data(contentsOf: URL(fileURLWithPath: "\(scenario.local)/.git/config"))))
                if lock { try FileManager.default.removeItem(atPath: "\(scenario.local)/.git/config.lock") }
            })
        #expect(configs.count == 2 && configs[0] == configs[1], "\(arguments) with \(extra.debugDescription)")
    }

    @Test("push -u and -v as git's, on each configuration", arguments: cases)
    func upstream(_ arguments: [String]) throws {
        for extra in Self.configs { try expectSame(arguments, extra: extra) }
    }

    @Test(
        "push.autoSetupRemote sets the upstream of a default push, as git's",
        arguments: ["simple", "current", "upstream", "matching"])
    func autoSetupRemote(_ mode: String) throws {
        let environment = [
            "GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "push.autoSetupRemote", "GIT_CONFIG_VALUE_0": "true",
            "GIT_CONFIG_KEY_1": "push.default", "GIT_CONFIG_VALUE_1": mode,
        ]
        try expectSame([], extra: "", environment: environment)
        try expectSame(["origin"], extra: Self.configs[2], environment: environment)
    }

    @Test("a stale config.lock: git's errors and hints, exit 0, the configuration untouched")
    func staleLock() throws {
        try expectSame(["-u", "origin", "main"], extra: "", lock: true)
    }
}
