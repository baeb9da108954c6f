import Foundation
import GitWire
import GitWireTestSupport
import Testing

@Suite(.serialized) struct PushLiveTests {
    static let daemonScenario = Result { () throws -> (PushScenario, GitDaemon) in
        let scenario = try PushScenario()
        try scenario.hook("post-receive", "echo \"post-receive: $(cat | wc -l) refs\"")
        let daemon = try GitDaemon(basePath: scenario.root, extraArguments: ["--enable=receive-pack"])
        return (scenario, daemon)
    }

    static let cases: [PushCase] = [
        PushCase([], ["main", "feature", "v1", "light"]),
        PushCase([], ["main", ":old"]),
        PushCase([], ["feature:main"]),
        PushCase([], ["+feature:main", "v1:refs/tags/light"]),
        PushCase([], ["main:gone", "feature:old"]),
        PushCase(["--delete"], ["old", "gone"]),
        PushCase(["--porcelain"], ["main", "feature:old"]),
        PushCase(["--dry-run"], ["main", "feature"]),
        PushCase(["--atomic"], ["main", "feature:old"]),
        PushCase(["-o", "ci.skip", "-o", "two words"], ["main"]),
        PushCase(["--force"], ["feature:main", "main:refs/notes/x"]),
        PushCase(["--tags"], []),
        PushCase(["--all"], []),
        PushCase([], ["nonexistent"]),
        PushCase([], ["main:weird"]),
        PushCase(["-q"], ["main"]),
        PushCase([], ["gone"]),
    ]

    @Test("file:// pushes print, exit and update the server as git's", arguments: cases)
    func file(_ push: PushCase) throws {
        let (scenario, _) = try Self.daemonScenario.get()
        try scenario.expectSameAsGit(push.options + ["file://\(scenario.served)"] + push.refspecs)
    }

    @Test("git:// pushes (git daemon --enable=receive-pack) as git's", arguments: cases)
    func daemon(_ push: PushCase) throws {
        let (scenario, daemon) = try Self.daemonScenario.get()
        try scenario.expectSameAsGit(push.options + [daemon.url("served.git")] + push.refspecs)
    }

    /// An atomic push with a ref refused here (non-fast-forward, a stale lease) stops before its commands as git's send-pack stops: git's `error: atomic push
    /// failed for ref <ref>. status: <n>` line and a blank one, the connection closed without a
    /// flush, the other refs failed with it. Over git:// the daemon keeps receive-pack's "hung
    /// up" to itself; over file:// it comes after send-pack's error lines, as git prints them
    /// before closing the connection; over smart HTTP git stops before running send-pack.
    @Test(
        "--atomic with a ref refused locally stops as git's send-pack stops",
        arguments: [
            ["--atomic", "main", "main~7:old"],
            ["--atomic", "main~7:old", "main"],
            ["--atomic", "--porcelain", "main", "main~7:old"],
            ["--atomic", "--dry-run", "main", "main~7:old"],
            ["--atomic", "--force-with-lease=old:main", "main", "feature:old"],
        ])
    func atomicRefusedLocally(_ arguments: [String]) throws {
        let (scenario, daemon) = try Self.daemonScenario.get()
        let url = daemon.url("served.git")
        let options = arguments.filter { $0.hasPrefix("-") }
        let refspecs = arguments.filter { !$0.hasPrefix("-") }
        try scenario.expectSameAsGit(options + [url] + refspecs)
        try scenario.expectSameAsGit(options + ["file://\(scenario.served)"] + refspecs)
        // Over smart HTTP git's push stops before its helper runs send-pack: no error line.
        let server = try HTTPServer(root: scenario.root)
        try scenario.expectSameAsGit(options + [server.url("/git/served.git")] + refspecs)
        // The case is one git stops there.
        try scenario.reset()
        let fromGit = try git(["push"] + options + [url] + refspecs, in: scenario.local, check: false)
        #expect(fromGit.errorText.contains("error: atomic push failed for ref "), "\(fromGit.errorText)")
    }

