import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// The local transport's `git-upload-pack` child is reaped by every form of ls-remote: once the
/// call is over, no zombie is left behind.
@Suite("Remote local processes")
struct RemoteLocalProcessTests {
    /// A local transport whose service is a script that records its process id, then runs `body`
    /// (by default it becomes `git-upload-pack`: the same process).
    struct RecordingService {
        let directory: TemporaryDirectory
        let transport: LocalTransport

        init(body: String = "exec git-upload-pack \"$@\"") throws {
            directory = try TemporaryDirectory()
            let script = directory.appending("upload-pack")
            let text = "#!/bin/sh\necho $$ >> '\(directory.appending("pids"))'\n\(body)\n"
            try writeExecutable(script, text)
            transport = LocalTransport(uploadPack: script)
        }

        /// The process ids the service had, in order.
        var pids: [Int] {
            let text = (try? String(contentsOfFile: directory.appending("pids"), encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { Int($0) }
        }
    }

    static func isGone(_ pid: Int) -> Bool { !FileManager.default.fileExists(atPath: "/proc/\(pid)") }

    /// Waits (asynchronously, at most 10 s) until process `pid` is gone.
    static func becomesGone(_ pid: Int) async -> Bool {
        for _ in 0..<2000 {
            if isGone(pid) { return true }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return isGone(pid)
    }

    func remote(_ service: RecordingService, _ repository: String = "small.git") throws -> Remote {
        let url = try RemoteURL("file://\(TestRepositories.shared.path(repository))")
        return Remote(url: url, transport: service.transport, timeout: .seconds(30).scaledForSlowRuns)
    }

    @Test func blockingCallsReapTheirChildEveryTime() throws {
        let service = try RecordingService()
        let remote = try remote(service)
        let expected = try git(["ls-remote", remote.url.text]).standardOutput
        for round in 0..<10 {
            let listing = try remote.lsRemoteBlocking(LsRemoteOptions(protocolVersion: round % 2 == 0 ? .v2 : .v0))
            #expect(lsRemoteText(listing.refs) == expected)
            let pids = service.pids
            #expect(pids.count == round + 1)
            #expect(pids.allSatisfy(Self.isGone), "round \(round): \(pids.filter { !Self.isGone($0) })")
        }
        #expect(Set(service.pids).count == 10)
    }

    @Test func runLoopCallsReapTheirChildBeforeTheLoopGoesIdle() throws {
        let service = try RecordingService()
        let remote = try remote(service, "big.git")
        for version in ProtocolVersion.allCases {
            let looped = try loopLsRemote(remote, LsRemoteOptions(protocolVersion: version))
            #expect(try looped.result?.get().refs.count ?? 0 > 1000)
            #expect(service.pids.allSatisfy(Self.isGone))
        }
        #expect(service.pids.count == 3)
    }

    @Test(.onTestThreads) func asyncCallsReapTheirChild() async throws {
        let service = try RecordingService()
        let remote = try remote(service)
        _ = try await remote.lsRemote()
        _ = try await streamedRefs(remote, LsRemoteOptions(protocolVersion: .v0))
        let pids = service.pids
        #expect(pids.count == 2)
        for pid in pids { #expect(await Self.becomesGone(pid), "process \(pid)") }
    }

    /// A local service that never answers: the call times out and the child, which ends when its
    /// input closes, is reaped.
    @Test(.onTestThreads) func aSilentLocalServiceTimesOutAndIsReaped() async throws {
        // Keeps its output open and reads its input to the end, writing nothing.
        let service = try RecordingService(body: "exec 3>&1\ncat > /dev/null")
        let url = try RemoteURL("file://\(TestRepositories.shared.path("small.git"))")
        // Long enough (scaled by `testSlowness`) for the child to start before it on a busy machine.
        let timeout = Duration.seconds(1).scaledForSlowRuns
        let remote = Remote(url: url, transport: service.transport, timeout: timeout)
        let blocking = await thrownError { try blockingLsRemote(remote) }
        #expect(
            (blocking as? StreamTimeoutError)?.description
                == "timed out after \(timeout.secondsText) s reading the ref advertisement")
        #expect(service.pids.allSatisfy(Self.isGone))
        let looped = try loopLsRemote(remote)
        #expect(throws: StreamTimeoutError.self) { try looped.result?.get() }
        #expect(service.pids.allSatisfy(Self.isGone))
        let awaited = await thrownError { try await remote.lsRemote() }
        #expect(awaited is StreamTimeoutError)
        let pids = service.pids
        #expect(pids.count == 3)
        for pid in pids { #expect(await Self.becomesGone(pid), "process \(pid)") }
    }

    /// A path that is not a repository: git-upload-pack says so on standard error and exits; the
    /// call fails as git's does.
    @Test func aMissingLocalRepository() throws {
        let directory = try TemporaryDirectory()
        let path = directory.appending("missing.git")
        let expected = try git(["ls-remote", path], check: false)
        let actual = try gitwire(["ls-remote", path])
        #expect(expected.status == 128)
        #expect(actual.status == expected.status)
        #expect(actual.errorText == expected.errorText)
        let service = try RecordingService()
        let remote = Remote(
            url: try RemoteURL(path), transport: service.transport, timeout: .seconds(30).scaledForSlowRuns)
        // The error carries git-upload-pack's own explanation, and says the repository is not there.
        let error = try #require(throws: RemoteProgramError.self) { try remote.lsRemoteBlocking() }
        #expect(error.kind == .notFound)
        #expect(error.standardError == ["fatal: '\(path)' does not appear to be a git repository"])
        #expect(error.underlying.base as? UnexpectedEndError == UnexpectedEndError(afterInitialContact: false))
        #expect(service.pids.allSatisfy(Self.isGone))
    }
}
