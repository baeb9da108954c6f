import GitWireCore

/// The two directions of a connection: what is read from it and what is written to it.
public struct ByteStreamPair {
    /// The stream to read from.
    public let input: ByteInputStream
    /// The stream to write to.
    public let output: ByteOutputStream

    /// Pairs two streams.
    public init(input: ByteInputStream, output: ByteOutputStream) {
        self.input = input
        self.output = output
    }

    /// Streams to a TCP `host` and `port` (IPv4 or IPv6, as the resolver answers), not yet open.
    /// The connect starts when either stream is opened, is bounded by `connectTimeout`, and sets
    /// `TCP_NODELAY`. The socket is non-blocking and close-on-exec.
    /// Scheduled in a run loop, the host is looked up by `resolver` off the loop's thread.
    public static func connecting(
        toHost host: String, port: Int, connectTimeout: Duration? = nil, resolver: any HostResolver = SystemResolver()
    ) -> ByteStreamPair {
        let channel = StreamChannel(
            connector: TCPConnector(host: host, port: port, timeout: connectTimeout, resolver: resolver))
        return ByteStreamPair(input: ByteInputStream(channel: channel), output: ByteOutputStream(channel: channel))
    }

    /// Both ends of a Unix socket pair, open already: what one end writes the other reads.
    public static func socketPair() throws -> (ByteStreamPair, ByteStreamPair) {
        let (a, b) = try Socket.makePair()
        let pairs = (ByteStreamPair(socket: a), ByteStreamPair(socket: b))
        try pairs.0.open()
        try pairs.1.open()
        return pairs
    }

    /// Streams over a connected socket, which they own.
    package init(socket: FileDescriptor) {
        let channel = StreamChannel(descriptor: socket, streams: 2)
        input = ByteInputStream(channel: channel)
        output = ByteOutputStream(channel: channel)
    }

    /// Starts `arguments` as a child process (a nil in `environment` removes that variable):
    /// ``input`` reads its standard output, ``output``
    /// writes its standard input. Its standard error is inherited, or captured into
    /// `standardError` if asked for.
    public static func spawning(
        _ arguments: [String], environment: [String: String?] = [:], captureStandardError: Bool = false
    ) throws -> (pair: ByteStreamPair, process: ChildProcess, standardError: ByteInputStream?) {
        let (process, pipes) = try ChildProcess.spawn(
            arguments, environment: environment, captureStandardError: captureStandardError)
        let pair = ByteStreamPair(
            input: ByteInputStream(channel: StreamChannel(descriptor: pipes.standardOutput, streams: 1)),
            output: ByteOutputStream(channel: StreamChannel(descriptor: pipes.standardInput, streams: 1)))
        let errors = pipes.standardError.map { ByteInputStream(channel: StreamChannel(descriptor: $0, streams: 1)) }
        return (pair, process, errors)
    }

    /// Opens both streams (see ``ByteStream/open()``).
    public func open() throws {
        try input.open()
        try output.open()
    }

    /// Closes both streams.
    public func close() {
        output.close()
        input.close()
    }

    /// Closes both streams at once; a TCP peer sees the connection reset rather than an orderly
    /// end. For giving up on a peer that misbehaves.
    public func abort() {
        input.channel.prepareAbort()
        close()
    }

    /// Schedules both streams in `loop`.
    public func schedule(in loop: EpollRunLoop) {
        input.schedule(in: loop)
        output.schedule(in: loop)
    }

    /// Sets the blocking-call timeout of both streams.
    public func setTimeout(_ timeout: Duration?) {
        input.timeout = timeout
        output.timeout = timeout
    }

    /// Whether `TCP_NODELAY` is set on the connection's socket.
    package var isNoDelay: Bool { input.channel.descriptor.map(Socket.noDelay) ?? false }

    /// Sets the kernel's socket buffer sizes (for tests of short reads and writes).
    package func setSocketBufferSizes(send: Int?, receive: Int?) throws {
        guard let descriptor = input.channel.descriptor else { throw StreamError.notOpen }
        if let send { try Socket.setBufferSize(descriptor, send: true, bytes: send) }
        if let receive { try Socket.setBufferSize(descriptor, send: false, bytes: receive) }
    }
}

extension ListeningSocket {
    /// Waits up to `timeout` for a connection; nil if none came. The streams are open.
    package func accept(timeout: Duration?) throws -> ByteStreamPair? {
        guard let client = try acceptDescriptor(timeout: timeout) else { return nil }
        let pair = ByteStreamPair(socket: client)
        try pair.open()
        return pair
    }

    /// Accepts in `loop`: each connection's open streams go to `handler`, on the loop's thread.
    package func schedule(in loop: EpollRunLoop, handler: @escaping (ByteStreamPair) -> Void) {
        acceptDescriptors(in: loop) { client in
            let pair = ByteStreamPair(socket: client)
            try? pair.open()
            handler(pair)
        }
    }
}