    @Test(
        "--force-with-lease (remote-tracking default, explicit, stale), --follow-tags, --mirror, revisions as sources",
        arguments: [
            ["--force-with-lease", "origin", "main"],
            ["--force-with-lease", "origin", "main", "feature:old"],
            ["--force-with-lease=main", "origin", "feature:main"],
            ["--force-with-lease=main:main~6", "origin", "main"],
            ["--force-with-lease=old:main~6", "origin", "feature:old"],
            ["--force-with-lease=old:", "origin", "feature:old"],
            ["--force-with-lease=old:main~2", "--force", "origin", "feature:old"],
            ["--force-with-lease=gone:main", "origin", ":gone"],
            ["--force-with-lease=gone:main", "--porcelain", "origin", ":gone"],
            ["--force-with-lease=main:no-such-thing", "origin", "main"],
            ["--no-force-with-lease", "origin", "feature:old"],
            ["--follow-tags", "origin", "main"],
            ["--follow-tags", "origin", "main~9:refs/heads/early"],
            ["--mirror", "origin"],
            ["--mirror", "--porcelain", "--dry-run", "origin"],
            ["origin", "HEAD~1:refs/heads/x", "main~3^{commit}:refs/heads/y", "v1^{}:refs/heads/z", "main~1:old"],
            ["origin", "no-such~1:refs/heads/x"],
        ])
    func leasesTagsMirror(_ arguments: [String]) throws {
        let (scenario, _) = try Self.trackingScenario.get()
        try scenario.expectSameAsGit(arguments) { try scenario.trackOrigin() }
    }

    /// A destination that is not a full ref name, from a source that is not a ref: git's error,
    /// then its advice by the source's object type (a commit, an annotated tag, a tree, a blob),
    /// or none with `advice.pushUnqualifiedRefName=false`.
    @Test("an unqualified destination from a non-ref source: git's error and advice")
    func unqualifiedDestinationAdvice() throws {
        let (scenario, _) = try Self.trackingScenario.get()
        let tag = try gitText(["rev-parse", "v1"], in: scenario.local)
        let tree = try gitText(["rev-parse", "main~1^{tree}"], in: scenario.local)
        let blob = try gitText(["rev-parse", "main:file1.txt"], in: scenario.local)
        for source in ["main~1", tag, tree, blob] {
            try scenario.expectSameAsGit(["origin", "\(source):newname"]) { try scenario.trackOrigin() }
        }
        try scenario.expectSameAsGit(
            ["origin", "main~1:newname", "main"],
            environment: [
                "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "advice.pushUnqualifiedRefName",
                "GIT_CONFIG_VALUE_0": "false",
            ]
        ) { try scenario.trackOrigin() }
    }

    @Test("an abbreviated object id as a refspec's source, as git's")
    func abbreviatedSource() throws {
        let (scenario, _) = try Self.trackingScenario.get()
        let short = try gitText(["rev-parse", "--short", "main~2"], in: scenario.local)
        try scenario.expectSameAsGit(["origin", "\(short):refs/heads/short"]) { try scenario.trackOrigin() }
    }

    @Test(
        "push.default without refspecs: simple, current, upstream, matching, nothing; detached HEAD",
        arguments: ["simple", "current", "upstream", "matching", "nothing", nil] as [String?])
    func pushDefault(_ mode: String?) throws {
        let (scenario, _) = try Self.trackingScenario.get()
        for upstream in [nil, "origin/main", "origin/old"] as [String?] {
            for target in ["origin", scenario.served] {
                try scenario.expectSameAsGit([target]) {
                    try scenario.trackOrigin()
                    try git(["config", "--unset-all", "push.default"], in: scenario.local, check: false)
                    if let mode { try git(["config", "push.default", mode], in: scenario.local) }
                    try git(["branch", "--unset-upstream"], in: scenario.local, check: false)
                    if let upstream { try git(["branch", "--set-upstream-to=\(upstream)"], in: scenario.local) }
                }
            }
        }
        try scenario.expectSameAsGit(["origin"]) {
            try scenario.trackOrigin()
            try git(["checkout", "--quiet", "--detach"], in: scenario.local)
        }
        try git(["checkout", "--quiet", "main"], in: scenario.local)
    }

