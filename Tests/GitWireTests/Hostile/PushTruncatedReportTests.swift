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
        try writeReceivePackFilter(
            at: filter, flushingEachWrite: true,
            body: """
                kept = \(keptLines)
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
                """)
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
