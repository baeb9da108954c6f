import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A push that asks for what the server does not offer (`--atomic` against
/// `receive.advertiseAtomic=false`, `-o` without `receive.advertisePushOptions`): git's send-pack
/// dies before sending anything, and how that reaches the user depends on the transport (over
/// smart HTTP it dies under git-remote-http, and push then reports the failure itself). Each is
/// compared with `git push` byte for byte: output, exit status, the server's refs.
@Suite(.serialized) struct PushCapabilityTests {
    static let servers = Result { () throws -> (PushScenario, GitDaemon, HTTPServer) in
        let scenario = try PushScenario()
        try git(["config", "receive.advertiseAtomic", "false"], in: scenario.template)
        try git(["config", "receive.advertisePushOptions", "false"], in: scenario.template)
        let daemon = try GitDaemon(basePath: scenario.root, extraArguments: ["--enable=receive-pack"])
        let http = try HTTPServer(root: scenario.root)
        return (scenario, daemon, http)
    }

    static let cases: [PushCase] = [
        PushCase(["--atomic"], ["main"]),
        PushCase(["-o", "ci.skip"], ["main"]),
        PushCase(["--atomic", "-o", "ci.skip"], ["main", "feature"]),
        PushCase(["--atomic", "--porcelain"], ["main", "feature:old"]),
        PushCase(["-o", "x", "--porcelain"], ["main"]),
        PushCase(["--atomic", "--dry-run"], ["main"]),
        PushCase(["-q", "--atomic"], ["main"]),
        // Nothing to update, a deletion only, a ref refused here: git still dies first.
        PushCase(["--atomic"], ["main~4:main"]),
        PushCase(["-o", "x"], [":old"]),
        PushCase(["--atomic"], ["main~7:old"]),
    ]

    @Test("file:// as git's", arguments: cases)
    func file(_ push: PushCase) throws {
        let (scenario, _, _) = try Self.servers.get()
        try scenario.expectSameAsGit(push.options + ["file://\(scenario.served)"] + push.refspecs, gitDies: true)
    }

    @Test("git:// as git's", arguments: cases)
    func daemon(_ push: PushCase) throws {
        let (scenario, daemon, _) = try Self.servers.get()
        try scenario.expectSameAsGit(push.options + [daemon.url("served.git")] + push.refspecs)
    }

    @Test("smart HTTP as git's (send-pack dying under git-remote-http)", arguments: cases)
    func http(_ push: PushCase) throws {
        let (scenario, _, server) = try Self.servers.get()
        try scenario.expectSameAsGit(push.options + [server.url("/git/served.git")] + push.refspecs)
    }
}
