import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// The matching refspec `:`, glob refspecs (`refs/heads/*:refs/for/*`), negative refspecs
/// (`^refs/heads/wip*`) and `remote.<name>.push` with globs, side by side with `git push` on
/// identical server copies: output, exit status and the server's refs.
@Suite(.serialized) struct PushGlobTests {
    /// A scenario of its own (its local repository gets branches and configuration the other
    /// push suites do not expect): local `old` behind the server's (a non-fast-forward for
    /// matching), `wip-a` and `wip-b` for negative refspecs.
    static let served = Result { () throws -> (PushScenario, GitDaemon) in
        let scenario = try PushScenario()
        try git(["branch", "old", "main~8"], in: scenario.local)
        try git(["branch", "wip-a", "main~3"], in: scenario.local)
        try git(["branch", "wip-b", "main~1"], in: scenario.local)
        let daemon = try GitDaemon(basePath: scenario.root, extraArguments: ["--enable=receive-pack"])
        return (scenario, daemon)
    }

    static let cases: [PushCase] = [
        PushCase([], [":"]),
        PushCase([], ["+:"]),
        PushCase([], ["refs/heads/*:refs/heads/*"]),
        PushCase([], ["+refs/heads/*:refs/remotes/x/*"]),
        PushCase([], ["refs/tags/*:refs/tags/*"]),
        PushCase([], ["refs/heads/*"]),
        PushCase([], ["refs/heads/*:refs/for/*"]),
        PushCase([], ["refs/heads/m*n:refs/heads/x*y"]),
        PushCase([], ["refs/heads/*", "^refs/heads/wip*"]),
        PushCase([], ["^refs/heads/main", ":"]),
        // git 2.39 drops what a negative refspec names on the remote's side, not the local one.
        PushCase([], ["^refs/heads/feature", "refs/heads/*:refs/for/*"]),
        PushCase([], ["^refs/heads/wip-a"]),
        PushCase(["--dry-run"], ["refs/heads/*"]),
        PushCase(["--porcelain"], ["+refs/heads/*:refs/heads/*"]),
        PushCase(["--force"], ["refs/heads/*"]),
        PushCase(["--atomic"], ["refs/heads/*"]),
        PushCase(["--tags"], ["refs/heads/*"]),
        PushCase(["--follow-tags"], ["refs/heads/*:refs/for/*"]),
        // Explicit refspecs first; a pattern skips what they send to.
        PushCase([], ["main:refs/heads/old", "refs/heads/*"]),
        PushCase([], ["refs/heads/*", "feature:main"]),
        PushCase([], ["refs/heads/*:refs/heads/*", "refs/heads/*:refs/for/*"]),
        // Refused as git refuses them.
        PushCase([], [":refs/heads/*"]),
        PushCase([], ["refs/heads/*:refs/heads/x"]),
        PushCase([], ["refs/heads/*:"]),
        PushCase([], ["refs/*/*"]),
        PushCase([], ["^main:x"]),
        PushCase([], ["^"]),
        // git refuses a negative refspec that is an object id of the repository's format, and
        // takes one of the other width for a ref name.
        PushCase([], ["^" + String(repeating: "a", count: 40), "main"]),
        PushCase([], ["^" + String(repeating: "A", count: 40), "main"]),
        PushCase([], ["^" + String(repeating: "a", count: 64), "main"]),
        PushCase(["--delete"], ["refs/heads/*"]),
    ]

    @Test("file:// glob, matching and negative refspecs as git's", arguments: cases)
    func file(_ push: PushCase) throws {
        let (scenario, _) = try Self.served.get()
        try scenario.expectSameAsGit(push.options + ["file://\(scenario.served)"] + push.refspecs) {
            try Self.configure(scenario, url: nil, push: [])
        }
    }

    @Test("git:// glob, matching and negative refspecs as git's", arguments: cases)
    func daemon(_ push: PushCase) throws {
        let (scenario, daemon) = try Self.served.get()
        try scenario.expectSameAsGit(push.options + [daemon.url("served.git")] + push.refspecs) {
            try Self.configure(scenario, url: nil, push: [])
        }
    }

    static let httpCases: [PushCase] = [
        PushCase([], [":"]),
        PushCase([], ["refs/heads/*:refs/for/*"]),
        PushCase(["--porcelain"], ["+refs/heads/*:refs/heads/*"]),
        PushCase([], ["refs/heads/*", "^refs/heads/wip*"]),
        PushCase(["--dry-run"], ["refs/heads/*"]),
        PushCase(["--atomic"], ["refs/heads/*"]),
    ]

    @Test("smart HTTP (git http-backend, basic auth) glob and matching refspecs as git's", arguments: httpCases)
    func http(_ push: PushCase) throws {
        let (scenario, _) = try Self.served.get()
        let server = try HTTPServer(root: scenario.root)
        try scenario.expectSameAsGit(
            push.options + [server.url("/auth/served.git")] + push.refspecs,
            environment: PushHTTPTests.credentialEnvironment(server)
        ) {
            try Self.configure(scenario, url: nil, push: [])
        }
    }

