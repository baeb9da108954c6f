import Synchronization

extension Remote {
    /// Lists the refs of every remote in `urls` concurrently on the shared background run loop,
    /// as an asynchronous sequence of per-remote results (see ``LsRemoteBatch``).
    ///
    /// Nothing starts until the sequence is iterated. `urls` is read on the loop's thread, one URL
    /// each time a job is free; listings wait, bounded, for the consumer (while it holds
    /// ``LsRemoteBatchOptions/jobs`` of them unread, no new remote starts). Ending the iteration
    /// early, or cancelling the task, closes every connection still open.
    ///
    /// ```swift
    /// for await listing in Remote.lsRemoteBatch(urls, options: LsRemoteBatchOptions(jobs: 32)) {
    ///     switch listing.result {
    ///     case .success(let refs): print(listing.url, refs.refs.count)
    ///     case .failure(let error): print(listing.url, error)
    ///     }
    /// }
    /// ```
    public static func lsRemoteBatch<URLs: Sequence<String> & Sendable>(
        _ urls: URLs, options: LsRemoteBatchOptions = LsRemoteBatchOptions(),
        makeRemote: (@Sendable (String) throws -> Remote)? = nil
    ) -> LsRemoteBatchResults {
        LsRemoteBatchResults(
            make: { loop, onResult, completion in
                LsRemoteBatch(options, in: loop, makeRemote: makeRemote, onResult: onResult, completion: completion)
            },
            feed: { batch in batch.start(urls) })
    }
}

/// The listings of ``Remote/lsRemoteBatch(_:options:makeRemote:)``, one per remote, in the
/// order the options ask for. Each iteration runs the batch anew.
public struct LsRemoteBatchResults: AsyncSequence, Sendable {
    /// One remote's answer.
    public typealias Element = BatchListing
    /// Failures are per remote, inside each ``BatchListing``: the sequence itself never throws.
    public typealias Failure = Never

    /// Makes the batch on a loop, with the callbacks it reports to.
    typealias Make = @Sendable (EpollRunLoop, @escaping (BatchListing) -> Void, @escaping () -> Void) -> LsRemoteBatch
    /// Gives the batch its input.
    typealias Feed = @Sendable (LsRemoteBatch) -> Void

    private let make: Make
    private let feed: Feed

    init(make: @escaping Make, feed: @escaping Feed) {
        self.make = make
        self.feed = feed
    }

    /// Makes an iterator; the batch starts with its first ``Iterator/next()``.
    public func makeAsyncIterator() -> Iterator { Iterator(stream: BatchStream(make: make, feed: feed)) }

    /// Hands out the listings; dropping it stops the batch.
    public struct Iterator: AsyncIteratorProtocol {
        /// One remote's answer.
        public typealias Element = BatchListing
        /// The sequence never throws.
        public typealias Failure = Never

        private let stream: BatchStream

        fileprivate init(stream: BatchStream) { self.stream = stream }

        /// The next listing, or nil after the last one (or when the task is cancelled).
        public mutating func next() async -> BatchListing? { await stream.next() }

        /// The next listing, or nil after the last one (or when the task is cancelled).
        public mutating func next(isolation actor: isolated (any Actor)?) async -> BatchListing? {
            await stream.next()
        }
    }
}

/// The thread-safe side of one iteration: where its batch runs, reached from the consumer's task.
private final class BatchStream: Sendable {
    private let make: LsRemoteBatchResults.Make
    private let feed: LsRemoteBatchResults.Feed
    private let state = Mutex(State())

    private struct State: Sendable {
        var handle: RunLoopHandle?
        var core: LoopBound<BatchStreamCore>?
        var cancelled = false
    }

    init(make: @escaping LsRemoteBatchResults.Make, feed: @escaping LsRemoteBatchResults.Feed) {
        self.make = make
        self.feed = feed
    }

    deinit {
        let (handle, core) = state.withLock { ($0.handle, $0.core) }
        handle?.post { core?.value?.cancel() }
    }

    func next() async -> BatchListing? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<BatchListing?, Never>) in
                let (handle, core, cancelled) = state.withLock { ($0.handle, $0.core, $0.cancelled) }
                if cancelled {
                    continuation.resume(returning: nil)
                } else if let handle, let core {
                    let posted = handle.post {
                        if let value = core.value {
                            value.request(continuation)
                        } else {
                            continuation.resume(returning: nil)
                        }
                    }
                    if !posted { continuation.resume(returning: nil) }
                } else {
                    startBatch(continuation)
                }
            }
        } onCancel: {
            let (handle, core) = state.withLock { state in
                state.cancelled = true
                return (state.handle, state.core)
            }
            handle?.post { core?.value?.cancel() }
        }
    }

    private func startBatch(_ continuation: CheckedContinuation<BatchListing?, Never>) {
        do {
            try SharedRunLoop.shared.post { [self] loop in
                let bound = LoopBound<BatchStreamCore>(on: loop)
                let cancelled = state.withLock { state in
                    state.handle = loop.handle
                    state.core = bound
                    return state.cancelled
                }
                guard !cancelled else {
                    continuation.resume(returning: nil)
                    return
                }
                let core = BatchStreamCore(loop: loop)
                bound.value = core
                let batch = make(loop, { core.receive($0) }, { core.batchDidFinish() })
                core.batch = batch
                core.limit = batch.options.jobs
                core.request(continuation)
                feed(batch)
            }
        } catch {
            continuation.resume(returning: nil)
        }
    }
}

/// The loop's side of one iteration: listings the consumer has not taken yet, and the consumer
/// waiting for one. Keeps the shared loop alive (a far timer) until the consumer got its nil.
private final class BatchStreamCore {
    var batch: LsRemoteBatch?
    var limit = 1
    private var ready: [BatchListing] = []
    private var readyHead = 0
    private var waiting: CheckedContinuation<BatchListing?, Never>?
    private var batchFinished = false
    private var keepAlive: RunLoopTimer?

    init(loop: EpollRunLoop) {
        keepAlive = loop.addTimer(after: .seconds(86_400), repeating: .seconds(86_400)) { _ in }
    }

    private var readyCount: Int { ready.count - readyHead }

    func request(_ continuation: CheckedContinuation<BatchListing?, Never>) {
        if readyHead < ready.count {
            let listing = ready[readyHead]
            readyHead += 1
            if readyHead == ready.count {
                ready.removeAll(keepingCapacity: true)
                readyHead = 0
            }
            continuation.resume(returning: listing)
            if readyCount < limit { batch?.isSuspended = false }
        } else if batchFinished {
            continuation.resume(returning: nil)
            end()
        } else {
            waiting = continuation
        }
    }

    func receive(_ listing: BatchListing) {
        if let waiting {
            self.waiting = nil
            waiting.resume(returning: listing)
            return
        }
        ready.append(listing)
        if readyCount >= limit { batch?.isSuspended = true }
    }

    func batchDidFinish() {
        batchFinished = true
        batch = nil
        if let waiting {
            self.waiting = nil
            waiting.resume(returning: nil)
            end()
        }
    }

    func cancel() {
        let batch = self.batch
        self.batch = nil
        batch?.cancel()
        batchFinished = true
        ready = []
        readyHead = 0
        waiting?.resume(returning: nil)
        waiting = nil
        end()
    }

    private func end() {
        keepAlive?.invalidate()
        keepAlive = nil
    }
}
