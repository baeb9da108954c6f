/// A run loop on a background thread of its own, for the async API. The thread starts when work
/// is posted and ends when its loop has nothing left to do, so an idle process keeps no thread.
final class SharedRunLoop: Sendable {
    static let shared = SharedRunLoop()

    private let current = Locked<RunLoopHandle?>(nil)

    /// Runs `work` on the shared loop's thread, with its loop, starting the thread if there is none.
    func post(_ work: @escaping @Sendable (EpollRunLoop) -> Void) throws {
        while true {
            let handle = try current.withLock { handle in
                if let handle { return handle }
                let started = try startThread()
                handle = started
                return started
            }
            if handle.post({ if let loop = try? EpollRunLoop.current() { work(loop) } }) { return }
            current.withLock { if $0 === handle { $0 = nil } }
        }
    }

    private func startThread() throws -> RunLoopHandle {
        let loop = try EpollRunLoop()
        let handle = loop.handle
        try EpollRunLoop.runOnNewThread(loop) { [self] in
            current.withLock { if $0 === handle { $0 = nil } }
        }
        return handle
    }
}

extension SharedRunLoop {
    /// Starts an operation of the run-loop API on the shared loop and returns at once: `start`
    /// begins it on the loop's thread and returns its handle, and `completion` gets its result
    /// there, once. The returned closure cancels it from any thread (before it starts, it never
    /// starts, and `completion` gets ``CancelledError``). No task is involved, so nothing waits
    /// for a thread of the concurrency pool.
    static func start<Output>(
        _ start: @escaping @Sendable (EpollRunLoop, @escaping (Result<Output, any Error>) -> Void) -> RunningExchange,
        completion: @escaping @Sendable (Result<Output, any Error>) -> Void
    ) -> @Sendable () -> Void {
        let state = Locked(SharedRunState())
        do {
            try shared.post { loop in
                let running = LoopBound<RunningExchange>(on: loop)
                let cancelled = state.withLock { state in
                    state.running = running
                    state.handle = loop.handle
                    return state.cancelled
                }
                if cancelled {
                    completion(.failure(CancelledError()))
                    return
                }
                running.value = start(loop) { result in
                    running.value = nil
                    completion(result)
                }
            }
        } catch {
            completion(.failure(error))
        }
        return {
            let (handle, running) = state.withLock { state in
                state.cancelled = true
                return (state.handle, state.running)
            }
            handle?.post { running?.value?.cancel() }
        }
    }

    /// Runs an operation of the run-loop API on the shared loop and awaits its result: `start`
    /// begins it on the loop's thread and returns its handle; cancelling the task cancels it
    /// there (before it starts, it never starts).
    static func run<Output: Sendable>(
        _ start: @escaping @Sendable (EpollRunLoop, @escaping (Result<Output, any Error>) -> Void) -> RunningExchange
    ) async throws -> Output {
        let cancellation = Locked(SharedCancellation())
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let cancel = Self.start(start) { continuation.resume(with: $0) }
                let cancelledAlready = cancellation.withLock { state in
                    state.cancel = cancel
                    return state.cancelled
                }
                if cancelledAlready { cancel() }
            }
        } onCancel: {
            let cancel = cancellation.withLock { state in
                state.cancelled = true
                return state.cancel
            }
            cancel?()
        }
    }
}

/// How an `async` operation's cancellation handler reaches the operation, whichever of the two
/// comes first.
private struct SharedCancellation: Sendable {
    var cancelled = false
    var cancel: (@Sendable () -> Void)?
}

/// What an `async` operation and its cancellation handler share: the loop it runs on, once it
/// started.
private struct SharedRunState: Sendable {
    var cancelled = false
    var handle: RunLoopHandle?
    var running: LoopBound<RunningExchange>?
}
