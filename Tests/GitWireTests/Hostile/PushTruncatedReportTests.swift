import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A side-band stream that ends (its closing flush) before the status report does: git's
/// send-pack meets the end of the report's pipe and dies (`fatal: the remote end hung up
/// unexpectedly`, exit 128, remote-tracking refs untouched). gitwire took the end of the
/// side-band as the end of the report: each ref a "remote failure", porcelain `Done`, exit 1.
@Suite struct PushTruncatedReportTests {
    @Test("a side-band stream that ends before the status report is a hang-up, as in git", arguments: [0, 1, 2])
    func truncatedReport(_ keptLines: Int) throws {
        let scenario = try PushScenario()
        let filter = scenario.directory.appending("truncating-receive-pack")
        try """
        #!/usr/bin/env python3
        import os, signal, subprocess, sys, threading
        signal.alarm(60)
        kept = \(keptLines)
        child = subprocess.Popen(["git-receive-pack"] + sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        def forward():
            while True:
                data = os.read(0, 65536)
                if not data:
                    break
                child.stdin.write(data)
                child.stdin.flush()
            child.stdin.close()
        threading.Thread(target=forward, daemon=True).start()
        out = child.stdout
        def read():
            head = out.read(4)
            if len(head) < 4:
                return None
            size = int(head, 16)
            return b"" if size == 0 else out.read(size - 4)
        def write(payload):
            sys.stdout.buffer.write(b"0000" if payload == b"" else b"%04x" % (len(payload) + 4) + payload)
            sys.stdout.flush()
        while (line := read()):
            write(line)
        write(b"")
        report = b""
        while (line := read()) is not None:
            if line == b"":
                # Only the first `kept` lines of the report, then the end of the side-band.
                lines, rest = [], report
                while len(lines) < kept and len(rest) >= 4 and rest[:4] != b"0000":
                    size = int(rest[:4], 16)
                    lines.append(rest[:size])
                    rest = rest[size:]
                if lines:
                    write(b"\\x01" + b"".join(lines))
                write(b"")
            elif line[:1] == b"\\x01":
                report += line[1:]
            else:
                write(line)
        sys.exit(child.wait())
        """.write(toFile: filter, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: filter)
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        for options in [[], ["--porcelain"]] {
            try scenario.reset()
            try scenario.trackOrigin()
            let tracking = try scenario.localTracking()
            let arguments = ["push"] + options + ["--receive-pack=\(filter)", "origin", "main", "feature"]
            let fromGit = try git(arguments, in: scenario.local, check: false)
            #expect(fromGit.status == 128, "\(fromGit.errorText)")
            #expect(fromGit.errorText.hasSuffix("fatal: the remote end hung up unexpectedly\n"), "\(fromGit.errorText)")
            #expect(try scenario.localTracking() == tracking)
            try scenario.reset()
            let output = try gitwire(arguments, in: scenario.local)
            #expect(output.status == 128, "\(output.errorText)")
            #expect(output.errorText == fromGit.errorText, "\(output.errorText)")
            #expect(!output.text.contains("Done"))
            #expect(try scenario.localTracking() == tracking)
        }
    }
}
