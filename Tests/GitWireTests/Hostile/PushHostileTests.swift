import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// receive-pack servers that misbehave: bounded by `--timeout`, clear errors, nothing hangs.
@Suite struct PushHostileTests {
    /// A receive-pack that takes the pack and never reports: git-receive-pack's advertisement
    /// through a shell that then reads everything and sleeps (bounded).
    @Test("a server that accepts the pack and never reports times out waiting for the status report")
    func neverReports() throws {
        let scenario = try PushScenario()
        try scenario.reset()
        let script = scenario.directory.appending("silent.sh")
        try """
        #!/bin/sh
        "$(git --exec-path)/git-receive-pack" --advertise-refs "$1"
        timeout 8 cat >/dev/null
        sleep 8
        """.write(toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        // gitwire runs git-receive-pack from PATH: put the silent one first.
        let bin = scenario.directory.appending("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try run(["cp", script, "\(bin)/git-receive-pack"])
        let path = "\(bin):\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")"
        let started = Date()
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        try scenario.trackOrigin()
        let tracking = try scenario.localTracking()
        let output = try gitwire(
            ["push", "--timeout=2", "origin", "main"], in: scenario.local,
            environment: reproducibleGitEnvironment.merging(["PATH": path]) { $1 })
        #expect(output.status == 128)
        #expect(
            output.errorText.contains("timed out after 2 s waiting for the remote's status report"),
            "\(output.errorText)")
        #expect(Date().timeIntervalSince(started) < 25)
        #expect(try scenario.localTracking() == tracking)
        #expect(
            try scenario.serverState().refs
                == (try git(["for-each-ref", "--format=%(objectname) %(refname)"], in: scenario.template).text))
    }

    @Test("a server that hangs up mid-pack is a lost connection, refs untouched")
    func hangsUpMidPack() throws {
        let scenario = try PushScenario()
        try scenario.reset()
        let bin = scenario.directory.appending("bin")
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try """
        #!/bin/sh
        "$(git --exec-path)/git-receive-pack" --advertise-refs "$1"
        head -c 300 >/dev/null
        exit 0
        """.write(toFile: "\(bin)/git-receive-pack", atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: "\(bin)/git-receive-pack")
        let path = "\(bin):\(ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")"
        // Pushed to a configured remote: its remote-tracking refs must not move.
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        try scenario.trackOrigin()
        let tracking = try scenario.localTracking()
        let output = try gitwire(
            ["push", "--timeout=20", "origin", "main", "feature", "v1"], in: scenario.local,
            environment: reproducibleGitEnvironment.merging(["PATH": path]) { $1 })
        #expect(output.status == 128)
        // git's words (compared with git's below): send-pack's demultiplexer saw the end.
        #expect(
            output.errorText
                == "send-pack: unexpected disconnect while reading sideband packet\nfatal: the remote end hung up unexpectedly\n"
        )
        #expect(try scenario.localTracking() == tracking)
        #expect(
            try scenario.serverState().refs
                == (try git(["for-each-ref", "--format=%(objectname) %(refname)"], in: scenario.template).text))
        // The same server named by --receive-pack, for git too: git's words and status.
        try scenario.expectSameAsGit(["--receive-pack=\(bin)/git-receive-pack", "origin", "main", "feature", "v1"]) {
            try scenario.trackOrigin()
        }
    }

    /// git-receive-pack behind a filter that drops every capability from its advertisement but
    /// `delete-refs`, `ofs-delta` and `agent`: no report-status, no side-band. Both clients
    /// then trust the exit (a declining hook's refusal is not known) as git does.
    @Test("a receive-pack without report-status or side-band: the push trusts the exit, as git's")
    func noReportStatus() throws {
        let scenario = try PushScenario()
        let filter = scenario.directory.appending("plain-receive-pack")
        try writeReceivePackFilter(
            at: filter,
            body: """
                length = int(out.read(4), 16)
                payload = out.read(length - 4) if length else b""
                if b"\\0" in payload:
                    refs, caps = payload.split(b"\\0", 1)
                    kept = [c for c in caps.strip().split(b" ") if c in (b"delete-refs", b"ofs-delta") or c.startswith(b"agent=")]
                    payload = refs + b"\\0" + b" ".join(kept) + b"\\n"
                sys.stdout.buffer.write(b"%04x" % (len(payload) + 4) + payload)
                relay()
                """)
        try scenario.expectSameAsGit(["--receive-pack=\(filter)", scenario.served, "main", "feature", ":old", "v1"])
        try scenario.expectSameAsGit(["--receive-pack=\(filter)", "--porcelain", scenario.served, "feature:main"])
        try scenario.hook("pre-receive", "echo 'pre-receive: declined'; exit 1")
        try scenario.expectSameAsGit(["--receive-pack=\(filter)", scenario.served, "main"])
    }
}
