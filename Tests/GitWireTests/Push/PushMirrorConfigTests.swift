import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `remote.<name>.mirror = true`: git's push to that remote (by name, or as the default
/// destination) is a `--mirror` push, with `--mirror`'s refusals (refspecs, `--tags`, `--all`)
/// in git's words and order; a push to its URL is not. Compared with `git push` on identical
/// copies of the server: output, exit status, the server's refs, the local remote-tracking refs.
@Suite(.serialized) struct PushMirrorConfigTests {
    static let scenario = Result { () throws -> PushScenario in
        let scenario = try PushScenario()
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        try git(["config", "remote.origin.mirror", "true"], in: scenario.local)
        return scenario
    }

    static let cases: [[String]] = [
        ["origin"],
        [],
        ["--dry-run", "origin"],
        ["--porcelain", "origin"],
        ["--force-with-lease", "origin"],
        ["origin", "main"],
        ["--tags", "origin"],
        ["--all", "origin"],
        ["--all", "--tags", "origin"],
        ["--mirror", "--tags", "origin", "main"],
        ["--all", "--mirror", "origin"],
        ["--all", "--tags", "--mirror", "origin", "main"],
    ]

    @Test("remote.<name>.mirror makes the push a mirror, as git's", arguments: cases)
    func mirror(_ arguments: [String]) throws {
        let scenario = try Self.scenario.get()
        try scenario.expectSameAsGit(arguments) { try scenario.trackOrigin() }
    }

    @Test("a push to the remote's URL, or with mirror false, is no mirror, as git's")
    func notMirror() throws {
        let scenario = try Self.scenario.get()
        try scenario.expectSameAsGit([scenario.served, "main"]) { try scenario.trackOrigin() }
        let off = ["GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "remote.origin.mirror", "GIT_CONFIG_VALUE_0": "false"]
        try scenario.expectSameAsGit(["origin", "main"], environment: off) { try scenario.trackOrigin() }
    }

    /// git mirrors only within `remote.<name>.push` then; gitwire's mirror would cover every ref,
    /// so it refuses, as it refuses `--mirror` with configured push refspecs, and sends nothing.
    @Test("remote.<name>.mirror with remote.<name>.push is refused, the server untouched")
    func withPushRefspecs() throws {
        let scenario = try Self.scenario.get()
        try scenario.reset()
        try scenario.trackOrigin()
        let before = try scenario.serverState()
        let environment = [
            "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "remote.origin.push",
            "GIT_CONFIG_VALUE_0": "refs/heads/*:refs/heads/*",
        ]
        let ours = try gitwire(
            ["push", "origin"], in: scenario.local,
            environment: reproducibleGitEnvironment.merging(environment) { $1 })
        #expect(ours.status == 128)
        #expect(ours.errorText.hasPrefix("fatal: --mirror with remote.origin.push is not supported by gitwire"))
        #expect(try scenario.serverState() == before)
    }
}
