/// A remote repository and how to reach it: the entry point for listing its refs (ls-remote),
/// cloning, fetching and pushing.
///
/// Every operation comes in three forms over one engine: blocking, on an ``EpollRunLoop`` with
/// callbacks, and `async`.
public struct Remote: Sendable {
    /// Where the repository is.
    public let url: RemoteURL
    /// How to connect to it.
    public var transport: any Transport
    /// Bounds the connect and every wait for data; nil waits forever (as git does).
    public var timeout: Duration?
    /// Bounds each exchange as a whole, from the start of the connect to the last byte, however
    /// steadily data arrives (a server trickling one ref a second never trips ``timeout``); past
    /// it the exchange fails with ``ExchangeDeadlineError``. nil (the default): no deadline.
    public var deadline: Duration?
    /// The remote's name when it was named in a configuration (`origin`), nil for a URL.
    public var name: String?
    /// The protocol version every operation of this remote asks for, whatever its options say:
    /// git's `protocol.version`, set from the configuration by
    /// ``init(_:configuration:environment:timeout:)``. nil (the default): each operation's
    /// options choose (``LsRemoteOptions/protocolVersion``, ``FetchOptions/protocolVersion``).
    public var protocolVersion: ProtocolVersion?

    /// A git:// remote at `host`, `port` and `path`.
    public init(host: String, port: Int = 9418, path: String, timeout: Duration? = nil) throws {
        let bracketed = host.contains(":") ? "[\(host)]" : host
        try self.init("git://\(bracketed)\(port == 9418 ? "" : ":\(port)")\(path)", timeout: timeout)
    }

    /// A remote at `url` reached through `transport` (such as a replaying one in tests).
    public init(url: RemoteURL, transport: any Transport, timeout: Duration? = nil) {
        self.url = url
        self.transport = transport
        self.timeout = timeout
    }

    private func request(_ service: Service, _ version: ProtocolVersion) -> ServiceRequest {
        ServiceRequest(service: service, path: url.path, protocolVersion: version)
    }

    // MARK: Any exchange

    /// Runs `exchange` with `service`, blocking until it ends. Elements go to `onElement` as they
    /// are parsed. `traceIdentity` names this side in `GIT_TRACE_PACKET` output.
    ///
    /// This is the run-loop form on a private ``EpollRunLoop`` that runs until the exchange ends:
    /// the same engine, connections and error handling as the other forms. Its name says it
    /// blocks, so that `try await remote.run(…)` always means the `async` form.
    public func runBlocking<E: Exchange>(
        _ exchange: E, service: Service = .uploadPack, protocolVersion: ProtocolVersion,
        traceIdentity: String, onElement: (E.Element) -> Void = { _ in }
    ) throws -> E.Output {
        try withoutActuallyEscaping(onElement) { onElement in
            try runOnPrivateLoop { loop, completion in
                run(
                    exchange, service: service, protocolVersion: protocolVersion, traceIdentity: traceIdentity,
                    in: loop, onElement: onElement, completion: completion)
            }
        }
    }

