import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `push --prune` against `git push --prune` on identical server copies over file:// and
/// `git daemon`: output (` - [deleted]` lines, porcelain), exit status and server refs. The
/// server has `old` and `gone`, which the local repository lacks, and `main`.
@Suite(.serialized) struct PushPruneTests {
    static let scenario = Result { () throws -> (PushScenario, GitDaemon) in
        let scenario = try PushScenario()
        // A tag and a ref outside refs/heads/ and refs/tags/ the local repository lacks.
        try git(
            ["push", "--quiet", scenario.template, "main~3:refs/tags/gone-tag", "main~3:refs/other/x"],
            in: scenario.local)
        let daemon = try GitDaemon(basePath: scenario.root, extraArguments: ["--enable=receive-pack"])
        return (scenario, daemon)
    }

    @Test("--prune as git's", arguments: [false, true])
    func prune(_ daemon: Bool) throws {
        let (scenario, server) = try Self.scenario.get()
        let url = daemon ? server.url("served.git") : "file://\(scenario.served)"
        for arguments in [
            ["--prune", url, "refs/heads/*"],
            ["--prune", url, "refs/heads/*:refs/heads/*"],
            ["--prune", url, "+refs/heads/*:refs/heads/*", "^refs/heads/gone"],
            ["--prune", url, "refs/heads/*:refs/heads/x/*"],  // nothing under x/ to prune
            ["--prune", url, "refs/tags/*"],
            ["--prune", url, "main"],  // no pattern: nothing pruned
            ["--prune", url, ":"],
            ["--prune", url, "main", "refs/tags/*:refs/tags/*"],
            ["--prune", "--all", url],
            ["--prune", "--tags", url],
            ["--prune", "--mirror", url],
            ["--prune", "--dry-run", url, "refs/heads/*"],
            ["--prune", "--porcelain", url, "refs/heads/*"],
            ["--prune", "--porcelain", "--dry-run", url, "refs/heads/*"],
            ["--prune", "-v", url, "refs/heads/*"],
            ["--prune", "--atomic", url, "refs/heads/*"],
        ] {
            try scenario.expectSameAsGit(arguments)
        }
    }

    @Test("--prune with a remote's configured glob push refspec and push.default=matching")
    func configured() throws {
        let (scenario, _) = try Self.scenario.get()
        let remote = [
            "GIT_CONFIG_COUNT": "2", "GIT_CONFIG_KEY_0": "remote.dest.url", "GIT_CONFIG_VALUE_0": scenario.served,
            "GIT_CONFIG_KEY_1": "remote.dest.push", "GIT_CONFIG_VALUE_1": "refs/heads/*:refs/heads/*",
        ]
        try scenario.expectSameAsGit(["--prune", "dest"], environment: remote)
        let matching = ["GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "push.default", "GIT_CONFIG_VALUE_0": "matching"]
        try scenario.expectSameAsGit(["--prune", scenario.served], environment: matching)
    }
}
