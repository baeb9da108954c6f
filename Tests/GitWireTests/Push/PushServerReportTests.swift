import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// What receive-pack reports after the pack, compared with `git push` on identical servers: a
/// failed unpack, and `ng` reasons carrying escape sequences (from a receive-pack behind a filter
/// that rewrites its report, as a hostile server would send it).
@Suite(.serialized) struct PushServerReportTests {
    static let servers = Result { () throws -> (PushScenario, GitDaemon, HTTPServer) in
        let scenario = try PushScenario()
        let daemon = try GitDaemon(basePath: scenario.root, extraArguments: ["--enable=receive-pack"])
        let http = try HTTPServer(root: scenario.root)
        return (scenario, daemon, http)
    }

    /// receive-pack's index-pack refuses a pack over `receive.maxInputSize`: `unpack <error>`
    /// and every ref `ng … unpacker error`.
    @Test("an unpack error (receive.maxInputSize) as git's, over file://, git:// and smart HTTP")
    func unpackError() throws {
        let (scenario, daemon, server) = try Self.servers.get()
        try git(["config", "receive.maxInputSize", "64"], in: scenario.template)
        defer { _ = try? git(["config", "--unset", "receive.maxInputSize"], in: scenario.template) }
        for url in ["file://\(scenario.served)", daemon.url("served.git"), server.url("/git/served.git")] {
            try scenario.expectSameAsGit([url, "main", "feature", ":old"])
            try scenario.expectSameAsGit(["--porcelain", url, "main", "feature:refs/heads/new"])
            try scenario.expectSameAsGit(["--atomic", url, "main", "feature"])
        }
    }

    /// git-receive-pack behind a filter that offers no side-band (so the report is plain
    /// pkt-lines) and rewrites the report's `ok refs/heads/feature` into an `ng` whose reason
    /// holds an escape sequence (a terminal title) and a bell.
    @Test("ng reasons with escape sequences, in the summary and in --porcelain, as git's")
    func ngReasonWithEscapes() throws {
        let (scenario, _, _) = try Self.servers.get()
        let filter = scenario.directory.appending("ng-receive-pack")
        try writeReceivePackFilter(
            at: filter,
            body: """
                first = True
                while True:
                    header = out.read(4)
                    if len(header) < 4:
                        break
                    length = int(header, 16)
                    payload = out.read(length - 4) if length > 4 else b""
                    if first and b"\\0" in payload:
                        refs, caps = payload.split(b"\\0", 1)
                        kept = [c for c in caps.strip().split(b" ") if c != b"side-band-64k"]
                        payload = refs + b"\\0" + b" ".join(kept) + b"\\n"
                        first = False
                    if payload.startswith(b"ok refs/heads/feature"):
                        payload = b"ng refs/heads/feature no \\x1b]0;title\\x07 way\\x1b[31m!\\n"
                    if length == 0:
                        sys.stdout.buffer.write(b"0000")
                    else:
                        sys.stdout.buffer.write(b"%04x" % (len(payload) + 4) + payload)
                    sys.stdout.flush()
                sys.exit(child.wait())
                """)
        try scenario.expectSameAsGit(["--receive-pack=\(filter)", scenario.served, "main", "feature"])
        // --porcelain prints the reason on standard output: git 2.39 passes the server's control
        // characters through to it, gitwire masks them there too (as it masks `remote:` lines).
        let arguments = ["push", "--receive-pack=\(filter)", "--porcelain", scenario.served, "main", "feature"]
        try scenario.reset()
        let fromGit = try git(arguments, in: scenario.local, check: false)
        #expect(fromGit.text.contains("(no \u{1b}]0;title\u{07} way\u{1b}[31m!)"), "\(fromGit.text)")
        let gitRefs = try scenario.serverState().refs
        try scenario.reset()
        let fromGitwire = try gitwire(arguments, in: scenario.local, environment: reproducibleGitEnvironment)
        #expect(fromGitwire.text == String(decoding: scenario.maskedControls(fromGit.standardOutput), as: UTF8.self))
        #expect(fromGitwire.errorText == fromGit.errorText)
        #expect(fromGitwire.status == fromGit.status)
        #expect(try scenario.serverState().refs == gitRefs)
    }
}
