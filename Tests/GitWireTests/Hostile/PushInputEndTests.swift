import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A receive-pack (run as a child, over file://) that sends its status report only once its
/// standard input has ended: git's send-pack closes its end of the pipe after the pack
/// (pack-objects' end closes with it), so git's push completes. gitwire kept the pipe open, and
/// both sides waited for ever (without `--timeout`); the filter's alarm ends it here.
@Suite(.serialized) struct PushInputEndTests {
    static let scenario = Result { () throws -> (PushScenario, String) in
        let scenario = try PushScenario()
        let filter = scenario.directory.appending("input-end-receive-pack")
        try writeReceivePackFilter(
            at: filter, alarmSeconds: 60,
            body: """
                while read_line := read():
                    write(read_line)
                write(b"")
                sys.stdout.flush()
                for thread in threading.enumerate():
                    if thread is not threading.main_thread():
                        thread.join()
                relay()
                """)
        try git(["remote", "add", "origin", scenario.served], in: scenario.local)
        return (scenario, filter)
    }

    @Test("a receive-pack that reports after the end of its input gets it after the pack, as from git")
    func reportAfterInputEnds() throws {
        let (scenario, filter) = try Self.scenario.get()
        try scenario.expectSameAsGit(["--receive-pack=\(filter)", "origin", "main", "feature"]) {
            try scenario.trackOrigin()
        }
    }
}
