import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// The `pre-push` hook, run as git 2.39 runs it: `git push` and `gitwire push` from the same
/// repository to fresh copies of one server, with a hook that logs its arguments, working
/// directory, `GIT_*` variables, the first entry of `PATH` and standard input,
/// prints on its standard output and error, and exits as told: the logs, outputs, exit
/// statuses and server refs must be git's.
@Suite(.serialized) struct PushPrePushHookTests {
    static let scenario = Result { () throws -> (PushScenario, GitDaemon) in
        let scenario = try PushScenario()
        try FileManager.default.createDirectory(atPath: "\(scenario.local)/sub", withIntermediateDirectories: true)
        let daemon = try GitDaemon(basePath: scenario.root, extraArguments: ["--enable=receive-pack"])
        return (scenario, daemon)
    }

    /// The hook's log, in the scenario's directory.
    static func logPath(_ scenario: PushScenario) -> String { scenario.directory.appending("hook-log") }

    /// Installs the logging hook in `repository` (the scenario's local one by default): it
    /// reads its standard input unless `reads` is off, and exits with `status`.
    static func installHook(
        _ scenario: PushScenario, in repository: String? = nil, status: Int = 0, reads: Bool = true
    ) throws -> String {
        let path = "\(repository ?? scenario.local)/.git/hooks/pre-push"
        let log = logPath(scenario)
        let script = """
            #!/bin/sh
            { echo "argv: $*"; echo "pwd: $(pwd)"; env | grep '^GIT_' | sort; echo "PATH: ${PATH%%:*}"; } >>'\(log)'
            echo "hook output"
            echo "hook error" >&2
            \(reads ? "cat >>'\(log)'" : "")
            exit \(status)

            """
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path)
        return path
    }

    /// git's push and gitwire's with `arguments`, as ``PushScenario/expectSameAsGit`` compares
    /// them, and the hook's logs of both (`adjust` applied to git's first).
    static func expectSameHookRun(
        _ scenario: PushScenario, _ arguments: [String], environment: [String: String] = [:],
        from pusher: String? = nil, adjust: (String) -> String = { $0 }, prepare: () throws -> Void = {}
    ) throws {
        let log = logPath(scenario)
        var logs: [String] = []
        try scenario.expectSameAsGit(
            arguments, environment: environment, from: pusher,
            prepare: {
                try? FileManager.default.removeItem(atPath: log)
                try prepare()
            },
            inspect: { logs.append((try? String(contentsOfFile: log, encoding: .utf8)) ?? "(no hook run)") })
        #expect(logs.count == 2)
        #expect(logs.first != "(no hook run)", "\(arguments)")
        #expect(logs.last == logs.first.map(adjust), "\(arguments)")
    }

    @Test("the hook's arguments, directory, variables and input as git's", arguments: [false, true])
    func updates(_ daemon: Bool) throws {
        let (scenario, server) = try Self.scenario.get()
        let hook = try Self.installHook(scenario)
        defer { try? FileManager.default.removeItem(atPath: hook) }
        let url = daemon ? server.url("served.git") : "file://\(scenario.served)"
        for arguments in [
            [url, "main:refs/heads/new"],  // a new branch
            [url, "main"],  // a fast-forward
            ["-f", url, "main~8:main"],  // forced
            [url, "+main~8:main", "feature"],
            [url, ":gone"],  // a deletion
            ["--delete", url, "gone", "old"],
            [url, "main~4:main"],  // up to date
            [url, "main~8:main", "feature"],  // non-fast-forward: not listed
            ["--force-with-lease=main:main~7", url, "main", "feature"],  // stale: not listed
            [url, "HEAD", "main~1:refs/heads/x", "v1:refs/heads/y"],
            ["--dry-run", url, "main", ":gone"],
            ["--porcelain", url, "main", ":gone"],
            ["--tags", url],
            ["--all", url],
            ["--mirror", url],
            ["--prune", url, "refs/heads/*"],  // pruned refs are listed
            ["--prune", "--mirror", url],  // and so are --mirror's deletions then
            ["--atomic", url, "main~8:main", "feature"],
            ["-v", url, "main"],
            ["-q", url, "main"],
        ] {
            try Self.expectSameHookRun(scenario, arguments)
        }
        // From a subdirectory: git runs the hook at the top, with GIT_PREFIX.
        try Self.expectSameHookRun(scenario, [url, "main"], from: "\(scenario.local)/sub")
        // A tag the server has: refused here, but listed (git lists all but non-fast-forward,
        // stale and up to date).
        try Self.expectSameHookRun(
            scenario, [url, "main~1:refs/tags/t", "main"],
            prepare: {
                try git(["push", "--quiet", "--no-verify", scenario.served, "main~3:refs/tags/t"], in: scenario.local)
            })
    }

    @Test("a failing hook: nothing sent, git's error line and exit status", arguments: [false, true])
    func failing(_ daemon: Bool) throws {
        let (scenario, server) = try Self.scenario.get()
        let hook = try Self.installHook(scenario, status: 1)
        defer { try? FileManager.default.removeItem(atPath: hook) }
        let url = daemon ? server.url("served.git") : "file://\(scenario.served)"
        for arguments in [
            [url, "main", "feature", ":gone"],
            ["--porcelain", url, "main"],
            ["-v", url, "main"],
            ["--dry-run", url, "main"],
            [url, "main~4:main"],
            ["--atomic", url, "main~8:main", "feature"],
        ] {
            try Self.expectSameHookRun(scenario, arguments)
        }
        // --no-verify runs no hook.
        try scenario.expectSameAsGit(["--no-verify", url, "main"])
    }

    /// A hook that cannot be started (its interpreter missing): git 2.39 says it cannot run it
    /// and then hangs, its receive-pack waiting; gitwire says so and fails the push, nothing sent.
    @Test("a hook that cannot be started fails the push, nothing sent")
    func unstartable() throws {
        let (scenario, _) = try Self.scenario.get()
        let hook = "\(scenario.local)/.git/hooks/pre-push"
        try "#!/nonexistent/interpreter\nexit 0\n".write(toFile: hook, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: hook) }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        try scenario.reset()
        let before = try scenario.serverState()
        let ours = try gitwire(["push", scenario.served, "main", ":gone"], in: scenario.local)
        #expect(ours.status == 1)
        #expect(
            ours.errorText
                == "error: cannot run .git/hooks/pre-push: No such file or directory\n"
                + "error: failed to push some refs to '\(scenario.served)'\n")
        #expect(try scenario.serverState() == before)
    }

    @Test("remote names and URLs: a configured remote, insteadOf, pushInsteadOf, core.hooksPath")
    func names() throws {
        let (scenario, server) = try Self.scenario.get()
        let hook = try Self.installHook(scenario)
        defer { try? FileManager.default.removeItem(atPath: hook) }
        let remote = [
            "GIT_CONFIG_COUNT": "3", "GIT_CONFIG_KEY_0": "remote.dest.url",
            "GIT_CONFIG_VALUE_0": "elsewhere:served.git",
            "GIT_CONFIG_KEY_1": "url.\(server.url("")).insteadOf", "GIT_CONFIG_VALUE_1": "elsewhere:",
            "GIT_CONFIG_KEY_2": "url.file://\(scenario.root)/.pushInsteadOf", "GIT_CONFIG_VALUE_2": "pushed:",
        ]
        try Self.expectSameHookRun(scenario, ["dest", "main"], environment: remote)
        try Self.expectSameHookRun(scenario, ["pushed:served.git", "main"], environment: remote)
        try Self.expectSameHookRun(scenario, ["elsewhere:served.git", "main"], environment: remote)
        try Self.expectSameHookRun(scenario, [scenario.served, "main"])
        // core.hooksPath, relative to the top of the work tree.
        let hooks = "\(scenario.local)/myhooks"
        try FileManager.default.createDirectory(atPath: hooks, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: hooks) }
        try FileManager.default.moveItem(atPath: hook, toPath: "\(hooks)/pre-push")
        let configured = [
            "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": "myhooks",
        ]
        try Self.expectSameHookRun(
            scenario, [scenario.served, "main"], environment: configured, from: "\(scenario.local)/sub")
    }

    /// `GIT_DIR`, `GIT_WORK_TREE` (absolute and relative) and `core.worktree`, from below the
    /// work tree's top, at it and outside it: git's `setup_explicit_git_dir` runs the hook at the
    /// top when the push runs below it (`GIT_DIR` then the real path, `GIT_PREFIX` the way
    /// down), where the push runs otherwise.
    @Test("GIT_DIR, GIT_WORK_TREE and core.worktree: the hook's directory and variables as git's")
    func explicitDirectories() throws {
        let (scenario, _) = try Self.scenario.get()
        let hook = try Self.installHook(scenario)
        defer { try? FileManager.default.removeItem(atPath: hook) }
        let local = scenario.local
        let sub = "\(local)/sub"
        let arguments = [scenario.served, "main"]
        for (environment, pusher) in [
            (["GIT_DIR": "\(local)/.git", "GIT_WORK_TREE": local], sub),
            (["GIT_DIR": "../.git", "GIT_WORK_TREE": ".."], sub),
            (["GIT_DIR": "\(local)/.git", "GIT_WORK_TREE": local], scenario.served),  // outside the work tree
            (["GIT_DIR": "\(local)/.git", "GIT_WORK_TREE": local], local),
            (["GIT_DIR": ".git", "GIT_WORK_TREE": "."], local),
            (["GIT_DIR": "\(local)/.git"], sub),
            (["GIT_DIR": "../.git"], sub),
            (["GIT_WORK_TREE": local], sub),
            (["GIT_WORK_TREE": local], local),
            (
                [
                    "GIT_DIR": "\(local)/.git", "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.worktree",
                    "GIT_CONFIG_VALUE_0": local,
                ], sub
            ),
        ] {
            try Self.expectSameHookRun(scenario, arguments, environment: environment, from: pusher)
        }
    }

    /// A bare repository pushed from, at its top and below it: git runs the hook where it runs,
    /// with GIT_DIR and GIT_IMPLICIT_WORK_TREE.
    @Test("a bare repository: the hook's directory and variables as git's")
    func bare() throws {
        let (scenario, _) = try Self.scenario.get()
        let bare = scenario.directory.appending("bare.git")
        try? FileManager.default.removeItem(atPath: bare)
        try git(["clone", "--quiet", "--bare", scenario.local, bare])
        let hook = "\(bare)/hooks/pre-push"
        try FileManager.default.copyItem(atPath: try Self.installHook(scenario), toPath: hook)
        defer { try? FileManager.default.removeItem(atPath: "\(scenario.local)/.git/hooks/pre-push") }
        try Self.expectSameHookRun(scenario, [scenario.served, "main", "feature"], from: bare)
        try Self.expectSameHookRun(scenario, [scenario.served, "main", "feature"], from: "\(bare)/refs")
    }

    /// More lines than a pipe holds (64 KiB) to a hook that reads none: git ignores the broken
    /// pipe, and so does gitwire (it neither dies of SIGPIPE nor fails the push).
    @Test("a hook that reads none of many lines", arguments: [0, 1])
    func unread(_ status: Int) throws {
        let (scenario, server) = try Self.scenario.get()
        let many = scenario.directory.appending("many-\(status)")
        try? FileManager.default.removeItem(atPath: many)
        try git(["clone", "--quiet", scenario.local, many])
        let head = try gitText(["rev-parse", "HEAD"], in: many)
        let lines = (0..<1200).map { "create refs/heads/a-rather-long-branch-name-for-many-lines-\($0) \(head)\n" }
        try git(["update-ref", "--stdin"], in: many, input: Array(lines.joined().utf8))
        _ = try Self.installHook(scenario, in: many, status: status, reads: false)
        try Self.expectSameHookRun(scenario, ["--all", server.url("served.git")], from: many)
        try Self.expectSameHookRun(scenario, ["--all", "file://\(scenario.served)"], from: many)
    }

    /// git hands the hook the URL as given, password and all; gitwire the URL without the
    /// password (a credential goes nowhere else): otherwise the same.
    @Test("smart HTTP: a URL with a password given to the hook without it; a failing hook")
    func password() throws {
        let (scenario, _) = try Self.scenario.get()
        let server = try HTTPServer(root: scenario.root)
        let hook = try Self.installHook(scenario)
        defer { try? FileManager.default.removeItem(atPath: hook) }
        let plain = server.url("/auth/served.git")
        let secret = "\(server.username):\(server.password)@"
        let url = plain.replacingOccurrences(of: "://", with: "://\(secret)")
        let adjust = { (text: String) in text.replacingOccurrences(of: secret, with: "\(server.username)@") }
        try Self.expectSameHookRun(scenario, [url, "main", ":gone"], adjust: adjust)
        let log = try String(contentsOfFile: Self.logPath(scenario), encoding: .utf8)
        #expect(!log.contains(server.password))
        #expect(log.hasPrefix("argv: \(adjust(url)) \(adjust(url))\n"))
        // A failing hook over smart HTTP: nothing sent, git's error line.
        _ = try Self.installHook(scenario, status: 1)
        try Self.expectSameHookRun(scenario, [url, "main", ":gone"], adjust: adjust)
        try Self.expectSameHookRun(scenario, ["--porcelain", server.url("/git/served.git"), "main"])
    }
}