    @Test("no repository named: the branch's push remote as git chooses it, or git's fatal without one")
    func defaultDestination() throws {
        let scenario = try PushScenario()
        // No remote at all: "No configured push destination."
        try scenario.expectSameAsGit([])
        try scenario.expectSameAsGit(["--all"])
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        try git(["remote", "add", "second", scenario.served], in: scenario.local)
        // origin; then remote.pushDefault; then branch.main.pushRemote over it; then
        // branch.main.remote alone (no push remote) with push.default=current.
        let settings: [[(String, String)]] = [
            [],
            [("remote.pushDefault", "second")],
            [("remote.pushDefault", "origin"), ("branch.main.pushRemote", "second")],
            [("branch.main.remote", "second"), ("push.default", "current")],
            [("remote.pushDefault", "missing")],
        ]
        for pairs in settings {
            try scenario.expectSameAsGit([]) {
                for key in ["remote.pushDefault", "branch.main.pushRemote", "branch.main.remote", "push.default"] {
                    try git(["config", "--unset-all", key], in: scenario.local, check: false)
                }
                for (key, value) in pairs { try git(["config", key, value], in: scenario.local) }
                try git(["fetch", "--quiet", "origin"], in: scenario.local)
                try git(["fetch", "--quiet", "second"], in: scenario.local)
            }
        }
    }

    @Test("a URL named on the command line is rewritten by url.<base>.pushInsteadOf, as git rewrites it")
    func pushInsteadOfOnTheCommandLine() throws {
        let scenario = try PushScenario()
        try git(["config", "url.file://\(scenario.root)/.pushInsteadOf", "elsewhere:"], in: scenario.local)
        try scenario.expectSameAsGit(["elsewhere:served.git", "main", "feature"])
    }

    @Test("--receive-pack and --exec name the program run for the push, as git's")
    func receivePackOption() throws {
        let scenario = try PushScenario()
        let wrapper = scenario.directory.appending("wrapped-receive-pack")
        try """
        #!/bin/sh
        echo "wrapped receive-pack ran" >&2
        exec git-receive-pack "$@"
        """.write(toFile: wrapper, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper)
        try scenario.expectSameAsGit(["--receive-pack=\(wrapper)", "file://\(scenario.served)", "main"])
        try scenario.expectSameAsGit(["--exec=\(wrapper)", scenario.served, "feature"])
        try scenario.expectSameAsGit(["--receive-pack=\(wrapper) --bogus-option", scenario.served, "feature"])
    }