    /// `remote.origin.push` values, and the arguments pushed with (`origin` first).
    static let configured: [PushCase] = [
        PushCase(["refs/heads/*:refs/for/*"], ["origin"]),
        PushCase(["refs/heads/*:refs/for/*"], ["origin", "feature"]),
        PushCase(["refs/heads/*:refs/for/*"], ["origin", "+feature", "main:x"]),
        PushCase(["refs/heads/*:refs/for/*"], ["--tags", "origin"]),
        PushCase(["+refs/heads/*:refs/heads/*"], ["origin"]),
        PushCase(["+refs/heads/*:refs/heads/*"], ["--dry-run", "--porcelain", "origin"]),
        PushCase([":"], ["origin"]),
        PushCase(["refs/heads/*:refs/heads/*", "^refs/heads/wip*"], ["origin"]),
        PushCase(["refs/heads/*:refs/heads/*", "^refs/heads/wip*"], ["origin", "wip-a"]),
        PushCase(["^refs/heads/feature", "refs/heads/*:refs/for/*"], ["origin", "feature"]),
        PushCase(["refs/heads/feature:refs/heads/other"], ["origin", "feature", "main"]),
        PushCase(["refs/heads/*:refs/for/*"], ["--all", "origin"]),
        // git reads every remote's push refspecs first: an invalid one stops any push.
        PushCase(["refs/heads/*:bad"], ["origin", "main"]),
    ]

    @Test("remote.origin.push with globs (file://) as git's", arguments: configured)
    func configuredFile(_ push: PushCase) throws {
        let (scenario, _) = try Self.served.get()
        try scenario.expectSameAsGit(push.refspecs) {
            try Self.configure(scenario, url: "file://\(scenario.served)", push: push.options)
        }
    }

    @Test("remote.origin.push with globs (git://) as git's", arguments: configured)
    func configuredDaemon(_ push: PushCase) throws {
        let (scenario, daemon) = try Self.served.get()
        try scenario.expectSameAsGit(push.refspecs) {
            try Self.configure(scenario, url: daemon.url("served.git"), push: push.options)
        }
    }

    /// `branch.feature.merge` values (with `branch.feature.remote=origin`; none: no remote),
    /// and the arguments pushed with under `push.default=upstream` (or `tracking`).
    static let upstreamCases: [PushCase] = [
        PushCase(["refs/heads/up"], ["origin", "feature"]),
        PushCase(["refs/heads/up"], ["origin", "refs/heads/feature", "main"]),
        PushCase(["refs/heads/up"], ["origin", "+feature"]),
        PushCase(["refs/heads/up"], ["origin", "feature:x"]),
        PushCase(["refs/heads/old"], ["origin", "feature"]),
        PushCase(["up"], ["origin", "feature"]),
        PushCase(["refs/heads/up", "refs/heads/two"], ["origin", "feature"]),
        PushCase([], ["origin", "feature"]),
        PushCase(["refs/heads/up", "tracking"], ["origin", "feature"]),
        // A configured push refspec comes first.
        PushCase(["refs/heads/up", "push=refs/heads/*:refs/for/*"], ["origin", "feature"]),
    ]

    @Test("push.default=upstream maps `git push <remote> <branch>` to its upstream, as git's", arguments: upstreamCases)
    func upstream(_ push: PushCase) throws {
        let (scenario, _) = try Self.served.get()
        try scenario.expectSameAsGit(push.refspecs) {
            let pushes = push.options.filter { $0.hasPrefix("push=") }.map { String($0.dropFirst(5)) }
            try Self.configure(scenario, url: "file://\(scenario.served)", push: pushes)
            let mode = push.options.contains("tracking") ? "tracking" : "upstream"
            try git(["config", "push.default", mode], in: scenario.local)
            let merges = push.options.filter { !$0.hasPrefix("push=") && $0 != "tracking" }
            if !merges.isEmpty { try git(["config", "branch.feature.remote", "origin"], in: scenario.local) }
            for merge in merges { try git(["config", "--add", "branch.feature.merge", merge], in: scenario.local) }
        }
    }

    @Test("an invalid remote.<name>.push stops a push to a URL too, as git's")
    func invalidConfiguredForURL() throws {
        let (scenario, _) = try Self.served.get()
        try scenario.expectSameAsGit(["file://\(scenario.served)", "main"]) {
            try Self.configure(scenario, url: "file://\(scenario.served)", push: ["refs/heads/*:refs/heads/x"])
        }
    }

    /// git's `--mirror` with `remote.<name>.push` mirrors and prunes only within those refspecs;
    /// gitwire's mirror would cover every ref and delete refs git leaves alone, so it refuses
    /// before connecting, and the server is untouched.
    @Test("--mirror with remote.<name>.push is refused, the server untouched")
    func mirrorWithConfiguredPushRefused() throws {
        let (scenario, _) = try Self.served.get()
        try scenario.reset()
        try Self.configure(scenario, url: "file://\(scenario.served)", push: ["refs/heads/main:refs/heads/main"])
        defer { try? Self.configure(scenario, url: nil, push: []) }
        let before = try scenario.serverState()
        let output = try gitwire(["push", "--mirror", "origin"], in: scenario.local)
        #expect(output.status == 128, "\(output.errorText)")
        #expect(
            output.errorText
                == "fatal: --mirror with remote.origin.push is not supported by gitwire: git would mirror only the refs those refspecs name\n"
        )
        #expect(try scenario.serverState().refs == before.refs)
    }

    /// The local repository's `origin`: at `url` (none: no such remote) with `push` refspecs, and
    /// its remote-tracking refs as a fetch from the template sets them.
    static func configure(_ scenario: PushScenario, url: String?, push: [String]) throws {
        try git(["config", "--remove-section", "remote.origin"], in: scenario.local, check: false)
        try git(["config", "--remove-section", "branch.feature"], in: scenario.local, check: false)
        try git(["config", "--unset", "push.default"], in: scenario.local, check: false)
        guard let url else { return }
        try git(["config", "remote.origin.url", url], in: scenario.local)
        // Remote-tracking refs too (compared with git's after each push), `origin/main` stale.
        try git(["config", "remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"], in: scenario.local)
        try scenario.trackOrigin()
        for spec in push { try git(["config", "--add", "remote.origin.push", spec], in: scenario.local) }
    }
}
