import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// What git's push does on the local side besides pushing: `-v` over git:// (git's connection
/// lines), a `pre-push` hook that is not executable (git's hint; PushPrePushHookTests runs
/// the others), `--signed`, `--recurse-submodules`,
/// and ssh URLs with a password (git hands the password to ssh as part of the host; gitwire
/// runs no ssh and never shows it).
@Suite(.serialized) struct PushLocalChecksTests {
    static let scenario = Result { () throws -> (PushScenario, GitDaemon) in
        let scenario = try PushScenario()
        let daemon = try GitDaemon(basePath: scenario.root, extraArguments: ["--enable=receive-pack"])
        return (scenario, daemon)
    }

    @Test(
        "push -v over git:// as git's (Looking up, Connecting, Pushing to)",
        arguments: [["-v"], ["-v", "-v"], ["-q", "-v"]])
    func verboseOverGitDaemon(_ options: [String]) throws {
        let (scenario, daemon) = try Self.scenario.get()
        try scenario.expectSameAsGit(options + [daemon.url("served.git"), "main", "main~4:refs/heads/old"])
    }

    /// git's remote helper at verbosity 2: `POST git-receive-pack (<n> bytes)` for a body within
    /// `http.postBuffer`, `(chunked)` after the probe for a larger one; none with `-v -q`. The
    /// byte counts differ between git and gitwire (the agent capability, the pack): each must be
    /// the `Content-Length` the server saw; the rest of the output is git's byte for byte.
    @Test("push -v over smart HTTP as git's (the POST lines)", arguments: [false, true])
    func verboseOverHTTP(_ large: Bool) throws {
        let scenario = try PushScenario()
        if large { try PushHTTPTests.addRandomFile(scenario, bytes: 300_000, name: "large.bin") }
        let server = try HTTPServer(root: scenario.root, loggedHeaders: ["Content-Length"])
        let environment = reproducibleGitEnvironment.merging(
            PushHTTPTests.credentialEnvironment(server, extra: [("http.postBuffer", "128k")])
        ) { $1 }
        let counted = try NSRegularExpression(pattern: "\\(([0-9]+) bytes\\)")
        func announced(_ text: String) -> [String] {
            counted.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
                String(text[Range($0.range(at: 1), in: text)!])
            }
        }
        func lengths(since mark: Int) -> [String] {
            server.loggedRequests()[mark...].filter { $0.hasPrefix("POST") }.compactMap { line in
                guard let range = line.range(of: "Content-Length=[") else { return nil }
                return String(line[range.upperBound...].prefix { $0 != "]" })
            }.filter { $0 != "4" && !$0.isEmpty }  // not the probe's lone flush, nor chunked bodies
        }
        for arguments in [
            ["-v", server.url("/auth/served.git"), "main", "feature"],
            ["-v", "--porcelain", server.url("/git/served.git"), "main~4:main"],
            ["-q", "-v", server.url("/git/served.git"), "main"],
            ["-v", "-q", server.url("/git/served.git"), "main"],
        ] {
            try scenario.reset()
            let mark = server.loggedRequests().count
            let fromGit = try git(["push"] + arguments, in: scenario.local, environment: environment, check: false)
            let gitState = try scenario.serverState()
            let gitLengths = lengths(since: mark)
            try scenario.reset()
            let ourMark = server.loggedRequests().count
            let ours = try gitwire(["push"] + arguments, in: scenario.local, environment: environment)
            let normalized = { (text: String) in
                counted.stringByReplacingMatches(
                    in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "(N bytes)")
            }
            #expect(normalized(ours.errorText) == normalized(fromGit.errorText), "\(arguments)")
            #expect(ours.text == fromGit.text, "\(arguments)")
            #expect(ours.status == fromGit.status, "\(arguments)")
            #expect(try scenario.serverState() == gitState, "\(arguments)")
            // -v then -q is quiet: nothing announced.
            let announces = arguments.first != "-v" || arguments[1] != "-q"
            #expect(announced(fromGit.errorText) == (announces ? gitLengths : []), "git: \(arguments)")
            #expect(announced(ours.errorText) == (announces ? lengths(since: ourMark) : []), "\(arguments)")
        }
    }

    @Test("a pre-push hook that is not executable: git's hint, and the push, as git's")
    func ignoredHook() throws {
        let (scenario, _) = try Self.scenario.get()
        let hook = "\(scenario.local)/.git/hooks/pre-push"
        try "#!/bin/sh\nexit 1\n".write(toFile: hook, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: hook) }
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: hook)
        try scenario.expectSameAsGit([scenario.served, "main"])
        try scenario.expectSameAsGit(["-v", scenario.served, "main"])
        let quiet = ["GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "advice.ignoredHook", "GIT_CONFIG_VALUE_0": "false"]
        try scenario.expectSameAsGit([scenario.served, "main"], environment: quiet)
    }

    @Test("--signed and --recurse-submodules: off as git's; on refused before anything is sent")
    func signedAndSubmodules() throws {
        let (scenario, _) = try Self.scenario.get()
        for options in [["--no-signed"], ["--signed=false"], ["--recurse-submodules=no"], ["--no-recurse-submodules"]] {
            try scenario.expectSameAsGit(options + [scenario.served, "main"])
        }
        for options in [["--signed=bogus"], ["--recurse-submodules=bogus"]] {
            try scenario.expectSameAsGit(options + [scenario.served, "main"])
        }
        try scenario.reset()
        let before = try scenario.serverState()
        for options in [["--signed"], ["--signed=if-asked"], ["--recurse-submodules=check"]] {
            let ours = try gitwire(["push"] + options + [scenario.served, "main"], in: scenario.local)
            #expect(ours.status == 128, "\(options)")
            #expect(ours.errorText.hasPrefix("fatal: --"), "\(options): \(ours.errorText)")
            #expect(try scenario.serverState() == before)
        }
    }

    /// git runs `ssh user:secret@127.0.0.1 …`; gitwire runs no ssh and shows no password.
    @Test("ssh URLs with a password: no ssh run, the password never shown")
    func sshPassword() throws {
        let (scenario, _) = try Self.scenario.get()
        let log = "\(scenario.root)/ssh-log"
        let ssh = "\(scenario.root)/fake-ssh"
        try "#!/bin/sh\necho \"$*\" >> '\(log)'\nexit 1\n".write(toFile: ssh, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: ssh)
        for url in ["ssh://user:s3cret@127.0.0.1/x.git", "ssh://user:s3cret@127.0.0.1:2222/x.git"] {
            try? FileManager.default.removeItem(atPath: log)
            let fromGit = try git(
                ["push", "-v", url, "main"], in: scenario.local, environment: ["GIT_SSH": ssh], check: false)
            #expect(fromGit.status == 128)
            #expect(try String(contentsOfFile: log, encoding: .utf8).contains("user:s3cret@127.0.0.1"))
            try? FileManager.default.removeItem(atPath: log)
            let ours = try gitwire(
                ["push", "-v", url, "main"], in: scenario.local,
                environment: reproducibleGitEnvironment.merging(["GIT_SSH": ssh]) { $1 })
            #expect(ours.status == 128)
            #expect(!FileManager.default.fileExists(atPath: log), "no ssh was run")
            #expect(!ours.errorText.contains("s3cret") && !ours.text.contains("s3cret"))
            #expect(ours.errorText.contains("an ssh URL with a password is refused"))
        }
    }
}
