import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `GIT_USER_AGENT` is git's `git_user_agent()`: every command's `agent=` capability names it
/// (spaces and unprintable bytes made `.`, `git_user_agent_sanitized`), and so does HTTP's
/// `User-Agent` when `http.userAgent` and `GIT_HTTP_USER_AGENT` are unset. gitwire honoured it
/// in fetch's `agent=` only: ls-remote's `ls-refs` and push's commands named gitwire, and every
/// HTTP request `git/2.0 (gitwire/…)`.
@Suite struct UserAgentEnvironmentTests {
    /// A bare repository with `main`, two copies to push to, and a clone with one more commit.
    private static func scenario() throws -> TemporaryDirectory {
        let root = try TemporaryDirectory(prefix: "gitwire-user-agent")
        let bare = root.appending("repo.git")
        let work = root.appending("work")
        try bareUpstreamWithClone(upstream: bare, work: work)
        try git(["commit", "-q", "--allow-empty", "-m", "second"], in: work)
        for side in ["git", "gitwire"] {
            try git(["clone", "-q", "--bare", bare, root.appending("push-\(side).git")])
            try git(["config", "http.receivepack", "true"], in: root.appending("push-\(side).git"))
        }
        return root
    }

    /// ls-remote, fetch and push to `url(path)` by git and by gitwire with `GIT_USER_AGENT` set
    /// to `agent`, from the clone; `log` reads what the server has seen so far. What each
    /// command made the server see: git's, then gitwire's.
    private static func run(
        _ root: TemporaryDirectory, agent: String, url: (String) -> String, log: () throws -> [String]
    ) throws -> [[[String]]] {
        let environment = reproducibleGitEnvironment.merging(["GIT_USER_AGENT": agent]) { $1 }
        var seen: [[[String]]] = []
        for (side, command) in [("git", "git"), ("gitwire", gitwireExecutable)] {
            var commands: [[String]] = []
            for arguments in [
                ["ls-remote", url("repo.git")], ["fetch", "-q", url("repo.git"), "main"],
                ["push", "-q", url("push-\(side).git"), "HEAD:refs/heads/new"],
            ] {
                let start = try log().count
                let output = try GitWireTestSupport.run(
                    [command] + arguments, in: root.appending("work"), environment: environment, check: false)
                #expect(output.status == 0, "\(side) \(arguments): \(output.errorText)")
                commands.append(Array(try log().dropFirst(start)))
            }
            seen.append(commands)
        }
        return seen
    }

    /// Over git:// (protocol v2, git's default): the `agent=` of `ls-refs`, `fetch` and the push
    /// commands, as receive-pack and upload-pack trace what they read.
    @Test func agentCapabilityOverGitDaemon() throws {
        let root = try Self.scenario()
        let trace = root.appending("server-trace")
        let daemon = try GitDaemon(
            basePath: root.path, extraArguments: ["--enable=receive-pack"], environment: ["GIT_TRACE_PACKET": trace])
        // What the clients sent (`upload-pack< `, `receive-pack< `): their agent= words.
        let log = { () -> [String] in
            let text = (try? String(contentsOfFile: trace, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").filter { $0.contains("-pack< ") }.flatMap { line in
                line.split(whereSeparator: { $0 == " " || $0 == "\\" }).filter { $0.hasPrefix("agent=") }
                    .map(String.init)
            }
        }
        let seen = try Self.run(root, agent: "test agent/1.0", url: { daemon.url($0) }, log: log)
        #expect(seen[0].allSatisfy { !$0.isEmpty }, "git: \(seen[0])")
        #expect(Set(seen[0].joined()) == ["agent=test.agent/1.0"], "git: \(seen[0])")
        #expect(seen[1] == seen[0])
    }

    /// Over smart HTTP: every request's `User-Agent` (the server logs it as `agent=`).
    @Test func userAgentOverHTTP() throws {
        let root = try Self.scenario()
        let server = try HTTPServer(root: root.path)
        let log = {
            server.loggedRequests().compactMap { line in
                line.split(separator: " ").first { $0.hasPrefix("agent=") }.map(String.init)
            }
        }
        let seen = try Self.run(root, agent: "test-agent/1.0", url: { server.url("/git/\($0)") }, log: log)
        #expect(seen[0].allSatisfy { !$0.isEmpty }, "git: \(seen[0])")
        #expect(Set(seen[0].joined()) == ["agent=test-agent/1.0"], "git: \(seen[0])")
        for index in 0..<3 { #expect(Set(seen[1][index]) == Set(seen[0][index]), "gitwire: \(seen[1])") }
    }
}