    /// `--record` records the live session through the program `--receive-pack` names (it
    /// was run as `git-receive-pack` before); `--replay` runs no program, so the recorded
    /// command line, `--receive-pack` and all, replays with nothing run.
    @Test("--receive-pack with --record runs that program; with --replay nothing runs")
    func receivePackRecordedAndReplayed() throws {
        let scenario = try PushScenario()
        let marker = scenario.directory.appending("wrapper-ran")
        let wrapper = scenario.directory.appending("marking-receive-pack")
        try """
        #!/bin/sh
        echo "wrapped receive-pack ran" >&2
        touch '\(marker)'
        exec git-receive-pack "$@"
        """.write(toFile: wrapper, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: wrapper)
        let arguments = ["--receive-pack=\(wrapper)", "file://\(scenario.served)", "main", "feature:old"]
        try scenario.reset()
        let fromGit = try git(["push"] + arguments, in: scenario.local, check: false)
        try #require(fromGit.status == 0 && FileManager.default.fileExists(atPath: marker), "\(fromGit.errorText)")
        let gitRefs = try scenario.serverState().refs
        try FileManager.default.removeItem(atPath: marker)
        try scenario.reset()
        let session = scenario.directory.appending("receive-pack.session")
        let recorded = try gitwire(
            ["push", "--record=\(session)"] + arguments, in: scenario.local, environment: reproducibleGitEnvironment)
        #expect(FileManager.default.fileExists(atPath: marker))
        #expect(recorded.errorText == fromGit.errorText)
        #expect(recorded.text == fromGit.text)
        #expect(recorded.status == fromGit.status)
        #expect(try scenario.serverState().refs == gitRefs)
        // Played back against the server state it was recorded against, with nothing run.
        try? FileManager.default.removeItem(atPath: marker)
        try scenario.reset()
        let replayed = try gitwire(
            ["push", "--replay=\(session)"] + arguments, in: scenario.local, environment: reproducibleGitEnvironment)
        #expect(!FileManager.default.fileExists(atPath: marker))
        #expect(replayed.status == 0, "\(replayed.errorText)")
        #expect(replayed.text == fromGit.text)
        #expect(
            replayed.errorText == fromGit.errorText.replacingOccurrences(of: "wrapped receive-pack ran\n", with: ""))
    }

    static let trackingScenario = Result { () throws -> (PushScenario, Int) in
        let scenario = try PushScenario()
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        return (scenario, 0)
    }

    @Test("hooks: pre-receive declining, update rejecting one ref with escape sequences")
    func hooks() throws {
        let scenario = try PushScenario()
        try scenario.hook(
            "update",
            "case \"$1\" in refs/heads/feature) printf 'update: no \\033]0;title\\007 here\\n' >&2; exit 1;; esac")
        try scenario.expectSameAsGit(["file://\(scenario.served)", "main", "feature"])
        try scenario.hook("pre-receive", "echo 'pre-receive: declined'; exit 1")
        try scenario.expectSameAsGit([scenario.served, "main", "feature"])
    }

    @Test("ssh:// (OpenSSH on loopback) as git's")
    func ssh() throws {
        let server = try SSHServer()
        defer { server.stop() }
        let scenario = try PushScenario()
        try scenario.expectSameAsGit(
            [server.url(scenario.served), "main", "feature", "v1"], environment: server.environment)
        try scenario.expectSameAsGit([server.url(scenario.served), "feature:main"], environment: server.environment)
    }

    @Test("smart HTTP (git http-backend with http.receivepack) as git's")
    func http() throws {
        let scenario = try PushScenario()
        let server = try HTTPServer(root: scenario.root)
        let url = server.url("/git/served.git")
        try scenario.expectSameAsGit([url, "main", "feature", "v1"])
        try scenario.expectSameAsGit([url, "feature:main", ":old"])
    }

    @Test("the library: blocking and async, remote-tracking refs updated after success only")
    func library() async throws {
        let scenario = try PushScenario()
        try scenario.reset()
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        try git(["branch", "behind", "main~8"], in: scenario.local)
        let remote = try Remote(scenario.served)
        let options = RepositoryPushOptions(trackingRefspecs: [try Refspec("+refs/heads/*:refs/remotes/origin/*")])
        let result = try await remote.push(
            from: "\(scenario.local)/.git", updates: [try PushRefspec("main"), try PushRefspec("behind:old")],
            options: options)
        #expect(result.refs.map(\.destination) == ["refs/heads/main", "refs/heads/old"])
        #expect(result.refs[0].status == .ok)
        #expect(result.refs[1].status == .rejected(.nonFastForward))
        #expect(
            try gitText(["rev-parse", "refs/remotes/origin/main"], in: scenario.local)
                == gitText(["rev-parse", "main"], in: scenario.local))
        #expect(
            try git(["rev-parse", "--verify", "-q", "refs/remotes/origin/old"], in: scenario.local, check: false).status
                != 0)
        let again = try await remote.push(
            from: "\(scenario.local)/.git", updates: [try PushRefspec("+behind:old")], options: options)
        #expect(again.refs[0].forced)
        #expect(
            try gitText(["rev-parse", "refs/remotes/origin/old"], in: scenario.local)
                == gitText(["rev-parse", "behind"], in: scenario.local))
        #expect(try scenario.serverState().fsck == 0)
    }
}

/// One push command line: options, then (after the URL) refspecs.
struct PushCase: Sendable, CustomTestStringConvertible {
    let options: [String]
    let refspecs: [String]
    init(_ options: [String], _ refspecs: [String]) {
        self.options = options
        self.refspecs = refspecs
    }
    var testDescription: String { (options + refspecs).joined(separator: " ") }
}

