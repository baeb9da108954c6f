extension Remote {
    // MARK: Blocking

    /// Pushes from the repository at `gitDirectory` (its refs and objects) to the remote, as
    /// `git push <url> <refspec>...` does, blocking until the server has answered. Refs refused
    /// here or by the server are results, not errors; errors are for pushes that could not be
    /// made (a connection lost, a refspec that matches nothing, a server that broke the
    /// protocol). `progress` hears the server's messages.
    @discardableResult
    public func pushBlocking(
        from gitDirectory: String, updates: [PushRefspec], options: RepositoryPushOptions = RepositoryPushOptions(),
        progress: FetchProgressHandler? = nil
    ) throws -> PushResult {
        try pushBlocking(from: gitDirectory, updates: updates, options: options, progress: progress, exchangeEnded: nil)
    }

    /// ``pushBlocking(from:updates:options:progress:)``; `exchangeEnded` is called on the loop
    /// the moment the exchange ends, as the connection closes (before its program's last words).
    package func pushBlocking(
        from gitDirectory: String, updates: [PushRefspec], options: RepositoryPushOptions,
        progress: FetchProgressHandler?, exchangeEnded: (() -> Void)?
    ) throws -> PushResult {
        try runOnPrivateLoop { loop, completion in
            push(
                from: gitDirectory, updates: updates, options: options, in: loop, progress: progress,
                exchangeEnded: exchangeEnded, completion: completion)
        }
    }

    // MARK: Run loop

    /// Pushes on `loop`; `completion` (on the loop's thread) gets the result. Cancelling before
    /// the commands are sent leaves the remote untouched; cancelling while the pack goes out
    /// closes the connection, and receive-pack updates nothing without the whole pack.
    @discardableResult
    public func push(
        from gitDirectory: String, updates: [PushRefspec], options: RepositoryPushOptions = RepositoryPushOptions(),
        in loop: EpollRunLoop, progress: FetchProgressHandler? = nil,
        completion: @escaping (Result<PushResult, any Error>) -> Void
    ) -> RunningExchange {
        push(
            from: gitDirectory, updates: updates, options: options, in: loop, progress: progress, exchangeEnded: nil,
            completion: completion)
    }

    /// ``push(from:updates:options:in:progress:completion:)``, calling `exchangeEnded` on the
    /// loop the moment the exchange ends (the connection just closed; a program behind it, such
    /// as receive-pack, has not yet said what it says when its input ends).
    package func push(
        from gitDirectory: String, updates: [PushRefspec], options: RepositoryPushOptions, in loop: EpollRunLoop,
        progress: FetchProgressHandler?, exchangeEnded: (() -> Void)?,
        completion: @escaping (Result<PushResult, any Error>) -> Void
    ) -> RunningExchange {
        // Every progress call on the loop's thread, whole lines, before the completion.
        let relay = progress.map { ProgressRelay($0, loop: loop) }
        let progress = relay?.sink
        let completion: (Result<PushResult, any Error>) -> Void =
            relay.map { relay in
                { result in
                    let deliver = Transferred({ completion(result) })
                    relay.finish { deliver.value() }
                }
            } ?? completion
        let operation: RepositoryPush
        let connection: PackStreamingConnection
        var connected: (any Connection)?
        do {
            // The server first: it starts (a process, a connection) while the repository is
            // opened, which reads and checks every pack index.
            let request = ServiceRequest(
                service: .receivePack, path: url.path,
                protocolVersion: options.protocolVersion == .v2 ? .v0 : options.protocolVersion)
            let inner = try transport.connect(request, timeout: timeout, in: loop)
            connected = inner
            operation = try RepositoryPush(
                gitDirectory: gitDirectory, refspecs: updates, options: options, progress: progress)
            connection = PackStreamingConnection(inner, persists: transport.connectionPersists)
        } catch {
            connected?.close()
            var completion = Optional(completion)
            let timer = loop.addTimer(after: .zero) { _ in
                completion?(.failure(error))
                completion = nil
            }
            return RunningExchange {
                timer.invalidate()
                completion?(.failure(CancelledError()))
                completion = nil
            }
        }
        operation.connection = connection
        var engine: ExchangeEngine<PushExchange>?
        var handleError: (any Error)?
        let stateless = !transport.connectionPersists
        engine = ExchangeEngine(
            exchange: operation.makeExchange(), connection: connection,
            context: ExchangeContext(connectionPersists: transport.connectionPersists), loop: loop, timeout: timeout,
            deadline: deadline, observer: PacketTrace(identity: "push"),
            onElement: { event in
                guard handleError == nil else { return }
                do {
                    try operation.handle(event)
                } catch {
                    handleError = error
                    engine?.cancel(with: error)
                }
            },
            completion: { result in
                exchangeEnded?()
                engine = nil
                if let handleError { return completion(.failure(handleError)) }
                completion(
                    result.flatMap { outcome in Result { try operation.complete(outcome) } }.mapError {
                        operation.failure($0, stateless: stateless)
                    })
            })
        engine?.start()
        return RunningExchange { engine?.cancel(with: CancelledError()) }
    }

    // MARK: async

    /// Pushes from the repository at `gitDirectory`; see
    /// ``pushBlocking(from:updates:options:progress:)``. Cancelling the task closes the connection.
    @discardableResult
    public func push(
        from gitDirectory: String, updates: [PushRefspec], options: RepositoryPushOptions = RepositoryPushOptions(),
        progress: FetchProgressHandler? = nil
    ) async throws -> PushResult {
        try await runOnSharedLoop { loop, completion in
            push(
                from: gitDirectory, updates: updates, options: options, in: loop, progress: progress,
                completion: completion)
        }
    }
}
