import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A receive-pack that answers in protocol v2 (which git 2.39 cannot push over): git reads its
/// refs with ls-refs, then dies with `support for protocol v2 not implemented yet`. gitwire
/// must stop there too: the v2 capabilities offer no report-status, and a push that went on
/// would send v0 commands into a v2 session and "trust the exit" of a server that pushed nothing.
@Suite struct PushProtocolV2Tests {
    @Test("a receive-pack answering in protocol v2 fails the push as git's, nothing sent")
    func v2ReceivePack() throws {
        let directory = try TemporaryDirectory(prefix: "gitwire-push-v2")
        let log = directory.appending("received")
        let script = directory.appending("v2-receive-pack")
        try """
        #!/usr/bin/env python3
        import os, select, signal, sys
        signal.alarm(30)
        out = sys.stdout.buffer
        def packet(payload):
            out.write(b"%04x" % (len(payload) + 4) + payload)
        for line in [b"version 2\\n", b"agent=git/2.39.5\\n", b"ls-refs=unborn\\n", b"object-format=sha1\\n"]:
            packet(line)
        out.write(b"0000")
        out.flush()
        received = b""
        def take():
            global received
            while True:
                ready, _, _ = select.select([0], [], [], 2)
                if not ready:
                    return
                data = os.read(0, 65536)
                if not data:
                    return
                received += data
        take()
        packet(b"1111111111111111111111111111111111111111 refs/heads/main\\n")
        out.write(b"0000")
        out.flush()
        take()
        with open("\(log)", "ab") as file:
            file.write(received + b"\\n--\\n")
        """.write(toFile: script, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script)
        let repository = directory.appending("local")
        try git(["init", "--quiet", "--initial-branch=main", repository])
        try git(["commit", "--quiet", "--allow-empty", "-m", "one"], in: repository)
        let arguments = ["push", "--receive-pack=\(script)", directory.appending("nowhere.git"), "main:refs/heads/new"]
        let fromGit = try git(arguments, in: repository, check: false)
        let output = try gitwire(arguments, in: repository)
        #expect(fromGit.errorText == "fatal: support for protocol v2 not implemented yet\n", "\(fromGit.errorText)")
        #expect(output.errorText == fromGit.errorText)
        #expect(output.text == fromGit.text)
        #expect(output.status == fromGit.status)
        // Neither sent a command (or a pack) after the ls-refs request.
        let sessions = try String(contentsOfFile: log, encoding: .isoLatin1).components(separatedBy: "\n--\n")
        #expect(sessions.count == 3, "\(sessions)")
        for session in sessions.dropLast() {
            #expect(session.hasPrefix("0014command=ls-refs\n"), "\(session)")
            #expect(!session.contains("refs/heads/new\u{0}"), "\(session)")
            #expect(!session.contains("PACK"), "\(session)")
        }
    }
}
