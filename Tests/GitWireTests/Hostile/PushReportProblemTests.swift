import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A status report that is malformed although every ref says `ok` (a failed or unreadable
/// unpack line, an `option` before any `ok`): git's send-pack fails the push (exit 1, `error:
/// failed to push some refs`, no porcelain `Done`) while still printing the refs as reported;
/// gitwire must not call it a success.
@Suite struct PushReportProblemTests {
    /// git-receive-pack without side-band (so that its report comes as plain pkt-lines), its
    /// report rewritten as `mode` says.
    static func filter(_ scenario: PushScenario, mode: String) throws -> String {
        let path = scenario.directory.appending("report-\(mode)")
        try writeReceivePackFilter(
            at: path, flushingEachWrite: true,
            body: """
                mode = "\(mode)"
                first = True
                while True:
                    line = read()
                    if first and b"\\0" in line:
                        refs, caps = line.split(b"\\0", 1)
                        kept = [c for c in caps.strip().split(b" ") if not c.startswith(b"side-band")]
                        line = refs + b"\\0" + b" ".join(kept) + b"\\n"
                    first = False
                    write(line)
                    if line == b"":
                        break
                while True:
                    line = read()
                    if line is None:
                        break
                    if line.startswith(b"unpack "):
                        if mode == "unpack-failed":
                            line = b"unpack index-pack abnormal exit\\n"
                        elif mode == "unpack-unreadable":
                            line = b"unpak ok\\n"
                        elif mode == "option-first":
                            write(line)
                            line = b"option refname refs/heads/elsewhere\\n"
                    write(line)
                sys.exit(child.wait())
                """)
        return path
    }

    @Test(
        "a malformed report fails the push as git's, although every ref says ok",
        arguments: ["unpack-failed", "unpack-unreadable", "option-first"])
    func malformedReportFails(_ mode: String) throws {
        let scenario = try PushScenario()
        let filter = try Self.filter(scenario, mode: mode)
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        for options in [[], ["--porcelain"]] {
            try scenario.expectSameAsGit(
                options + ["--receive-pack=\(filter)", "origin", "main", "feature", "v1"]
            ) { try scenario.trackOrigin() }
        }
        try scenario.reset()
        var remote = try Remote(scenario.served)
        var local = try #require(remote.transport as? LocalTransport)
        local.receivePack = filter
        remote.transport = local
        let result = try remote.pushBlocking(from: "\(scenario.local)/.git", updates: [try PushRefspec("feature")])
        #expect(!result.succeeded)
        #expect(!result.errors.isEmpty)
    }
}
