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
    /// A bare clone of `source` set back 15 commits with nothing else kept, so a fetch has a pack
    /// to resolve; with its refs and packs as they are before the fetch.
    static func makeBehindTarget(_ directory: TemporaryDirectory, source: String) throws
        -> (target: String, refs: String, packs: [String])
    {
        let target = directory.appending("repo.git")
        try git(["clone", "-q", "--bare", "--no-local", source, target])
        try git(["update-ref", "refs/heads/main", "HEAD~15"], in: target)
        try git(["reflog", "expire", "--expire=now", "--all"], in: target)
        try git(["gc", "-q", "--prune=now"], in: target)
        let refs = try gitText(["for-each-ref"], in: target)
        let packs = try FileManager.default.contentsOfDirectory(atPath: "\(target)/objects/pack").sorted()
        return (target, refs, packs)
    }

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
        let (target, before, packs) = try LateCancellationTests.makeBehindTarget(directory, source: source)
        let remote = try Remote("file://\(source)")
        let outcome = try Self.cancelWhileResolving { loop, progress, completion in
            remote.fetch(into: target, in: loop, progress: progress, completion: completion)
        }
        #expect(throws: CancelledError.self) { try outcome?.get() }
        #expect(try gitText(["for-each-ref"], in: target) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(target)/objects/pack").sorted() == packs)
    }
}

/// The `async` forms, cancelled through their task after the transfer (from the progress
/// handler, at the first "Resolving deltas" report): they throw ``CancelledError`` and leave
/// nothing, as their documentation says.
@Suite("async cancellation after the transfer")
struct AsyncLateCancellationTests {
    /// Runs `operation` in a task of its own and cancels that task at the first "Resolving
    /// deltas" report, after a moment; returns how the task ended.
    static func cancelWhileResolving(
        _ operation: @escaping @Sendable (@escaping FetchProgressHandler) async throws -> FetchResult
    ) async -> Result<FetchResult, any Error> {
        let task = Locked<Task<FetchResult, any Error>?>(nil)
        let reported = Locked(false)
        let progress: FetchProgressHandler = { progress in
            guard case .pack(let pack) = progress, pack.phase == .resolving,
                reported.withLock({ value in
                    defer { value = true }
                    return !value
                })
            else { return }
            usleep(300_000)
            // The task is stored before the transfer can end (the caller sets it at once).
            _ = waitUntil(within: .seconds(30)) { task.withLock { $0 != nil } }
            task.withLock { $0 }?.cancel()
        }
        let started = Task(executorPreference: TestThreads.shared) { try await operation(progress) }
        task.withLock { $0 = started }
        return await started.result
    }

    @Test(.onTestThreads) func asyncCloneCancelledWhileResolvingLeavesNothing() async throws {
        let directory = try TemporaryDirectory()
        let source = try LateCancellationTests.makeSource(directory)
        let remote = try Remote("file://\(source)")
        let target = directory.appending("clone.git")
        let outcome = await Self.cancelWhileResolving { progress in
            try await remote.clone(into: target, progress: progress)
        }
        #expect(throws: CancelledError.self) { try outcome.get() }
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test(.onTestThreads) func asyncFetchCancelledWhileResolvingLeavesTheRepositoryAsItWas() async throws {
        let directory = try TemporaryDirectory()
        let source = try LateCancellationTests.makeSource(directory)
        let (target, before, packs) = try LateCancellationTests.makeBehindTarget(directory, source: source)
        let remote = try Remote("file://\(source)")
        let outcome = await Self.cancelWhileResolving { progress in
            try await remote.fetch(into: target, progress: progress)
        }
        #expect(throws: CancelledError.self) { try outcome.get() }
        #expect(try gitText(["for-each-ref"], in: target) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(target)/objects/pack").sorted() == packs)
    }
}

/// A clone cancelled at the very end, after its refs were written: from the progress handler, at
/// the server's last progress text (which has no line end, so it is handed on only when the clone
/// is complete, just before the completion). A clone is a new repository no one else uses yet, so
/// until the caller has its result a cancellation still removes it, as the documentation says.
@Suite("cancellation after a clone's refs were written")
struct CancellationAtTheEndTests {
    /// A source served by an upload-pack whose pack-objects writes `last words` (no line end) on
    /// its standard error once the pack is made, which upload-pack sends on band 2 after the pack.
    static func makeRemote(_ directory: TemporaryDirectory) throws -> Remote {
        let source = try LateCancellationTests.makeSource(directory)
        let hook = directory.appending("pack-objects-hook")
        try "#!/bin/sh\n\"$@\"\nstatus=$?\nprintf 'last words' >&2\nexit $status\n".write(
            toFile: hook, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        return Remote(
            url: try RemoteURL("file://\(source)"),
            transport: LocalTransport(uploadPack: "git -c uploadpack.packObjectsHook=\(hook) upload-pack"),
            timeout: .seconds(60))
    }

    static func isLastWords(_ progress: FetchProgress) -> Bool {
        guard case .remote(let line) = progress else { return false }
        return line.ending == .none && line.text == "last words"
    }

    @Test func runLoopCloneCancelledAtTheEndLeavesNothing() throws {
        let directory = try TemporaryDirectory()
        let remote = try Self.makeRemote(directory)
        let target = directory.appending("clone.git")
        let loop = try EpollRunLoop()
        nonisolated(unsafe) var running: RunningExchange?
        nonisolated(unsafe) var outcome: Result<FetchResult, any Error>?
        let heard = Locked(false)
        let progress: FetchProgressHandler = { progress in
            guard Self.isLastWords(progress) else { return }
            heard.withLock { $0 = true }
            running?.cancel()
        }
        running = remote.clone(into: target, in: loop, progress: progress) { result in
            outcome = result
            loop.stop()
        }
        loop.run()
        #expect(heard.withLock { $0 }, "the server's last words came")
        #expect(throws: CancelledError.self) { try outcome?.get() }
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    @Test(.onTestThreads) func asyncCloneCancelledAtTheEndLeavesNothing() async throws {
        let directory = try TemporaryDirectory()
        let remote = try Self.makeRemote(directory)
        let target = directory.appending("clone.git")
        let task = Locked<Task<FetchResult, any Error>?>(nil)
        let heard = Locked(false)
        let progress: FetchProgressHandler = { progress in
            guard Self.isLastWords(progress) else { return }
            heard.withLock { $0 = true }
            _ = waitUntil(within: .seconds(30)) { task.withLock { $0 != nil } }
            task.withLock { $0 }?.cancel()
        }
        let started = Task(executorPreference: TestThreads.shared) {
            try await remote.clone(into: target, progress: progress)
        }
        task.withLock { $0 = started }
        let outcome = await started.result
        #expect(heard.withLock { $0 }, "the server's last words came")
        #expect(throws: CancelledError.self) { try outcome.get() }
        #expect(!FileManager.default.fileExists(atPath: target))
    }
}
