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
            jobs: options.jobs,
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

    /// How many listings may wait for the consumer before no new remote starts.
    private let jobs: Int
    private let make: Make
    private let feed: Feed

    init(jobs: Int, make: @escaping Make, feed: @escaping Feed) {
        self.jobs = jobs
        self.make = make
        self.feed = feed
    }

    /// Makes an iterator; the batch starts with its first ``Iterator/next()``.
    public func makeAsyncIterator() -> Iterator {
        let (make, feed) = (self.make, self.feed)
        let bridge = LoopBridge<BatchListing, Void>(bufferLimit: jobs) { loop, emit, finish in
            let batch = make(loop, emit, { finish(.success(())) })
            let operation = BridgedOperation(
                running: RunningExchange { batch.cancel() }, hold: { batch.isSuspended = $0 })
            feed(batch)
            return operation
        }
        return Iterator(consumer: LoopBridgeConsumer(bridge))
    }

    /// Hands out the listings; dropping it stops the batch.
    public struct Iterator: AsyncIteratorProtocol {
        /// One remote's answer.
        public typealias Element = BatchListing
        /// The sequence never throws.
        public typealias Failure = Never

        let consumer: LoopBridgeConsumer<BatchListing, Void>

        /// The next listing, or nil after the last one (or when the task is cancelled).
        public mutating func next() async -> BatchListing? { try? await consumer.bridge.next() }

        /// The next listing, or nil after the last one (or when the task is cancelled).
        public mutating func next(isolation actor: isolated (any Actor)?) async -> BatchListing? {
            try? await consumer.bridge.next()
        }
    }
}
