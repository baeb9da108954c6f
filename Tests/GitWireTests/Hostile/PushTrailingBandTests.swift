import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A receive-pack that goes on sending band-1 data after its status report (before its closing
/// flush): git's side-band demultiplexer fails writing it to the closed report pipe (`error:
/// error in sideband demultiplexer`, the push failed, exit 1); gitwire must neither hold it
/// (before: every byte was kept, 512 MiB sent meant 560 MB held) nor call the push a success.
@Suite struct PushTrailingBandTests {
    @Test("band-1 data after the status report is bounded and fails the push, as git's")
    func trailingBandOne() throws {
        let scenario = try PushScenario()
        let filter = scenario.directory.appending("flooding-receive-pack")
        try writeReceivePackFilter(
            at: filter, alarmSeconds: 120,
            body: """
                while read_line := read():
                    write(read_line)
                write(b"")
                sys.stdout.flush()
                frame = b"\\x01" + b"0004" * 16000
                try:
                    while True:
                        line = read()
                        if line is None:
                            break
                        if line == b"":
                            # The end of the side-band stream: first, 64 MiB more of band 1.
                            for _ in range(1050):
                                write(frame)
                        write(line)
                        sys.stdout.flush()
                except BrokenPipeError:
                    pass
                sys.exit(child.wait())
                """)
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        try scenario.expectSameAsGit(["--receive-pack=\(filter)", "origin", "main", "feature"]) {
            try scenario.trackOrigin()
        }
        try scenario.reset()
        let measured = try measuringPeakMemory(
            [
                gitwireExecutable, "-C", scenario.local, "push", "--receive-pack=\(filter)", scenario.served, "main",
                "feature",
            ],
            environment: reproducibleGitEnvironment, killAfter: 120)
        #expect(measured.output.status == 1, "\(measured.output.errorText)")
        #expect(
            measured.peakMemory < peakMemoryBound(48 << 20), "peak \(mebibytes(measured.peakMemory))")
    }
}
