import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A receive-pack that sends an error in side-band 3 (with an escape sequence) instead of its
/// status report, once the pack is in: git's send-pack shows it as a `remote:` line and ends with
/// `fatal: the remote end hung up unexpectedly` (exit 128), moving no remote-tracking ref.
/// gitwire showed the line, then fetch's words (`fatal: early EOF` and `fatal: fetch-pack:
/// invalid index-pack output`), as if it had been fetching.
@Suite(.serialized) struct PushBand3Tests {
    static let scenario = Result { () throws -> (PushScenario, String) in
        let scenario = try PushScenario()
        let filter = scenario.directory.appending("band-3-receive-pack")
        try writeReceivePackFilter(
            at: filter, flushingEachWrite: true,
            body: """
                while read_line := read():
                    write(read_line)
                write(b"")
                try:
                    while True:
                        line = read()
                        if line is None:
                            break
                        if line and line[0] == 1:
                            write(b"\\x03refused: \\x1b[31mquota\\x1b[0m exceeded\\n")
                            break
                        write(line)
                except BrokenPipeError:
                    pass
                sys.stdout.flush()
                child.wait()
                sys.exit(1)
                """)
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        return (scenario, filter)
    }

    @Test("an error in band 3 instead of the status report fails the push in git's words", arguments: [false, true])
    func band3InsteadOfReport(porcelain: Bool) throws {
        let (scenario, filter) = try Self.scenario.get()
        try scenario.expectSameAsGit(
            (porcelain ? ["--porcelain"] : []) + ["--receive-pack=\(filter)", "origin", "main", "feature"]
        ) {
            try scenario.trackOrigin()
        }
    }
}
