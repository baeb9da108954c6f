import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `fetch --set-upstream` against git's: the one remote ref fetched for `FETCH_HEAD` only
/// becomes the current branch's upstream (`branch.<name>.remote`/`merge`, the config file byte
/// for byte), git's warnings otherwise (several refs, none, a tag, a remote-tracking ref, a
/// detached `HEAD`), nothing after a rejected ref. gitwire refused the option (exit 129).
extension FetchLikeGitTests {
    /// `expectSame`, and the configuration files of the two copies compared byte for byte.
    func expectSameConfig(
        _ arguments: [String], name: String, from: String? = nil, environment: [String: String] = [:]
    ) throws {
        let scenario = try Self.scenario.get()
        try expectSame(arguments, version: 2, name: name, from: from, environment: environment)
        let theirs = try String(
            contentsOfFile: scenario.directory.appending("git/\(name)/.git/config"), encoding: .utf8)
        let ours = try String(contentsOfFile: scenario.directory.appending("ours/\(name)/.git/config"), encoding: .utf8)
        #expect(
            ours.replacingOccurrences(of: scenario.directory.appending("ours/"), with: "<dir>/")
                == theirs.replacingOccurrences(of: scenario.directory.appending("git/"), with: "<dir>/"),
            "\(arguments)")
    }

    @Test func setUpstreamAsGitSetsIt() throws {
        let scenario = try Self.scenario.get()
        for (index, arguments) in [
            ["--set-upstream", "origin", "fresh"], ["--set-upstream", "-q", "origin", "refs/heads/main"],
            ["--set-upstream", "origin", "main", "fresh"], ["--set-upstream"], ["--set-upstream", "origin"],
            ["--set-upstream", "origin", "refs/tags/v2"], ["--set-upstream", "origin", "HEAD"],
            ["--set-upstream", scenario.url, "fresh"], ["--set-upstream", "origin", "rewritten:local-only"],
            ["--set-upstream", "origin", "fresh", "main:refs/remotes/origin/other"],
            ["--set-upstream", "--dry-run", "origin", "fresh"],
        ].enumerated() {
            try expectSameConfig(arguments, name: "upstream-\(index)")
        }
        try expectSameConfig(
            ["--set-upstream", "origin", "fresh"], name: "upstream-rebase",
            environment: [
                "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "branch.autoSetupRebase", "GIT_CONFIG_VALUE_0": "always",
            ])
        // A detached HEAD has no branch to set.
        let detached = scenario.directory.appending("detached-template")
        if !FileManager.default.fileExists(atPath: detached) {
            try run(["cp", "-a", scenario.template, detached])
            try git(["checkout", "-q", "--detach"], in: detached)
        }
        try expectSameConfig(["--set-upstream", "origin", "fresh"], name: "upstream-detached", from: detached)
    }
}
