import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// `report-status-v2` from a real git-receive-pack whose `proc-receive` hook (git's
/// `receive.procReceiveRefs`) rewrites what a push did: `option refname`, `old-oid`, `new-oid`
/// and `forced-update` after an `ok`, read in the width of the repository's format.
@Suite struct PushProcReceiveTests {
    /// A proc-receive hook (Python, bounded by an alarm) that answers every command with `ok`
    /// and options saying the server moved `refs/pull/1/head` from `main`'s value to the new one,
    /// then made `refs/changes/01/1/1`.
    static let hook = """
        #!/usr/bin/env python3
        import signal, subprocess, sys
        signal.alarm(60)
        def read():
            size = int(sys.stdin.buffer.read(4), 16)
            return b"" if size == 0 else sys.stdin.buffer.read(size - 4)
        def write(payload):
            sys.stdout.buffer.write(b"%04x" % (len(payload) + 4) + payload)
        while read() != b"":
            pass
        write(b"version=1\\n")
        sys.stdout.buffer.write(b"0000")
        sys.stdout.flush()
        commands = []
        while True:
            line = read()
            if line == b"":
                break
            commands.append(line.rstrip(b"\\n").split(b" "))
        main = subprocess.run(["git", "rev-parse", "refs/heads/main"], capture_output=True).stdout.strip()
        for old, new, ref in commands:
            write(b"ok " + ref + b"\\n")
            write(b"option refname refs/pull/1/head\\n")
            write(b"option old-oid " + main + b"\\n")
            write(b"option new-oid " + new + b"\\n")
            write(b"option forced-update\\n")
            write(b"ok " + ref + b"\\n")
            write(b"option refname refs/changes/01/1/1\\n")
        sys.stdout.buffer.write(b"0000")
        sys.stdout.flush()
        """

    /// A scenario whose server runs the hook for `refs/for/`.
    static func scenario(objectFormat: String? = nil) throws -> PushScenario {
        let scenario = try PushScenario(objectFormat: objectFormat)
        let hookPath = "\(scenario.template)/hooks/proc-receive"
        try Self.hook.write(toFile: hookPath, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hookPath)
        try git(["config", "receive.procReceiveRefs", "refs/for"], in: scenario.template)
        return scenario
    }

    @Test("option old-oid and new-oid are read in the repository's format", arguments: ["sha1", "sha256"])
    func rewritesInFormat(_ format: String) throws {
        let scenario = try Self.scenario(objectFormat: format)
        try scenario.reset()
        let remoteMain = try git(["rev-parse", "refs/heads/main"], in: scenario.served).text.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let localMain = try git(["rev-parse", "refs/heads/main"], in: scenario.local).text.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let result = try Remote(scenario.served).pushBlocking(
            from: "\(scenario.local)/.git", updates: [PushRefspec("main:refs/for/main")])
        let answer = try #require(result.report?.ref("refs/for/main"))
        #expect(answer.isOK)
        let rewrite = try #require(answer.rewrites.first)
        #expect(rewrite.refName == "refs/pull/1/head")
        #expect(rewrite.old?.hex == remoteMain)
        #expect(rewrite.new?.hex == localMain)
        #expect(rewrite.forcedUpdate)
        // git reads the same report (and shows the rewritten ref).
        try scenario.reset()
        let fromGit = try git(["push", scenario.served, "main:refs/for/main"], in: scenario.local)
        #expect(fromGit.errorText.contains("refs/pull/1/head"), "\(fromGit.errorText)")
    }

    @Test("what the hook did instead is shown as git shows it, one line per rewrite", arguments: ["sha1", "sha256"])
    func rewritesShown(_ format: String) throws {
        let scenario = try Self.scenario(objectFormat: format)
        try scenario.expectSameAsGit([scenario.served, "main:refs/for/main", "feature"])
        try scenario.expectSameAsGit(["--porcelain", scenario.served, "main:refs/for/main", "feature"])
    }
}
