import Foundation
import GitWire
import GitWireTestSupport
import Testing

/// A clone or fetch cancelled after its transfer, while deltas are resolved: it stops before it
/// changes the repository and removes what it made (a clone's directory, a fetch's new pack),
/// as a cancellation during the transfer does.
@Suite("cancellation after the transfer")
struct LateCancellationTests {
    /// A source whose pack has deltas: one file changed a little in each of 20 commits.
    static func makeSource(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.appending("source")
        try git(["init", "-q", "-b", "main", path])
        var lines = (0..<4000).map { "line \($0) of a file that changes a little in each commit" }
        for index in 0..<20 {
            lines[index * 100] = "changed in commit \(index)"
            try lines.joined(separator: "\n").write(toFile: "\(path)/file", atomically: true, encoding: .utf8)
            try git(["add", "file"], in: path)
            try git(["commit", "-q", "-m", "c\(index)"], in: path)
        }
        return path
    }

    /// Runs a clone or fetch on a run loop and cancels it from the progress handler (called on
    /// the loop's thread, while the resolving worker waits for it) at the first "Resolving
    /// deltas" report, after a moment (a handler that asks someone first): the work has not gone
    /// on meanwhile.
    static func cancelWhileResolving(
        _ start: (EpollRunLoop, @escaping FetchProgressHandler, @escaping (Result<FetchResult, any Error>) -> Void)
            -> RunningExchange
    ) throws -> Result<FetchResult, any Error>? {
        let loop = try EpollRunLoop()
        nonisolated(unsafe) var running: RunningExchange?
        nonisolated(unsafe) var outcome: Result<FetchResult, any Error>?
        let first = Locked(true)
        running = start(
            loop,
            { progress in
                guard case .pack(let pack) = progress, pack.phase == .resolving,
                    first.withLock({ value in
                        defer { value = false }
                        return value
                    })
                else { return }
                usleep(300_000)
                running?.cancel()
            },
            { result in
                outcome = result
                loop.stop()
            })
        loop.run()
        return outcome
    }

    @Test func cloneCancelledWhileResolvingLeavesNothing() throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(directory)
        let remote = try Remote("file://\(source)")
        let target = directory.appending("clone.git")
        let outcome = try Self.cancelWhileResolving { loop, progress, completion in
            remote.clone(into: target, in: loop, progress: progress, completion: completion)
        }
        #expect(throws: CancelledError.self) { try outcome?.get() }
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test func fetchCancelledWhileResolvingLeavesTheRepositoryAsItWas() throws {
        let directory = try TemporaryDirectory()
        let source = try Self.makeSource(directory)
        let target = directory.appending("repo.git")
        try git(["clone", "-q", "--bare", "--no-local", source, target])
        try git(["update-ref", "refs/heads/main", "HEAD~15"], in: target)
        try git(["reflog", "expire", "--expire=now", "--all"], in: target)
        try git(["gc", "-q", "--prune=now"], in: target)
        let before = try gitText(["for-each-ref"], in: target)
        let packs = try FileManager.default.contentsOfDirectory(atPath: "\(target)/objects/pack").sorted()
        let remote = try Remote("file://\(source)")
        let outcome = try Self.cancelWhileResolving { loop, progress, completion in
            remote.fetch(into: target, in: loop, progress: progress, completion: completion)
        }
        #expect(throws: CancelledError.self) { try outcome?.get() }
        #expect(try gitText(["for-each-ref"], in: target) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(target)/objects/pack").sorted() == packs)
    }
}
