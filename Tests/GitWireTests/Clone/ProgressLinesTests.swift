import Foundation
import GitWire
import GitWireTestSupport
import Glibc
import Testing

/// What a clone tells its progress handler: the server's band 2 as whole lines, split at `\r`
/// and `\n` as git splits them for display, whatever packets the server cut them into; every call
/// on one thread (the caller's for the blocking form, the loop's for the run-loop form, one
/// thread for the `async` form) and before the completion. The command line shows the lines as
/// git does, byte for byte.
@Suite("progress lines", .serialized)
struct ProgressLinesTests {
    /// Band 2 cut mid-line, counters in place, an empty `\r` line, control characters, a last
    /// line the server never ends.
    static let band2: [[UInt8]] = [
        Array("Counting obj".utf8), Array("ects: 1\r".utf8),
        Array("Counting objects: 2\r\rCounting objects: 3, done.\n".utf8),
        Array("colours \u{1b}[31mred".utf8), Array("\r\n".utf8), Array("hook says: hello\nhook says: ".utf8),
        Array("bye\n".utf8),
    ]
    static let trailing = Array("the server never ends this".utf8)

    static let expected: [RemoteProgressLine] = [
        RemoteProgressLine(bytes: Array("Counting objects: 1".utf8), ending: .carriageReturn),
        RemoteProgressLine(bytes: Array("Counting objects: 2".utf8), ending: .carriageReturn),
        RemoteProgressLine(bytes: [], ending: .carriageReturn),
        RemoteProgressLine(bytes: Array("Counting objects: 3, done.".utf8), ending: .lineFeed),
        RemoteProgressLine(bytes: Array("colours \u{1b}[31mred".utf8), ending: .carriageReturn),
        RemoteProgressLine(bytes: [], ending: .lineFeed),
        RemoteProgressLine(bytes: Array("hook says: hello".utf8), ending: .lineFeed),
        RemoteProgressLine(bytes: Array("hook says: bye".utf8), ending: .lineFeed),
        RemoteProgressLine(bytes: trailing, ending: .none),
    ]

    /// A server that sends ``band2`` around the real pack, then the unended line before its flush.
    static func server(_ fixture: HostileFetchFixture, connections: Int = 1) throws -> HostileFetchServer {
        var stream = Self.band2.flatMap { sideBandPacket(2, $0) }
        let pack = fixture.fullPack
        let half = pack.count / 2
        stream += sideBandPacket(1, pack[..<half]) + sideBandPacket(2, Array("\rhalf way\n".utf8))
        stream += sideBandPacket(1, pack[half...]) + sideBandPacket(2, Self.trailing) + PktLine.flush.encoded
        return try HostileFetchServer(
            .v0(advertisement: fixture.advertisement), then: [.send(stream)], connections: connections)
    }

    static let allExpected: [RemoteProgressLine] = {
        var lines = expected
        lines.insert(
            contentsOf: [
                RemoteProgressLine(bytes: [], ending: .carriageReturn),
                RemoteProgressLine(bytes: Array("half way".utf8), ending: .lineFeed),
            ], at: 8)
        return lines
    }()

    /// What a handler saw: each call's progress and thread, and when the completion came.
    final class Seen: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var lines: [RemoteProgressLine] = []
        private(set) var threads: Set<UInt> = []
        private(set) var afterCompletion = 0
        private var completed = false

        var handler: FetchProgressHandler {
            { [self] progress in
                lock.lock()
                defer { lock.unlock() }
                threads.insert(UInt(pthread_self()))
                if completed { afterCompletion += 1 }
                if case .remote(let line) = progress { lines.append(line) }
            }
        }

        func complete() {
            lock.lock()
            completed = true
            lock.unlock()
        }
    }

    @Test func blockingCallsComeOnTheCallersThread() throws {
        let fixture = try HostileFetchFixture.shared.get()
        let server = try Self.server(fixture)
        let work = try TemporaryDirectory()
        let seen = Seen()
        let remote = try Remote(server.url(), timeout: .seconds(30))
        _ = try remote.cloneBlocking(into: work.appending("copy.git"), progress: seen.handler)
        seen.complete()
        #expect(seen.lines == Self.allExpected)
        #expect(seen.threads == [UInt(pthread_self())])
        _ = server.finish()
    }

    @Test func runLoopCallsComeOnTheLoopsThreadBeforeTheCompletion() throws {
        let fixture = try HostileFetchFixture.shared.get()
        let server = try Self.server(fixture)
        let work = try TemporaryDirectory()
        let seen = Seen()
        let remote = try Remote(server.url(), timeout: .seconds(30))
        let loop = try EpollRunLoop()
        var result: Result<FetchResult, any Error>?
        remote.clone(into: work.appending("copy.git"), in: loop, progress: seen.handler) {
            seen.complete()
            result = $0
            loop.stop()
        }
        loop.run(until: .now + Duration.seconds(60).scaledForSlowRuns)
        #expect(throws: Never.self) { try result?.get() }
        #expect(seen.lines == Self.allExpected)
        #expect(seen.threads == [UInt(pthread_self())])
        #expect(seen.afterCompletion == 0)
        _ = server.finish()
    }

    @Test func asyncCallsComeOnOneThread() async throws {
        let fixture = try HostileFetchFixture.shared.get()
        let server = try Self.server(fixture)
        let work = try TemporaryDirectory()
        let seen = Seen()
        let remote = try Remote(server.url(), timeout: .seconds(30))
        _ = try await remote.clone(into: work.appending("copy.git"), progress: seen.handler)
        seen.complete()
        #expect(seen.lines == Self.allExpected)
        #expect(seen.threads.count == 1)
        #expect(seen.afterCompletion == 0)
        _ = server.finish()
    }

    /// The command line shows each line as git shows it: `remote: `, the text with control
    /// characters replaced, what clears the rest of the line, the line's own ending.
    @Test func theCommandLineShowsThemAsGitDoes() throws {
        let fixture = try HostileFetchFixture.shared.get()
        let server = try Self.server(fixture, connections: 2)
        let work = try TemporaryDirectory()
        let gitRun = try git(["clone", "--bare", server.url(), work.appending("git.git")], check: false)
        let ours = try gitwire(["clone", "--bare", server.url(), work.appending("gitwire.git")])
        _ = server.finish()
        #expect(gitRun.status == 0, "\(gitRun.errorText)")
        #expect(ours.status == 0, "\(ours.errorText)")
        // What the server said, without the client's own progress: git's index-pack writes
        // `Receiving objects` and `Resolving deltas` from another process, so they may come
        // between the `remote:` lines (each counter in one write of its own); the escape
        // character replaced as gitwire replaces it (git 2.39 passes control characters to the
        // terminal).
        func remoteText(_ output: ProcessOutput, _ directory: String) -> String {
            let text = output.errorText.replacingOccurrences(
                of: "Cloning into bare repository '\(directory)'...\n", with: "")
            return text.replacingOccurrences(
                of: "(Receiving objects|Resolving deltas): [^\r\n]*[\r\n]", with: "", options: .regularExpression
            ).replacingOccurrences(of: "\u{1b}", with: "?")
        }
        let shown = remoteText(ours, work.appending("gitwire.git"))
        #expect(shown == remoteText(gitRun, work.appending("git.git")))
        #expect(shown.contains("\r"))
        #expect(shown.contains("remote: colours ?[31mred"))
        #expect(shown.hasSuffix("remote: half way        \nremote: the server never ends this\n"))
    }
}
