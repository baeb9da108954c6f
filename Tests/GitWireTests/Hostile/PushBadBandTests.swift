import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A receive-pack whose status report comes in a side-band packet of a band git does not know
/// (0, 4, 5, 255): git's send-pack demultiplexer says `send-pack: protocol error: bad band #<n>`,
/// then `fatal: the remote end hung up unexpectedly` (exit 128), and moves no remote-tracking
/// ref; gitwire says and does the same (before, `fatal: protocol error: bad band #<n>` alone).
@Suite(.serialized) struct PushBadBandTests {
    static let scenario = Result { () throws -> (PushScenario, String) in
        let scenario = try PushScenario()
        let filter = scenario.directory.appending("bad-band-receive-pack")
        try writeReceivePackFilter(
            at: filter, flushingEachWrite: true,
            body: """
                while read_line := read():
                    write(read_line)
                write(b"")
                band = int(os.environ["GITWIRE_TEST_BAND"])
                first = True
                try:
                    while True:
                        line = read()
                        if line is None:
                            break
                        if first and line and line[0] == 1:
                            line = bytes([band]) + line[1:]
                            first = False
                        write(line)
                except BrokenPipeError:
                    pass
                sys.exit(child.wait())
                """)
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        return (scenario, filter)
    }

    @Test("a status report in a band git does not know fails the push as git's", arguments: [0, 4, 5, 255])
    func badBand(_ band: Int) throws {
        let (scenario, filter) = try Self.scenario.get()
        try scenario.expectSameAsGit(
            ["--receive-pack=\(filter)", "origin", "main", "feature"], environment: ["GITWIRE_TEST_BAND": "\(band)"]
        ) {
            try scenario.trackOrigin()
        }
    }
}
