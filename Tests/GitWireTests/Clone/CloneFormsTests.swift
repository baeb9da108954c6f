import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// The run-loop and `async` forms of clone and fetch do what the blocking form does, report
/// progress, and cancel cleanly; empty and unborn remotes clone as git clones them.
@Suite("Clone and fetch forms")
struct CloneFormsTests {
    let daemon = TestRepositories.shared.daemon

    @Test func runLoopCloneMatchesBlockingClone() throws {
        let directory = try TemporaryDirectory()
        let remote = try Remote(daemon.url("big.git"), timeout: .seconds(60))
        try remote.cloneBlocking(into: directory.appending("blocking.git"))
        let loop = try EpollRunLoop()
        var result: Result<FetchResult, any Error>?
        let phases = Locked(Set<String>())
        let progress: FetchProgressHandler = { progress in
            phases.withLock { phases in
                switch progress {
                case .remote: phases.insert("remote")
                case .pack(let pack): phases.insert(pack.phase == .receiving ? "receiving" : "resolving")
                case .packing: phases.insert("packing")
                case .warning: phases.insert("warning")
                case .error: phases.insert("error")
                }
            }
        }
        let options = RepositoryFetchOptions(fetch: FetchOptions(progress: true))
        remote.clone(into: directory.appending("loop.git"), options: options, in: loop, progress: progress) {
            outcome in
            result = outcome
            loop.stop()
        }
        loop.run(until: .now + .seconds(120))
        let fetched = try #require(try result?.get())
        #expect(fetched.changes.count > 1000)
        #expect(phases.withLock { $0 } == ["remote", "receiving", "resolving"])
        #expect(
            try gitText(["for-each-ref"], in: directory.appending("loop.git"))
                == gitText(["for-each-ref"], in: directory.appending("blocking.git")))
        try git(["fsck", "--connectivity-only", "--no-dangling"], in: directory.appending("loop.git"))
    }

    @Test(.onTestThreads) func asyncCloneAndFetch() async throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("source")
        try git(["init", "-q", "-b", "main", source])
        try git(["commit", "-q", "--allow-empty", "-m", "one"], in: source)
        let remote = try Remote("file://\(source)", timeout: .seconds(60))
        let target = directory.appending("copy.git")
        let cloned = try await remote.clone(into: target)
        #expect(cloned.head == .symbolic("refs/heads/main"))
        try git(["commit", "-q", "--allow-empty", "-m", "two"], in: source)
        try git(["branch", "side"], in: source)
        let fetched = try await remote.fetch(into: target)
        let kinds = Dictionary(uniqueKeysWithValues: fetched.changes.map { ($0.localName, $0.kind) })
        #expect(kinds["refs/heads/main"] == .fastForward)
        #expect(kinds["refs/heads/side"] == .created)
        #expect(try gitText(["rev-parse", "main"], in: target) == gitText(["rev-parse", "main"], in: source))
    }

    @Test(.onTestThreads) func cancellingAnAsyncCloneLeavesNothing() async throws {
        let directory = try TemporaryDirectory()
        let remote = try Remote(daemon.url("big.git"), timeout: .seconds(60))
        let target = directory.appending("cancelled.git")
        let task = Task(executorPreference: TestThreads.shared) { try await remote.clone(into: target) }
        task.cancel()
        do {
            _ = try await task.value
            // The clone may have finished before the cancellation arrived: then it is complete.
            try git(["fsck", "--connectivity-only", "--no-dangling"], in: target)
        } catch {
            #expect(error is CancelledError)
            #expect(!FileManager.default.fileExists(atPath: target))
        }
    }

    @Test(arguments: [ProtocolVersion.v0, .v2])
    func emptyAndUnbornRemotesCloneAsGitClonesThem(version: ProtocolVersion) throws {
        let directory = try TemporaryDirectory()
        let source = directory.appending("empty")
        try git(["init", "-q", "--bare", "-b", "trunk", source])
        let theirs = directory.appending("theirs.git")
        let gitResult = try git([
            "-c", "protocol.version=\(version.rawValue)", "clone", "--bare", "file://\(source)", theirs,
        ])
        let ours = directory.appending("ours.git")
        let result = try gitwire([
            "clone", "--bare", "--protocol-version=\(version.rawValue)", "file://\(source)", ours,
        ])
        #expect(result.status == 0)
        #expect(result.errorText.replacingOccurrences(of: "ours.git", with: "theirs.git") == gitResult.errorText)
        #expect(try gitText(["symbolic-ref", "HEAD"], in: ours) == gitText(["symbolic-ref", "HEAD"], in: theirs))
        #expect(try gitText(["for-each-ref"], in: ours).isEmpty)
        try git(["fsck"], in: ours)
    }
}