    /// Starts `exchange` on `loop` and returns at once. `onElement` and then `completion` (once)
    /// are called on the loop's thread as the exchange proceeds.
    @discardableResult
    public func run<E: Exchange>(
        _ exchange: E, service: Service = .uploadPack, protocolVersion: ProtocolVersion,
        traceIdentity: String, in loop: EpollRunLoop, onElement: @escaping (E.Element) -> Void = { _ in },
        completion: @escaping (Result<E.Output, any Error>) -> Void
    ) -> RunningExchange {
        let connection: any Connection
        do {
            connection = try transport.connect(request(service, protocolVersion), timeout: timeout, in: loop)
        } catch {
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
        let engine = ExchangeEngine(
            exchange: exchange, connection: connection,
            context: ExchangeContext(connectionPersists: transport.connectionPersists), loop: loop,
            timeout: timeout, deadline: deadline, observer: PacketTrace(identity: traceIdentity), onElement: onElement,
            completion: completion)
        engine.start()
        return RunningExchange { engine.cancel(with: CancelledError()) }
    }

    /// Runs `exchange` on a shared background run loop and returns its output. Cancelling the
    /// task closes the connection and throws ``CancelledError``.
    public func run<E: Exchange & Sendable>(
        _ exchange: E, service: Service = .uploadPack, protocolVersion: ProtocolVersion,
        traceIdentity: String, onElement: @escaping @Sendable (E.Element) -> Void = { _ in }
    ) async throws -> E.Output where E.Output: Sendable, E.Element: Sendable {
        try await runOnSharedLoop { loop, completion in
            run(
                exchange, service: service, protocolVersion: protocolVersion, traceIdentity: traceIdentity, in: loop,
                onElement: onElement, completion: completion)
        }
    }

    // MARK: ls-remote

    /// `options` with ``protocolVersion`` applied.
    func effective(_ options: LsRemoteOptions) -> LsRemoteOptions {
        guard let protocolVersion else { return options }
        var options = options
        options.protocolVersion = protocolVersion
        return options
    }

    /// `options` with ``protocolVersion`` applied.
    func effective(_ options: RepositoryFetchOptions) -> RepositoryFetchOptions {
        guard let protocolVersion else { return options }
        var options = options
        options.fetch.protocolVersion = protocolVersion
        return options
    }

    /// Lists the remote's refs, blocking the calling thread (the `async` form is
    /// ``lsRemote(_:)``, `try await remote.lsRemote()`).
    public func lsRemoteBlocking(_ options: LsRemoteOptions = LsRemoteOptions()) throws -> RefListing {
        let options = effective(options)
        return try runBlocking(
            LsRemoteExchange(options: options), protocolVersion: options.protocolVersion, traceIdentity: "ls-remote")
    }

    /// Lists the remote's refs on `loop`: `onRef` gets each ref as it is parsed, then
    /// `completion` the whole listing or the error.
    @discardableResult
    public func lsRemote(
        _ options: LsRemoteOptions = LsRemoteOptions(), in loop: EpollRunLoop,
        onRef: @escaping (Ref) -> Void = { _ in },
        completion: @escaping (Result<RefListing, any Error>) -> Void
    ) -> RunningExchange {
        let options = effective(options)
        return run(
            LsRemoteExchange(options: options), protocolVersion: options.protocolVersion, traceIdentity: "ls-remote",
            in: loop, onElement: onRef, completion: completion)
    }

    /// Lists the remote's refs.
    public func lsRemote(_ options: LsRemoteOptions = LsRemoteOptions()) async throws -> RefListing {
        let options = effective(options)
        return try await run(
            LsRemoteExchange(options: options), protocolVersion: options.protocolVersion, traceIdentity: "ls-remote")
    }

    /// The remote's refs as they arrive. The sequence ends normally only once the whole listing
    /// has arrived; cancelling the iterating task closes the connection and makes the sequence
    /// throw ``CancelledError``, and leaving the loop early closes the connection.
    public func refs(_ options: LsRemoteOptions = LsRemoteOptions()) -> RefStream {
        let options = effective(options)
        return RefStream { loop, emit, finish in
            BridgedOperation(
                running: run(
                    LsRemoteExchange(options: options), protocolVersion: options.protocolVersion,
                    traceIdentity: "ls-remote", in: loop, onElement: emit, completion: finish))
        }
    }
}

extension Remote {
    /// What becomes of what the program behind the transport (ssh, `git-upload-pack`) writes on
    /// its standard error: this process's standard error by default (as git's children write
    /// there), or ``ProgramErrorOutput/kept`` to show it nowhere. Either way its last lines
    /// explain a failure (``RemoteProgramError``). Transports with no program ignore it.
    public var programErrorOutput: ProgramErrorOutput {
        get {
            if let local = transport as? LocalTransport { return local.programErrorOutput }
            if let ssh = transport as? SSHTransport { return ssh.programErrorOutput }
            return .standardError
        }
        set {
            if var local = transport as? LocalTransport {
                local.programErrorOutput = newValue
                transport = local
            } else if var ssh = transport as? SSHTransport {
                ssh.programErrorOutput = newValue
                transport = ssh
            }
        }
    }
}
