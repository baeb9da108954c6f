extension Remote {
    // MARK: Blocking

    /// Clones the remote into a new bare repository at `path` (`git clone --bare`, or
    /// `--mirror` with ``RepositoryFetchOptions/mirror``), blocking the calling thread until it is
    /// done (the run-loop form on a private loop: `progress` is called on this thread). On
    /// failure nothing is left at `path`. The `async` form is
    /// ``clone(into:options:progress:)``: `try await remote.clone(into:)`.
    @discardableResult
    public func cloneBlocking(
        into path: String, options: RepositoryFetchOptions = RepositoryFetchOptions(),
        progress: FetchProgressHandler? = nil
    ) throws -> FetchResult {
        try runOnPrivateLoop { loop, completion in
            clone(into: path, options: options, in: loop, progress: progress, completion: completion)
        }
    }

    /// Fetches from the remote into the existing bare repository at `gitDirectory`, blocking the
    /// calling thread until it is done (`progress` is called on this thread). On failure the
    /// repository's refs and files are as they were. The `async` form is
    /// ``fetch(into:options:progress:)``: `try await remote.fetch(into:)`.
    @discardableResult
    public func fetchBlocking(
        into gitDirectory: String, options: RepositoryFetchOptions = RepositoryFetchOptions(),
        progress: FetchProgressHandler? = nil
    ) throws -> FetchResult {
        try runOnPrivateLoop { loop, completion in
            fetch(into: gitDirectory, options: options, in: loop, progress: progress, completion: completion)
        }
    }

    // MARK: Run loop

    /// Clones into a new bare repository at `path` on `loop`: `progress` hears of the transfer,
    /// `completion` (on the loop's thread) gets the result. Deltas are resolved on worker
    /// threads, so the loop serves its other connections meanwhile.
    @discardableResult
    public func clone(
        into path: String, options: RepositoryFetchOptions = RepositoryFetchOptions(), in loop: EpollRunLoop,
        progress: FetchProgressHandler? = nil, completion: @escaping (Result<FetchResult, any Error>) -> Void
    ) -> RunningExchange {
        let relay = progress.map { ProgressRelay($0, loop: loop) }
        return runOnLoop(
            RepositoryFetch(cloneFrom: url, into: path, options: effective(options), progress: relay?.sink), "clone",
            loop, relay, completion)
    }

    /// Fetches into the existing bare repository at `gitDirectory` on `loop`; see
    /// ``clone(into:options:in:progress:completion:)``.
    @discardableResult
    public func fetch(
        into gitDirectory: String, options: RepositoryFetchOptions = RepositoryFetchOptions(), in loop: EpollRunLoop,
        progress: FetchProgressHandler? = nil, completion: @escaping (Result<FetchResult, any Error>) -> Void
    ) -> RunningExchange {
        let relay = progress.map { ProgressRelay($0, loop: loop) }
        return runOnLoop(
            RepositoryFetch(fetchFrom: url, into: gitDirectory, options: effective(options), progress: relay?.sink),
            "fetch", loop, relay, completion)
    }

    private func runOnLoop(
        _ operation: RepositoryFetch, _ identity: String, _ loop: EpollRunLoop, _ relay: ProgressRelay?,
        _ completion: @escaping (Result<FetchResult, any Error>) -> Void
    ) -> RunningExchange {
        // A clone is a new repository that no one uses until the caller has the result: a
        // cancellation that arrived after its refs were written (while the last progress was
        // handed on, say) still removes it.
        let checked: (Result<FetchResult, any Error>) -> Void = { result in
            guard case .success = result, operation.isClone, operation.cancellation.withLock({ $0 }) else {
                return completion(result)
            }
            operation.abandon()
            completion(.failure(CancelledError()))
        }
        // Every progress call reaches the caller before the completion.
        let completion: (Result<FetchResult, any Error>) -> Void =
            relay.map { relay in
                { result in
                    let deliver = Transferred({ checked(result) })
                    relay.finish { deliver.value() }
                }
            } ?? checked
        let running = startExchange(operation, identity: identity, in: loop) { result in
            switch result {
            case .failure(let error):
                operation.abandon()
                completion(.failure(error))
            case .success(let outcome):
                let work = Transferred(operation)
                runOffLoop(
                    in: loop,
                    { () throws -> FetchResult in
                        do {
                            return try work.value.complete(outcome)
                        } catch {
                            work.value.abandon()
                            throw error
                        }
                    }, completion: completion)
            }
        }
        // Cancelled after the transfer (while deltas are resolved), the operation still stops
        // before it changes the repository, and removes what it made; a clone cancelled later
        // still is removed by `checked` above.
        return RunningExchange {
            operation.cancel()
            running.cancel()
        }
    }

    // MARK: async

    /// Clones into a new bare repository at `path`. Cancelling the task, at any point before the
    /// result is handed over, stops the clone and removes what was made.
    @discardableResult
    public func clone(
        into path: String, options: RepositoryFetchOptions = RepositoryFetchOptions(),
        progress: FetchProgressHandler? = nil
    ) async throws -> FetchResult {
        try await runOnSharedLoop { loop, completion in
            clone(into: path, options: options, in: loop, progress: progress, completion: completion)
        }
    }

    /// Fetches into the existing bare repository at `gitDirectory`. Cancelling the task before
    /// the refs are updated stops the fetch and leaves the repository as it was; once it has
    /// begun updating them, the fetch completes.
    @discardableResult
    public func fetch(
        into gitDirectory: String, options: RepositoryFetchOptions = RepositoryFetchOptions(),
        progress: FetchProgressHandler? = nil
    ) async throws -> FetchResult {
        try await runOnSharedLoop { loop, completion in
            fetch(into: gitDirectory, options: options, in: loop, progress: progress, completion: completion)
        }
    }

    // MARK: The exchange

    /// Starts the fetch exchange of `operation` on `loop`; pack data goes to the operation as it
    /// arrives. `done` gets the exchange's outcome, or the first error (a pack that cannot be
    /// stored stops the transfer at once).
    @discardableResult
    private func startExchange(
        _ operation: RepositoryFetch, identity: String, in loop: EpollRunLoop,
        done: @escaping (Result<FetchOutcome, any Error>) -> Void
    ) -> RunningExchange {
        let exchange: FetchExchange
        let version = operation.protocolVersion
        do {
            operation.throughRemoteHelper = !transport.connectionPersists
            exchange = try operation.makeExchange()
        } catch {
            let timer = loop.addTimer(after: .zero) { _ in done(.failure(error)) }
            return RunningExchange { timer.invalidate() }
        }
        var running: RunningExchange?
        var storeError: (any Error)?
        let onEvent: (FetchEvent) -> Void = { event in
            guard storeError == nil else { return }
            do {
                try operation.handle(event)
            } catch {
                storeError = error
                running?.cancel()
            }
        }
        running = run(exchange, protocolVersion: version, traceIdentity: identity, in: loop, onElement: onEvent) {
            result in
            done(storeError.map { .failure($0) } ?? result)
        }
        return running!
    }
}