/// `gitwire pack-objects --stdout` against git's: the same objects, a pack `git index-pack
/// --strict` accepts, stored deltas reused.
@Suite struct PackWriterTests {
    @Test("whole history, a range, and a thin range", arguments: [false, true])
    func packs(_ thin: Bool) throws {
        let scenario = try PushScenario()
        let gitDirectory = "\(scenario.local)/.git"
        let old = try gitText(["rev-parse", "main~6"], in: scenario.local)
        for revisions in [["main", "v1"], ["main", "^\(old)"], ["feature", "main", "^\(old)"]] {
            let pack = scenario.directory.appending("out.pack")
            let indexed = scenario.directory.appending("indexed.pack")
            try? FileManager.default.removeItem(atPath: indexed)
            try? FileManager.default.removeItem(atPath: indexed.replacingOccurrences(of: ".pack", with: ".idx"))
            let written = try run(
                [
                    "sh", "-c",
                    "printf '%s\\n' \"$@\" | '\(gitwireExecutable)' pack-objects --stdout --revs --delta-base-offset -q \(thin ? "--thin" : "") > '\(pack)'",
                    "sh",
                ] + revisions, environment: ["GIT_DIR": gitDirectory], check: false)
            #expect(written.status == 0, "\(written.errorText)")
            let check = try git(
                ["index-pack", "--strict", "--stdin"] + (thin ? ["--fix-thin"] : []) + [indexed], in: gitDirectory,
                input: Array(try Data(contentsOf: URL(fileURLWithPath: pack))), check: false)
            #expect(check.status == 0, "\(check.errorText)")
            let expected = Set(
                try gitText(["rev-list", "--objects"] + revisions, in: scenario.local).split(separator: "\n").map {
                    String($0.prefix(40))
                })
            let listing = try git(["verify-pack", "-v", indexed], in: gitDirectory)
            let ids = Set(
                listing.text.split(separator: "\n").compactMap { line -> String? in
                    let id = String(line.prefix(40))
                    return id.count == 40 && id.allSatisfy(\.isHexDigit) ? id : nil
                })
            // A thin pack completed by index-pack holds the bases it borrowed too.
            if thin { #expect(ids.isSuperset(of: expected)) } else { #expect(ids == expected) }
            #expect(listing.text.contains("chain length") || revisions.count > 0)
        }
    }
}

/// New deltas: objects that cannot reuse a stored delta (all loose here) are searched for bases
/// as git searches, so the pack comes near `git pack-objects`' size with the same window and
/// depth; a thin range uses the remote's objects at the same paths as bases.
@Suite struct PackWriterDeltaTests {
    @Test("loose objects: whole and thin packs within 1.3× and 1.2× of git's, accepted by index-pack --strict")
    func deltas() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-deltas")
        let local = directory.appending("local")
        try git(["init", "--quiet", "--initial-branch=main", local])
        // Files edited a little in each commit, one renamed, new ones added: what pushes carry.
        for index in 1...30 {
            for file in 0..<6 {
                let lines = (0..<(200 + index * 3)).map { "file \(file) line \($0) \(($0 * 7 + file) % 13)\n" }
                var text = lines.joined()
                if index % 3 == file % 3 { text += "edit \(index)\n" }
                try text.write(toFile: "\(local)/f\(file).txt", atomically: true, encoding: .utf8)
            }
            if index == 20 { try git(["mv", "f5.txt", "renamed.txt"], in: local) }
            if index > 20 {
                try (0..<(100 + index)).map { "renamed \($0)\n" }.joined().write(
                    toFile: "\(local)/renamed.txt", atomically: true, encoding: .utf8)
            }
            try git(["add", "-A"], in: local)
            try git(["commit", "--quiet", "-m", "commit \(index)"], in: local)
        }
        let gitDirectory = "\(local)/.git"
        let old = try gitText(["rev-parse", "main~10"], in: local)
        for (revisions, thin, ratio) in [(["main"], false, 1.3), (["main", "^\(old)"], true, 1.2)] {
            let input = Array((revisions.joined(separator: "\n") + "\n").utf8)
            let flags = ["--stdout", "--revs", "--delta-base-offset", "-q"] + (thin ? ["--thin"] : [])
            let fromGit = try git(["pack-objects"] + flags, in: local, input: input)
            let written = try run(
                ["sh", "-c", "'\(gitwireExecutable)' pack-objects \(flags.joined(separator: " "))"], in: local,
                environment: ["GIT_DIR": gitDirectory], input: input)
            let pack = written.standardOutput
            #expect(!pack.isEmpty)
            #expect(Double(pack.count) <= Double(fromGit.standardOutput.count) * ratio, "\(revisions)")
            let indexed = directory.appending("check-\(thin).pack")
            let check = try git(
                ["index-pack", "--strict", "--stdin"] + (thin ? ["--fix-thin"] : []) + [indexed], in: gitDirectory,
                input: pack, check: false)
            #expect(check.status == 0, "\(check.errorText)")
            let listing = try git(["verify-pack", "-v", indexed], in: gitDirectory).text
            #expect(listing.contains("chain length = 1"), "no deltas made")
        }
    }
}
